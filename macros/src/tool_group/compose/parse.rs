//! Parse stage: `include(...)` and `exclude = [...]` set apart from the
//! rule keys.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Token, bracketed};

use crate::errors::Errors;
use crate::rule_args::{Arg, Value};

/// `"group"` or `"group": ["tool", ...]`.
pub(crate) struct Part {
    pub group: LitStr,
    /// The listed tools and where the list is written.
    pub only: Option<(Vec<LitStr>, Span)>,
}

impl Parse for Part {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let group = input.parse()?;
        let only = if input.parse::<Option<Token![:]>>()?.is_some() {
            let content;
            let brackets = bracketed!(content in input);
            let tools = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
            Some((tools.into_iter().collect(), brackets.span.join()))
        } else {
            None
        };
        Ok(Part { group, only })
    }
}

/// Every `include` and `exclude` as written, in order.
#[derive(Default)]
pub(crate) struct Written {
    pub include: Vec<(Ident, Vec<Part>)>,
    pub exclude: Vec<(Ident, Vec<LitStr>)>,
}

/// Sets `include` and `exclude` apart from the rule keys; a malformed one
/// is an error here.
pub(crate) fn take(args: Vec<Arg>, errors: &mut Errors) -> (Vec<Arg>, Written) {
    let mut written = Written::default();
    let mut rest = Vec::new();
    for arg in args {
        match (arg.key.to_string().as_str(), arg.value) {
            ("include", Some(Value::Nested { tokens, .. })) => {
                match Punctuated::<Part, Token![,]>::parse_terminated.parse2(tokens) {
                    Ok(parts) => written.include.push((arg.key, parts.into_iter().collect())),
                    Err(error) => errors.push(error),
                }
            }
            ("include", _) => errors.spanned(
                &arg.key,
                "`include` takes groups: write `include(\"group\")` for all of a group's \
                 tools, or `include(\"group\": [\"tool\", ...])` for some",
            ),
            ("exclude", Some(Value::List { items, .. })) => {
                written.exclude.push((arg.key, items));
            }
            ("exclude", _) => errors.spanned(
                &arg.key,
                "`exclude` takes tool names: write `exclude = [\"tool\", ...]`",
            ),
            (_, value) => rest.push(Arg {
                key: arg.key,
                value,
            }),
        }
    }
    (rest, written)
}
