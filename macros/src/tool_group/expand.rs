//! Expand stage: the impl block, unchanged, plus one call of the
//! registration macro that the server's `vocabulary!` generated.
//!
//! That macro carries the vocabulary, so names are checked and turned into
//! bits there; the literals pass through `macro_rules!` with their spans, which
//! is what puts an unknown-name error on the user's string literal.

use proc_macro2::{Delimiter, Group, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemImpl, LitStr, PathArguments, TypePath};

use super::parse::ToolFn;
use super::validate::{GroupSpec, missing_hints};

pub(crate) fn expand(
    item: &ItemImpl,
    self_path: &TypePath,
    spec: &GroupSpec,
    tools: &[ToolFn],
) -> TokenStream {
    // `vocabulary!` defines the registration macro under the server type's
    // name (macros and types live in different namespaces), so the path that
    // names the type here also names the macro.
    let mut macro_path = self_path.path.clone();
    for segment in &mut macro_path.segments {
        segment.arguments = PathArguments::None;
    }
    let self_ty = &item.self_ty;
    let GroupSpec {
        name,
        surfaces,
        capabilities,
        any_capabilities,
        any_capabilities_span,
        providers,
        require_annotations,
    } = spec;
    let require_annotations = require_annotations.iter();
    let name = name.iter();
    // The list keeps the span of the user's `any_capability` value, which
    // survives `macro_rules!`, so an unsatisfiable set is reported there.
    let mut any_capabilities = Group::new(Delimiter::Bracket, quote!(#(#any_capabilities),*));
    if let Some(span) = any_capabilities_span {
        any_capabilities.set_span(*span);
    }
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
    // When no vocabulary is in scope, rustc's own error is only "cannot find
    // macro"; this bound adds `Vocabulary`'s on_unimplemented message, which
    // says to declare or import the vocabulary, on the user's type.
    let has_vocabulary = quote_spanned! {self_ty.span()=>
        const _: () = {
            fn has_vocabulary<S: ::mcp_profiles::Vocabulary>() {}
            let _ = has_vocabulary::<#self_ty>;
        };
    };
    quote! {
        #item

        #has_vocabulary

        #macro_path! {
            server: #self_ty,
            name: [#(#name)*],
            surfaces: [#(#surfaces),*],
            capabilities: [#(#capabilities),*],
            any_capabilities: #any_capabilities,
            providers: [#(#providers),*],
            tools: [#(#tool_names => #methods),*],
            require_annotations: [#(#require_annotations)*],
            unannotated: [#(#unannotated),*],
        }
    }
}
