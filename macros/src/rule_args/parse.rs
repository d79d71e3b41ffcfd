//! Parse stage of the rule keys `#[tool_group]`, `#[prompt_group]` and
//! `#[resource_group]` share: the attribute's tokens into plain data.
//!
//! Only syntax is checked here; meaning (which keys exist, what may repeat)
//! is the validate stage's job, so that all such errors are reported together.

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Token, bracketed};

/// `key = "value"`, `key = ["a", "b"]`, `key(...)`, or a bare `key`.
pub(crate) struct Arg {
    pub key: Ident,
    /// `None` for a bare key such as `always`.
    pub value: Option<Value>,
}

pub(crate) enum Value {
    Str(LitStr),
    List {
        span: Span,
        items: Vec<LitStr>,
    },
    /// Any other expression; the validate stage says what was expected.
    Other(syn::Expr),
    /// `key(...)`: arguments of their own, for a key that takes them
    /// (`#[tool_group(allow_list(...))]`).
    Nested {
        span: Span,
        tokens: TokenStream,
    },
}

impl Parse for Arg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        if input.is_empty() || input.peek(Token![,]) {
            return Ok(Arg { key, value: None });
        }
        if input.peek(syn::token::Paren) {
            let content;
            let parens = syn::parenthesized!(content in input);
            return Ok(Arg {
                key,
                value: Some(Value::Nested {
                    span: parens.span.join(),
                    tokens: content.parse()?,
                }),
            });
        }
        input.parse::<Token![=]>()?;
        let value = if input.peek(syn::token::Bracket) {
            let content;
            let brackets = bracketed!(content in input);
            let items = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
            Value::List {
                span: brackets.span.join(),
                items: items.into_iter().collect(),
            }
        } else if input.peek(LitStr) {
            Value::Str(input.parse()?)
        } else {
            Value::Other(input.parse().map_err(|_| {
                input.error(format!(
                    "expected a string like `{key} = \"kanban-task\"` or a list like `{key} = [\"a\", \"b\"]`"
                ))
            })?)
        };
        Ok(Arg {
            key,
            value: Some(value),
        })
    }
}

/// The comma-separated arguments of a group attribute.
pub(crate) fn args(attr: TokenStream) -> syn::Result<Vec<Arg>> {
    let args = Punctuated::<Arg, Token![,]>::parse_terminated.parse2(attr)?;
    Ok(args.into_iter().collect())
}
