//! `#[prompt_group(...)]`: parse, validate, expand.

mod expand;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::{Errors, item_with_errors};
use crate::impl_block;
use crate::rule_args::{self, Attribute};

const ATTRIBUTE: Attribute = Attribute {
    name: "prompt_group",
    annotations: false,
};

pub(crate) fn prompt_group(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let item_impl = match impl_block::parse(
        item,
        "#[prompt_group] applies to an `impl` block of rmcp #[prompt] methods",
    ) {
        Ok(item_impl) => item_impl,
        Err(tokens) => return tokens,
    };
    let spec = rule_args::spec(attr, &ATTRIBUTE, &mut errors);
    let prompts = parse::prompt_fns(&item_impl);
    let self_path = validate::item(&item_impl, &prompts, &mut errors);
    validate::no_prompt_router(&parse::prompt_router_traces(&item_impl), &mut errors);
    match self_path {
        Some(self_path) if errors.is_empty() => {
            expand::expand(&item_impl, self_path, &spec, &prompts)
        }
        _ if item_impl.trait_.is_some() => {
            // rmcp's #[prompt] cannot expand inside a trait impl; dropping
            // it leaves our error as the only one.
            let mut item_impl = item_impl.clone();
            let imports = parse::strip_prompt_attrs(&mut item_impl);
            let mut tokens = item_with_errors(&item_impl, &errors);
            tokens.extend(imports);
            tokens
        }
        _ => item_with_errors(&item_impl, &errors),
    }
}
