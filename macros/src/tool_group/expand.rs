//! Expand stage: the impl block, unchanged, plus one call of the
//! registration macro that the server's `vocabulary!` generated.
//!
//! That macro carries the vocabulary, so names are checked and turned into
//! bits there; the literals pass through `macro_rules!` with their spans, which
//! is what puts an unknown-name error on the user's string literal.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemImpl, LitStr, PathArguments, TypePath};

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

/// The hidden constant through which other groups include the group
/// `name`: `__MCP_GROUP_` and the name with every other character than a
/// letter or digit written `_`, spanned on the literal, so that including
/// a group nobody declared is rustc's "no associated item" on it.
pub(crate) fn shape_ident(name: &LitStr) -> Ident {
    let tail: String = name
        .value()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    Ident::new(&format!("__MCP_GROUP_{tail}"), name.span())
}

/// What a named group that failed to expand still declares: the constant
/// through which other groups include it, with its own tools (each name
/// once) and no routes, so that an `include` of it adds no error to the
/// group's own. The build fails on those, so nothing ever serves it.
pub(crate) fn fallback_shape(self_path: &TypePath, name: &LitStr, tools: &[ToolFn]) -> TokenStream {
    let private = quote!(::mcp_profiles::__private);
    let shape = shape_ident(name);
    let mut seen: Vec<&str> = Vec::new();
    let (names, definitions): (Vec<LitStr>, Vec<LitStr>) = tools
        .iter()
        .filter(|tool| {
            let first = !seen.contains(&tool.name.as_str());
            seen.push(&tool.name);
            first
        })
        .map(|tool| {
            (
                LitStr::new(&tool.name, tool.name_span),
                LitStr::new(&tool.method.to_string(), tool.method.span()),
            )
        })
        .unzip();
    quote! {
        const _: () = {
            fn routes() -> ::std::vec::Vec<#private::ToolRoute<#self_path>> {
                ::std::vec::Vec::new()
            }

            impl #self_path {
                #[doc(hidden)]
                #[allow(non_upper_case_globals)]
                pub(crate) const #shape: #private::GroupShape<#self_path> = #private::GroupShape {
                    name: #name,
                    tools: &[#(#names),*],
                    definitions: &[#(#definitions),*],
                    routes,
                };
            }
        };
    }
}
