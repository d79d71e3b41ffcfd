//! Parse stage: attribute tokens and the annotated item into plain data.
//!
//! Only syntax is checked here; meaning (which keys exist, what may repeat)
//! is the validate stage's job, so that all such errors are reported together.

use proc_macro2::{Span, TokenStream};
use quote::quote;
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

/// Traces of rmcp's `#[tool_router]` on the impl block, as the tokens an
/// error should span.
///
/// Which trace is left depends on the attribute order. Written below
/// `#[tool_group]`, `#[tool_router]` has not expanded yet and is still among
/// the item's attributes. Written above, it expanded first: it keeps
/// `#[tool_group]` and the `#[tool]` methods and appends its router function,
/// `fn tool_router() -> rmcp::handler::server::router::tool::ToolRouter<Self>`
/// (or the name given by `router = ...`), whose tokens carry the span of the
/// `#[tool_router]` attribute.
pub(crate) fn tool_router_traces(item: &ItemImpl) -> Vec<TokenStream> {
    let attributes = item
        .attrs
        .iter()
        .filter(|attr| last_segment_is(attr.path(), "tool_router"))
        .map(|attr| quote!(#attr));
    let router_fns = item.items.iter().filter_map(|item| match item {
        ImplItem::Fn(function) if is_rmcp_router_fn(function) => {
            let fn_token = function.sig.fn_token;
            Some(quote!(#fn_token))
        }
        _ => None,
    });
    attributes.chain(router_fns).collect()
}

/// Whether `function` has the signature rmcp's `#[tool_router]` generates:
/// no receiver or parameters, returning rmcp's `ToolRouter<Self>` by the
/// path rmcp writes.
fn is_rmcp_router_fn(function: &syn::ImplItemFn) -> bool {
    const ROUTER_PATH: [&str; 6] = ["rmcp", "handler", "server", "router", "tool", "ToolRouter"];
    if !function.sig.inputs.is_empty() {
        return false;
    }
    let syn::ReturnType::Type(_, ty) = &function.sig.output else {
        return false;
    };
    let syn::Type::Path(path) = &**ty else {
        return false;
    };
    let segments = &path.path.segments;
    let is_router_path = path.qself.is_none()
        && path.path.leading_colon.is_none()
        && segments.len() == ROUTER_PATH.len()
        && segments
            .iter()
            .zip(ROUTER_PATH)
            .all(|(s, name)| s.ident == name);
    let of_self = segments.last().is_some_and(|last| match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => {
            matches!(
                args.args.first(),
                Some(syn::GenericArgument::Type(syn::Type::Path(ty))) if ty.path.is_ident("Self")
            ) && args.args.len() == 1
        }
        _ => false,
    });
    is_router_path && of_self
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
    last_segment_is(attr.path(), "tool")
}

/// rmcp's own test for its attributes, so `#[rmcp::tool]` counts as well.
fn last_segment_is(path: &syn::Path, name: &str) -> bool {
    path.segments
        .last()
        .is_some_and(|segment| segment.ident == name)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn traces(item: TokenStream) -> usize {
        tool_router_traces(&syn::parse2(item).expect("an impl block")).len()
    }

    #[test]
    fn tool_router_not_yet_expanded_is_found_by_its_attribute() {
        assert_eq!(
            traces(quote!(
                #[tool_router]
                impl S {}
            )),
            1
        );
        assert_eq!(
            traces(quote!(
                #[rmcp::tool_router(router = r)]
                impl S {}
            )),
            1
        );
    }

    #[test]
    fn tool_router_already_expanded_is_found_by_its_router_fn() {
        // What rmcp 3.11's `#[tool_router(router = ticket_router)]` appends.
        let expanded = quote! {
            impl S {
                #[tool]
                async fn list(&self) {}
                fn ticket_router() -> rmcp::handler::server::router::tool::ToolRouter<Self> {
                    rmcp::handler::server::router::tool::ToolRouter::<Self>::new()
                        .with_route((Self::list_tool_attr(), Self::list))
                }
            }
        };
        assert_eq!(traces(expanded), 1);
    }

    #[test]
    fn other_functions_are_not_routers() {
        let item = quote! {
            #[derive_nothing]
            impl S {
                fn tool_router(&self) -> rmcp::handler::server::router::tool::ToolRouter<Self> { todo!() }
                fn other() -> rmcp::handler::server::router::tool::ToolRouter<Other> { todo!() }
                fn helper() -> ToolRouter<Self> { todo!() }
                fn plain() {}
            }
        };
        assert_eq!(traces(item), 0);
    }
}
