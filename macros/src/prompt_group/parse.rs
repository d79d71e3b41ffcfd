//! Parse stage: the `#[prompt]` methods of the impl block.

use proc_macro2::{Span, TokenStream};
use syn::{Ident, ItemImpl};

use crate::marked;
use crate::tool_group::parse::router_traces;

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
    marked::marked_fns(item, "prompt")
        .map(|(function, attr)| {
            let (name, name_span) = marked::name_of(function, attr);
            PromptFn {
                name,
                name_span,
                method: function.sig.ident.clone(),
            }
        })
        .collect()
}

/// Traces of rmcp's `#[prompt_router]` on the impl block: the attribute
/// below ours, or the router function it appended when above.
pub(crate) fn prompt_router_traces(item: &ItemImpl) -> Vec<TokenStream> {
    router_traces(item, "prompt_router", "prompt", "PromptRouter")
}

/// Removes every `#[prompt]` attribute, for an item rmcp could not expand.
pub(crate) fn strip_prompt_attrs(item: &mut ItemImpl) -> proc_macro2::TokenStream {
    marked::strip_keeping_imports(item, "prompt")
}
