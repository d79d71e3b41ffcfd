//! `#[tool_group(...)]`: parse, validate, expand.

mod allow_list;
mod compose;
pub(crate) mod expand;
pub(crate) mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::{Errors, item_with_errors};
use crate::impl_block;
use crate::rule_args::{self, Attribute};
use compose::Compose;

const ATTRIBUTE: Attribute = Attribute {
    name: "tool_group",
    annotations: true,
};

pub(crate) fn tool_group(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let item_impl = match impl_block::parse(
        item,
        "#[tool_group] applies to an `impl` block of rmcp #[tool] methods",
    ) {
        Ok(item_impl) => item_impl,
        Err(tokens) => return tokens,
    };
    let tools = parse::tool_fns(&item_impl);
    let own_tools: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    let (spec, allow, compose) = match rule_args::args(attr) {
        Ok(args) => {
            let (args, allow) = allow_list::take(args, &mut errors);
            let (rule, compose) = compose::take(args, &mut errors);
            let spec = rule_args::spec_of(rule, &ATTRIBUTE, &mut errors);
            let compose = compose::validate(compose, spec.name.as_ref(), &own_tools, &mut errors);
            // An allow list may name the group's own tools and those it
            // lists in `include`; whole included groups are not known here.
            let mut named = own_tools.clone();
            let listed: Vec<String> = compose
                .iter()
                .flat_map(Compose::listed)
                .map(syn::LitStr::value)
                .collect();
            named.extend(listed.iter().map(String::as_str));
            let allow = allow_list::validate(allow, spec.name.as_ref(), &named, &mut errors);
            (spec, allow, compose)
        }
        Err(error) => {
            errors.push(error);
            (rule_args::GroupSpec::default(), None, None)
        }
    };
    let self_path = validate::item(&item_impl, &tools, compose.is_some(), &mut errors);
    validate::no_tool_router(&parse::tool_router_traces(&item_impl), &mut errors);
    match self_path {
        Some(self_path) if errors.is_empty() => {
            let mut expanded =
                expand::expand(&item_impl, self_path, &spec, &tools, compose.as_ref());
            if let Some(allow) = &allow {
                expanded.extend(allow_list::expand(&item_impl.self_ty, allow));
            }
            expanded
        }
        _ if item_impl.trait_.is_some() => {
            // rmcp's #[tool] cannot expand inside a trait impl; dropping it
            // leaves our error as the only one.
            let mut item_impl = item_impl.clone();
            let imports = parse::strip_tool_attrs(&mut item_impl);
            let mut tokens = item_with_errors(&item_impl, &errors);
            tokens.extend(imports);
            tokens
        }
        Some(self_path) => {
            // Other groups may include this one by name: its shape, with
            // its own tools, keeps their `include` from failing too.
            let mut tokens = item_with_errors(&item_impl, &errors);
            if let Some(name) = &spec.name {
                tokens.extend(expand::fallback_shape(self_path, name, &tools));
            }
            tokens
        }
        None => item_with_errors(&item_impl, &errors),
    }
}
