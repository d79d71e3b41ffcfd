//! Expand stage: the composition as the registration macro reads it,
//! `includes: include ["group", "group": ["tool"]] exclude ["tool"],`,
//! with the user's literals (and `include` key) carrying their spans.

use proc_macro2::TokenStream;
use quote::quote;

use super::validate::Compose;

pub(crate) fn expand(compose: &Compose) -> TokenStream {
    let Compose {
        key,
        parts,
        exclude,
    } = compose;
    let parts = parts.iter().map(|part| {
        let group = &part.group;
        match &part.only {
            Some((tools, _)) => quote!(#group: [#(#tools),*]),
            None => quote!(#group),
        }
    });
    quote!(includes: #key [#(#parts),*] exclude [#(#exclude),*],)
}
