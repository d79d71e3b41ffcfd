//! Whole-number arguments of our attributes (`max = 16`), read the same
//! way wherever they appear: `#[tool_group(allow_list(max = N))]` and the
//! vocabulary's `#[runtime_allow_list(max = N)]`.

use proc_macro2::Span;
use syn::Ident;

use crate::errors::Errors;
use crate::rule_args::Value;

/// `key = N` as a `usize`, with where `N` is written (for errors about its
/// value); anything else is an error on what was written.
pub(crate) fn whole_number(
    key: &Ident,
    value: Option<Value>,
    errors: &mut Errors,
) -> Option<(Span, usize)> {
    let message = format!("`{key}` takes a whole number: `{key} = 3`");
    if let Some(Value::Other(syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(int),
        ..
    }))) = &value
    {
        match int.base10_parse::<usize>() {
            Ok(number) => return Some((int.span(), number)),
            Err(_) => {
                errors.spanned(int, message);
                return None;
            }
        }
    }
    match value {
        Some(Value::Str(lit)) => errors.spanned(&lit, message),
        Some(Value::Other(expr)) => errors.spanned(&expr, message),
        Some(Value::List { span, .. } | Value::Nested { span, .. }) => errors.at(span, message),
        None => errors.spanned(key, message),
    }
    None
}
