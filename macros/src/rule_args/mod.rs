//! The rule keys every group attribute takes (`name`, `surface`,
//! `capability`, `provider`, `always`, ...): parsed and validated once, for
//! `#[tool_group]`, `#[prompt_group]` and `#[resource_group]` alike, each
//! error naming the attribute the user wrote.

mod expand;
mod parse;
mod validate;

use proc_macro2::TokenStream;

pub(crate) use expand::rule_fields;
pub(crate) use parse::{Arg, Value, args};
pub(crate) use validate::{Attribute, GroupSpec};

use crate::errors::Errors;

/// The group's name and rule from the attribute's tokens, every misuse
/// recorded in `errors`.
pub(crate) fn spec(attr: TokenStream, attribute: &Attribute, errors: &mut Errors) -> GroupSpec {
    match parse::args(attr) {
        Ok(args) => validate::attribute(args, attribute, errors),
        Err(error) => {
            errors.push(error);
            GroupSpec::default()
        }
    }
}

/// [`spec`] from arguments already parsed, for an attribute that takes
/// keys of its own besides the rule's and set them apart first.
pub(crate) fn spec_of(args: Vec<Arg>, attribute: &Attribute, errors: &mut Errors) -> GroupSpec {
    validate::attribute(args, attribute, errors)
}

/// The `key = value` arguments of a list attribute (`#[name(...)]`), or
/// `None` after an error: `usage` (how to write it) on an attribute that is
/// not a list, or what does not parse.
pub(crate) fn list_args(
    attr: &syn::Attribute,
    usage: &str,
    errors: &mut Errors,
) -> Option<Vec<Arg>> {
    let syn::Meta::List(list) = &attr.meta else {
        errors.spanned(attr, usage);
        return None;
    };
    match args(list.tokens.clone()) {
        Ok(args) => Some(args),
        Err(error) => {
            errors.push(error);
            None
        }
    }
}
