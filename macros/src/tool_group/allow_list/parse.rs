//! Parse stage: the `allow_list(...)` argument of the attribute, set apart
//! from the rule keys, and its inner keys as plain data.

use proc_macro2::Span;
use syn::Ident;

use crate::errors::Errors;
use crate::rule_args::{self, Arg, Value};

/// The key, as the user writes it.
pub(crate) const KEY: &str = "allow_list";

/// One `allow_list` argument as written.
pub(crate) struct Written {
    /// The `allow_list` key, where errors about the whole list go.
    pub key: Ident,
    /// The inner arguments; `None` when they are not written as
    /// `allow_list(...)` (an error is already recorded).
    pub args: Option<Vec<Arg>>,
    /// Where `(...)` is written.
    pub span: Span,
}

/// Sets the `allow_list` arguments apart from the rest, which are the
/// rule's; a malformed one is an error here, its inner keys the validate
/// stage's.
pub(crate) fn take(args: Vec<Arg>, errors: &mut Errors) -> (Vec<Arg>, Vec<Written>) {
    let (lists, rest): (Vec<Arg>, Vec<Arg>) = args.into_iter().partition(|arg| arg.key == KEY);
    let written = lists
        .into_iter()
        .map(|Arg { key, value }| match value {
            Some(Value::Nested { span, tokens }) => match rule_args::args(tokens) {
                Ok(args) => Written {
                    key,
                    args: Some(args),
                    span,
                },
                Err(error) => {
                    errors.push(error);
                    Written {
                        key,
                        args: None,
                        span,
                    }
                }
            },
            _ => {
                errors.spanned(
                    &key,
                    "`allow_list` takes arguments: write \
                     `allow_list(default = [\"tool\", ...])`, optionally with \
                     `universe = [...]` and `max = N`",
                );
                let span = key.span();
                Written {
                    key,
                    args: None,
                    span,
                }
            }
        })
        .collect();
    (rest, written)
}
