//! Expand stage: the impl block, unchanged, plus one call of the
//! registration macro that the server's `vocabulary!` generated.
//!
//! That macro carries the vocabulary, so names are checked and turned into
//! bits there; the literals pass through `macro_rules!` with their spans, which
//! is what puts an unknown-name error on the user's string literal.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemImpl, LitStr, PathArguments, TypePath};

use super::compose::Compose;
use super::parse::ToolFn;
use super::validate::missing_hints;
use crate::rule_args::{GroupSpec, rule_fields};

pub(crate) fn expand(
    item: &ItemImpl,
    self_path: &TypePath,
    spec: &GroupSpec,
    tools: &[ToolFn],
    compose: Option<&Compose>,
) -> TokenStream {
    // `vocabulary!` defines the registration macro under the server type's
    // name (macros and types live in different namespaces), so the path that
    // names the type here also names the macro.
    let macro_path = macro_path(self_path);
    let self_ty = &item.self_ty;
    let rule = rule_fields(spec);
    let require_annotations = spec.require_annotations.iter();
    let tool_names = tools
        .iter()
        .map(|tool| LitStr::new(&tool.name, tool.name_span));
    let methods = tools.iter().map(|tool| &tool.method);
    // Each tool that leaves a hint unstated, with where to say so; the
    // registration macro reports them if the group or the vocabulary
    // requires annotations.
    let unannotated = tools.iter().filter_map(|tool| {
        let hints = tool.hints.as_ref()?;
        let missing = missing_hints(hints);
        if missing.is_empty() {
            return None;
        }
        let name = LitStr::new(&tool.name, tool.name_span);
        let at = &hints.at;
        let missing = missing.into_iter().map(|hint| format_ident!("{hint}"));
        Some(quote!(#name => { #at } [#(#missing),*]))
    });
    let has_vocabulary = has_vocabulary(self_ty);
    let includes = compose.map(super::compose::expand);
    quote! {
        #item

        #has_vocabulary

        #macro_path! {
            server: #self_ty,
            kind: tool,
            #rule
            tools: [#(#tool_names => #methods),*],
            require_annotations: [#(#require_annotations)*],
            unannotated: [#(#unannotated),*],
            #includes
        }
    }
}

/// The registration macro's path: `vocabulary!` defines it under the server
/// type's name (macros and types live in different namespaces), so the path
/// that names the type here also names the macro.
pub(crate) fn macro_path(self_path: &TypePath) -> syn::Path {
    let mut macro_path = self_path.path.clone();
    for segment in &mut macro_path.segments {
        segment.arguments = PathArguments::None;
    }
    macro_path
}

/// When no vocabulary is in scope, rustc's own error is only "cannot find
/// macro"; this bound adds `Vocabulary`'s on_unimplemented message, which
/// says to declare or import the vocabulary, on the user's type.
pub(crate) fn has_vocabulary(self_ty: &syn::Type) -> TokenStream {
    quote_spanned! {self_ty.span()=>
        const _: () = {
            fn has_vocabulary<S: ::mcp_profiles::Vocabulary>() {}
            let _ = has_vocabulary::<#self_ty>;
        };
    }
}
