//! Parse stage: the `#[prompt]` methods of the impl block.

use proc_macro2::{Span, TokenStream};
use syn::{Ident, ImplItem, ItemImpl};

use crate::tool_group::parse::{explicit_name, last_segment_is, router_traces};

/// One `#[prompt]` method of the impl block.
pub(crate) struct PromptFn {
    /// The MCP prompt name: `#[prompt(name = "...")]`, or the method's name.
    pub name: String,
    /// Where the name is written: the literal, or the method's identifier.
    pub name_span: Span,
    pub method: Ident,
}

/// The `#[prompt]` methods of `item`, in source order; a method counts when
/// an attribute's last path segment is `prompt`, rmcp's own test.
pub(crate) fn prompt_fns(item: &ItemImpl) -> Vec<PromptFn> {
    item.items
        .iter()
        .filter_map(|item| match item {
            ImplItem::Fn(function) => Some(function),
            _ => None,
        })
        .filter_map(|function| {
            let attr = function.attrs.iter().find(|attr| is_prompt_attr(attr))?;
            let method = function.sig.ident.clone();
            let (name, name_span) = match explicit_name(attr) {
                Some(lit) => (lit.value(), lit.span()),
                None => (method.to_string(), method.span()),
            };
            Some(PromptFn {
                name,
                name_span,
                method,
            })
        })
        .collect()
}

/// Traces of rmcp's `#[prompt_router]` on the impl block: the attribute
/// below ours, or the router function it appended when above.
pub(crate) fn prompt_router_traces(item: &ItemImpl) -> Vec<TokenStream> {
    router_traces(item, "prompt_router", "prompt", "PromptRouter")
}

/// Removes every `#[prompt]` attribute, for an item rmcp could not expand.
pub(crate) fn strip_prompt_attrs(item: &mut ItemImpl) {
    for item in &mut item.items {
        if let ImplItem::Fn(function) = item {
            function.attrs.retain(|attr| !is_prompt_attr(attr));
        }
    }
}

fn is_prompt_attr(attr: &syn::Attribute) -> bool {
    last_segment_is(attr.path(), "prompt")
}
