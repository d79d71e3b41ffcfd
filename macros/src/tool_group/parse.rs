//! Parse stage: attribute tokens and the annotated item into plain data.
//!
//! Only syntax is checked here; meaning (which keys exist, what may repeat)
//! is the validate stage's job, so that all such errors are reported together.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Ident, ImplItem, ItemImpl, Token};

use crate::marked::{self, last_segment_is};

/// One `#[tool]` method of the impl block.
pub(crate) struct ToolFn {
    /// The MCP tool name: `#[tool(name = "...")]`, or the method's name.
    pub name: String,
    /// Where the name is written: the literal, or the method's identifier.
    pub name_span: Span,
    pub method: Ident,
    /// The behaviour hints its `#[tool]` states; `None` when rmcp's own
    /// macro will reject the attribute, so that its error stands alone.
    pub hints: Option<Hints>,
}

/// The two behaviour hints of a `#[tool(annotations(...))]` that the
/// annotation requirement is about, as written.
pub(crate) struct Hints {
    /// `read_only_hint`, when stated.
    pub read_only: Option<bool>,
    /// `destructive_hint`, when stated.
    pub destructive: Option<bool>,
    /// Where an error about a missing hint goes: `annotations(...)` when it
    /// is written, else the whole `#[tool]` attribute.
    pub at: TokenStream,
}

