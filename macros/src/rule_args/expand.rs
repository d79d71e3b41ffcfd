//! Expand stage of the rule keys: the group's name and rule as the
//! registration macro reads them.

use proc_macro2::{Delimiter, Group, TokenStream};
use quote::quote;

use super::validate::GroupSpec;

/// `name: [...], title: [...], description: [...], surfaces: [...],
/// capabilities: [...], any_capabilities: [...], providers: [...],` with
/// the user's literals and spans.
pub(crate) fn rule_fields(spec: &GroupSpec) -> TokenStream {
    let GroupSpec {
        name,
        title,
        description,
        surfaces,
        capabilities,
        any_capabilities,
        any_capabilities_span,
        providers,
        require_annotations: _,
    } = spec;
    let (name, title, description) = (name.iter(), title.iter(), description.iter());
    // The list keeps the span of the user's `any_capability` value, which
    // survives `macro_rules!`, so an unsatisfiable set is reported there.
    let mut any_capabilities = Group::new(Delimiter::Bracket, quote!(#(#any_capabilities),*));
    if let Some(span) = any_capabilities_span {
        any_capabilities.set_span(*span);
    }
    quote! {
        name: [#(#name)*],
        title: [#(#title)*],
        description: [#(#description)*],
        surfaces: [#(#surfaces),*],
        capabilities: [#(#capabilities),*],
        any_capabilities: #any_capabilities,
        providers: [#(#providers),*],
    }
}
