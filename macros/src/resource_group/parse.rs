//! Parse stage: the `#[resource(...)]` markers of the impl block.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, ImplItem, ItemImpl};

use crate::rule_args::{Arg, args};
use crate::tool_group::parse::last_segment_is;

/// One method marked `#[resource(...)]`.
pub(crate) struct ResourceFn {
    pub method: Ident,
    /// The whole marker, for errors about it.
    pub marker: TokenStream,
    /// Its `key = "value"` arguments, or why they do not parse.
    pub args: syn::Result<Vec<Arg>>,
}

/// The marked methods of `item`, in source order.
pub(crate) fn resource_fns(item: &ItemImpl) -> Vec<ResourceFn> {
    item.items
        .iter()
        .filter_map(|item| match item {
            ImplItem::Fn(function) => Some(function),
            _ => None,
        })
        .filter_map(|function| {
            let attr = function.attrs.iter().find(|attr| is_resource_attr(attr))?;
            let args = match &attr.meta {
                syn::Meta::List(list) => args(list.tokens.clone()),
                _ => Ok(Vec::new()),
            };
            Some(ResourceFn {
                method: function.sig.ident.clone(),
                marker: quote!(#attr),
                args,
            })
        })
        .collect()
}

/// Removes every `#[resource]` marker: no such attribute exists for rustc.
pub(crate) fn strip_resource_attrs(item: &mut ItemImpl) {
    for item in &mut item.items {
        if let ImplItem::Fn(function) = item {
            function.attrs.retain(|attr| !is_resource_attr(attr));
        }
    }
}

fn is_resource_attr(attr: &syn::Attribute) -> bool {
    last_segment_is(attr.path(), "resource")
}