/// The `#[tool]` methods of `item`, in source order.
///
/// A method counts as a tool when an attribute's last path segment is `tool`,
/// the same test rmcp's `#[tool_router]` applies.
pub(crate) fn tool_fns(item: &ItemImpl) -> Vec<ToolFn> {
    marked::marked_fns(item, "tool")
        .map(|(function, attr)| {
            let (name, name_span) = marked::name_of(function, attr);
            ToolFn {
                name,
                name_span,
                method: function.sig.ident.clone(),
                hints: hints(attr),
            }
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
    router_traces(item, "tool_router", "tool", "ToolRouter")
}

/// Traces of an rmcp router attribute (`tool_router`, `prompt_router`) on
/// the impl block: the attribute, or the router function it appended,
/// returning `rmcp::handler::server::router::<module>::<router>`.
pub(crate) fn router_traces(
    item: &ItemImpl,
    attribute: &str,
    module: &str,
    router: &str,
) -> Vec<TokenStream> {
    let attributes = item
        .attrs
        .iter()
        .filter(|attr| last_segment_is(attr.path(), attribute))
        .map(|attr| quote!(#attr));
    let router_fns = item.items.iter().filter_map(|item| match item {
        ImplItem::Fn(function) if is_rmcp_router_fn(function, module, router) => {
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
fn is_rmcp_router_fn(function: &syn::ImplItemFn, module: &str, router: &str) -> bool {
    let router_path = ["rmcp", "handler", "server", "router", module, router];
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
        && segments.len() == router_path.len()
        && segments
            .iter()
            .zip(router_path)
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
pub(crate) fn strip_tool_attrs(item: &mut ItemImpl) -> proc_macro2::TokenStream {
    marked::strip_keeping_imports(item, "tool")
}

/// The hints a `#[tool]` attribute states, read the way rmcp's macro reads
/// them: `annotations(read_only_hint = true, destructive_hint = false, ...)`,
/// where a bare `read_only_hint` means `true` and a string `"true"` is
/// accepted too. `None` for any form rmcp rejects (an unparsable attribute,
/// `annotations` not written as a list, a hint given twice or with another
/// value): rmcp's error explains it, and one of ours beside it would not help.
fn hints(attr: &syn::Attribute) -> Option<Hints> {
    let list = match &attr.meta {
        syn::Meta::Path(_) => {
            return Some(Hints {
                read_only: None,
                destructive: None,
                at: quote!(#attr),
            });
        }
        syn::Meta::List(list) => list,
        syn::Meta::NameValue(_) => return None,
    };
    let metas = list
        .parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_terminated)
        .ok()?;
    let mut annotations = None;
    for meta in metas {
        if meta.path().is_ident("annotations") {
            match meta {
                syn::Meta::List(list) if annotations.is_none() => annotations = Some(list),
                _ => return None,
            }
        }
    }
    let Some(annotations) = annotations else {
        return Some(Hints {
            read_only: None,
            destructive: None,
            at: quote!(#attr),
        });
    };
    let metas = annotations
        .parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_terminated)
        .ok()?;
    let (mut read_only, mut destructive) = (None, None);
    for meta in metas {
        let slot = if meta.path().is_ident("read_only_hint") {
            &mut read_only
        } else if meta.path().is_ident("destructive_hint") {
            &mut destructive
        } else {
            continue;
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(bool_value(&meta)?);
    }
    Some(Hints {
        read_only,
        destructive,
        at: quote!(#annotations),
    })
}

/// A hint's value as rmcp (darling) reads a `bool`: a bare word is `true`,
/// else a `bool` literal or a string holding one.
fn bool_value(meta: &syn::Meta) -> Option<bool> {
    let syn::Meta::NameValue(pair) = meta else {
        return matches!(meta, syn::Meta::Path(_)).then_some(true);
    };
    let mut value = &pair.value;
    // `macro_rules!` may wrap a passed expression in an invisible group.
    while let syn::Expr::Group(group) = value {
        value = &group.expr;
    }
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(lit),
            ..
        }) => Some(lit.value),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => lit.value().parse().ok(),
        _ => None,
    }
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

    fn hints_of(attr: TokenStream) -> Option<(Option<bool>, Option<bool>, String)> {
        let item: ItemImpl = syn::parse2(quote!(impl S { #attr fn f(&self) {} })).expect("an impl");
        let tool = tool_fns(&item).pop().expect("one tool");
        tool.hints
            .map(|hints| (hints.read_only, hints.destructive, hints.at.to_string()))
    }

    #[test]
    fn hints_are_read_as_rmcp_reads_them() {
        let stated =
            |attr| hints_of(attr).map(|(read_only, destructive, _)| (read_only, destructive));
        assert_eq!(stated(quote!(#[tool])), Some((None, None)));
        assert_eq!(
            stated(quote!(#[tool(description = "d")])),
            Some((None, None))
        );
        assert_eq!(
            stated(quote!(#[tool(annotations(title = "t", read_only_hint = true))])),
            Some((Some(true), None))
        );
        assert_eq!(
            stated(quote!(#[rmcp::tool(annotations(read_only_hint, destructive_hint = "false"))])),
            Some((Some(true), Some(false)))
        );
        assert_eq!(
            stated(quote!(#[tool(annotations(read_only_hint = false, destructive_hint = true))])),
            Some((Some(false), Some(true)))
        );
    }

    #[test]
    fn forms_rmcp_rejects_are_left_to_rmcp() {
        for attr in [
            quote!(#[tool = "x"]),
            quote!(#[tool(annotations)]),
            quote!(#[tool(annotations = "x")]),
            quote!(#[tool(annotations(read_only_hint = 1))]),
            quote!(#[tool(annotations(read_only_hint = "yes"))]),
            quote!(#[tool(annotations(read_only_hint = true, read_only_hint = false))]),
            quote!(#[tool(annotations(), annotations())]),
            quote!(#[tool(description = )]),
        ] {
            assert_eq!(hints_of(attr.clone()), None, "{attr}");
        }
    }

    #[test]
    fn errors_about_hints_point_at_annotations_when_written() {
        let at = |attr| hints_of(attr).expect("hints").2;
        assert_eq!(
            at(quote!(#[tool(description = "d")])),
            quote!(#[tool(description = "d")]).to_string()
        );
        assert_eq!(
            at(quote!(#[tool(description = "d", annotations(title = "t"))])),
            quote!(annotations(title = "t")).to_string()
        );
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
