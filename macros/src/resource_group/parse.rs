//! Parse stage: the `#[resource(...)]` markers of the impl block.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, ItemImpl};

use crate::marked;
use crate::rule_args::{Arg, args};

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
    marked::marked_fns(item, "resource")
        .map(|(function, attr)| {
            let args = match &attr.meta {
                syn::Meta::List(list) => args(list.tokens.clone()),
                _ => Ok(Vec::new()),
            };
            ResourceFn {
                method: function.sig.ident.clone(),
                marker: quote!(#attr),
                args,
            }
        })
        .collect()
}

/// Removes every `#[resource]` marker: no such attribute exists for rustc.
pub(crate) fn strip_resource_attrs(item: &mut ItemImpl) {
    marked::strip(item, "resource");
}
