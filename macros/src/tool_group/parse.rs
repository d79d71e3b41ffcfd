//! Parse stage: attribute tokens and the annotated item into plain data.
//!
//! Only syntax is checked here; meaning (which keys exist, what may repeat)
//! is the validate stage's job, so that all such errors are reported together.

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, ImplItem, ItemImpl, LitStr, Token, bracketed};

/// `key = "value"`, `key = ["a", "b"]`, or a bare `key`.
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
}

impl Parse for Arg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        if input.is_empty() || input.peek(Token![,]) {
            return Ok(Arg { key, value: None });
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

/// The comma-separated arguments of `#[tool_group(...)]`.
pub(crate) fn args(attr: TokenStream) -> syn::Result<Vec<Arg>> {
    let args = Punctuated::<Arg, Token![,]>::parse_terminated.parse2(attr)?;
    Ok(args.into_iter().collect())
}

/// One `#[tool]` method of the impl block.
pub(crate) struct ToolFn {
    /// The MCP tool name: `#[tool(name = "...")]`, or the method's name.
    pub name: String,
    /// Where the name is written: the literal, or the method's identifier.
    pub name_span: Span,
    pub method: Ident,
}

/// The `#[tool]` methods of `item`, in source order.
///
/// A method counts as a tool when an attribute's last path segment is `tool`,
/// the same test rmcp's `#[tool_router]` applies.
pub(crate) fn tool_fns(item: &ItemImpl) -> Vec<ToolFn> {
    item.items
        .iter()
        .filter_map(|item| match item {
            ImplItem::Fn(function) => Some(function),
            _ => None,
        })
        .filter_map(|function| {
            let attr = function.attrs.iter().find(|attr| is_tool_attr(attr))?;
            let method = function.sig.ident.clone();
            let explicit = explicit_tool_name(attr);
            Some(match explicit {
                Some(lit) => ToolFn {
                    name: lit.value(),
                    name_span: lit.span(),
                    method,
                },
                None => ToolFn {
                    name: method.to_string(),
                    name_span: method.span(),
                    method,
                },
            })
        })
        .collect()
}

/// Removes every `#[tool]` attribute, for an item rmcp could not expand.
pub(crate) fn strip_tool_attrs(item: &mut ItemImpl) {
    for item in &mut item.items {
        if let ImplItem::Fn(function) = item {
            function.attrs.retain(|attr| !is_tool_attr(attr));
        }
    }
}

fn is_tool_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "tool")
}

/// The `name = "..."` of a `#[tool(...)]`; anything unparsable is left for
/// rmcp's own macro to report.
fn explicit_tool_name(attr: &syn::Attribute) -> Option<LitStr> {
    let syn::Meta::List(list) = &attr.meta else {
        return None;
    };
    let metas = list
        .parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_terminated)
        .ok()?;
    metas.into_iter().find_map(|meta| match meta {
        syn::Meta::NameValue(pair) if pair.path.is_ident("name") => match pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) => Some(lit),
            _ => None,
        },
        _ => None,
    })
}
