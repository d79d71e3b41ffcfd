//! `#[tool_group(...)]`: parse, validate, expand.

mod allow_list;
pub(crate) mod expand;
pub(crate) mod parse;
mod validate;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::Item;

use crate::errors::{Errors, item_with_errors};
use crate::rule_args::{self, Attribute};

const ATTRIBUTE: Attribute = Attribute {
    name: "tool_group",
    annotations: true,
};

pub(crate) fn tool_group(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let item_impl = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Impl(item_impl)) => item_impl,
        Ok(other) => {
            let (what, head) = describe(&other);
            errors.spanned(
                head,
                format!(
                    "#[tool_group] applies to an `impl` block of rmcp #[tool] methods, not to {what}"
                ),
            );
            return item_with_errors(item, &errors);
        }
        // Not an item at all: rustc reports the syntax error itself.
        Err(_) => return item,
    };
    let tools = parse::tool_fns(&item_impl);
    let (spec, allow) = match rule_args::args(attr) {
        Ok(args) => {
            let (rule, allow) = allow_list::take(args, &mut errors);
            let spec = rule_args::spec_of(rule, &ATTRIBUTE, &mut errors);
            let allow = allow_list::validate(allow, spec.name.as_ref(), &tools, &mut errors);
            (spec, allow)
        }
        Err(error) => {
            errors.push(error);
            (rule_args::GroupSpec::default(), None)
        }
    };
    let self_path = validate::item(&item_impl, &tools, &mut errors);
    validate::no_tool_router(&parse::tool_router_traces(&item_impl), &mut errors);
    match self_path {
        Some(self_path) if errors.is_empty() => {
            let mut expanded = expand::expand(&item_impl, self_path, &spec, &tools);
            if let Some(allow) = &allow {
                expanded.extend(allow_list::expand(&item_impl.self_ty, allow));
            }
            expanded
        }
        _ if item_impl.trait_.is_some() => {
            // rmcp's #[tool] cannot expand inside a trait impl; dropping it
            // leaves our error as the only one.
            let mut item_impl = item_impl.clone();
            parse::strip_tool_attrs(&mut item_impl);
            item_with_errors(&item_impl, &errors)
        }
        _ => item_with_errors(&item_impl, &errors),
    }
}

/// What the item is, and the tokens that best name it for an error span.
pub(crate) fn describe(item: &Item) -> (&'static str, TokenStream) {
    match item {
        Item::Struct(s) => ("a struct", spanning(&s.struct_token, &s.ident)),
        Item::Enum(e) => ("an enum", spanning(&e.enum_token, &e.ident)),
        Item::Fn(f) => ("a function", spanning(&f.sig.fn_token, &f.sig.ident)),
        Item::Trait(t) => ("a trait", spanning(&t.trait_token, &t.ident)),
        Item::Mod(m) => ("a module", spanning(&m.mod_token, &m.ident)),
        Item::Union(u) => ("a union", spanning(&u.union_token, &u.ident)),
        other => ("this item", other.to_token_stream()),
    }
}

fn spanning(keyword: &impl ToTokens, ident: &syn::Ident) -> TokenStream {
    quote!(#keyword #ident)
}
