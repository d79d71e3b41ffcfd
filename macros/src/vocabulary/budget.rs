//! `#[budget(tokens = N)]` on a surface: the most o200k_base tokens a
//! context on that surface may list in `tools/list`. Read here, every
//! misuse an error on what was written.

use proc_macro2::Span;
use syn::Attribute;

use crate::errors::Errors;
use crate::names::closest;
use crate::rule_args::{self, Arg};
use crate::whole_number::whole_number;

pub(crate) const BUDGET: &str = "budget";

/// The one key `#[budget(...)]` takes.
const TOKENS: &str = "tokens";

/// A surface's budget, with where its number is written (the expansion's
/// error without the `tokens` feature points there).
pub(crate) struct Budget {
    pub tokens: usize,
    pub span: Span,
}

/// Reads `#[budget(...)]` on a variant, which must be a surface unless
/// `on_surface` is false; `None` (after an error) when it is misused.
pub(crate) fn read(attr: &Attribute, on_surface: bool, errors: &mut Errors) -> Option<Budget> {
    if !on_surface {
        errors.spanned(
            attr,
            "`#[budget]` belongs on a surface (a variant of the `#[surfaces]` enum): it caps the \
             tokens each context of that surface lists",
        );
        return None;
    }
    let args = rule_args::list_args(
        attr,
        "`#[budget]` takes the most o200k_base tokens a context on this surface may list: \
             write `#[budget(tokens = 8000)]`",
        errors,
    )?;
    let before = errors.len();
    let mut tokens = None;
    let mut written = false;
    for Arg { key, value } in args {
        if key != TOKENS {
            let hint = closest(&key.to_string(), [TOKENS])
                .map(|close| format!("did you mean `{close}`? "))
                .unwrap_or_default();
            errors.spanned(
                &key,
                format!(
                    "unknown key `{key}` in `#[budget(...)]`; {hint}it takes `tokens = N`, the \
                     most o200k_base tokens a context on this surface may list"
                ),
            );
        } else if written {
            errors.spanned(&key, "`tokens` is given twice in `#[budget(...)]`");
        } else {
            written = true;
            tokens = whole_number(&key, value, errors);
        }
    }
    match tokens {
        Some((at, 0)) => errors.at(
            at,
            "`tokens = 0` would let no context on this surface list a tool; give the most \
             o200k_base tokens its `tools/list` may take, or remove the budget",
        ),
        None if errors.len() == before => errors.spanned(
            attr,
            "`#[budget(...)]` needs `tokens = N`: the most o200k_base tokens a context on this \
             surface may list, e.g. `#[budget(tokens = 8000)]`",
        ),
        _ => {}
    }
    tokens
        .map(|(span, tokens)| Budget { tokens, span })
        .filter(|_| errors.len() == before)
}
