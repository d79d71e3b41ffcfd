//! `#[resource_group(...)]`: parse, validate, expand.
//!
//! The group's methods carry a marker, `#[resource(uri = "..." |
//! uri_template = "...", name = "...", description = "...", mime_type =
//! "...")]`, which this macro reads and removes (it is no attribute of its
//! own), and serve `resources/read` for that URI.

mod expand;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::{Errors, item_with_errors};
use crate::impl_block;
use crate::rule_args::{self, Attribute};

const ATTRIBUTE: Attribute = Attribute {
    name: "resource_group",
    annotations: false,
};

pub(crate) fn resource_group(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let mut item_impl = match impl_block::parse(
        item,
        "#[resource_group] applies to an `impl` block of #[resource(...)] methods",
    ) {
        Ok(item_impl) => item_impl,
        Err(tokens) => return tokens,
    };
    let spec = rule_args::spec(attr, &ATTRIBUTE, &mut errors);
    let markers = parse::resource_fns(&item_impl);
    let marked = markers.len();
    let resources = validate::resources(markers, &mut errors);
    let self_path = validate::item(&item_impl, marked, &resources, &mut errors).cloned();
    // The markers are ours alone: the item keeps none of them.
    parse::strip_resource_attrs(&mut item_impl);
    match self_path {
        Some(self_path) if errors.is_empty() => {
            expand::expand(&item_impl, &self_path, &spec, &resources)
        }
        _ => item_with_errors(&item_impl, &errors),
    }
}
