//! The methods of an impl block that carry a marker attribute (`#[tool]`,
//! `#[prompt]`, `#[resource(...)]`): finding them, naming them and removing
//! the markers, the same way for every group attribute.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, ImplItem, ImplItemFn, ItemImpl, LitStr, Token};

/// Each method of `item` marked `#[marker]`, with its marker, in source
/// order.
pub(crate) fn marked_fns<'a>(
    item: &'a ItemImpl,
    marker: &'a str,
) -> impl Iterator<Item = (&'a ImplItemFn, &'a Attribute)> + 'a {
    item.items.iter().filter_map(move |item| match item {
        ImplItem::Fn(function) => {
            let attr = function.attrs.iter().find(|attr| is(attr, marker))?;
            Some((function, attr))
        }
        _ => None,
    })
}

/// Removes every `#[marker]` attribute from the methods of `item`.
pub(crate) fn strip(item: &mut ItemImpl, marker: &str) {
    for item in &mut item.items {
        if let ImplItem::Fn(function) = item {
            function.attrs.retain(|attr| !is(attr, marker));
        }
    }
}

/// Removes every `#[marker]` attribute from the methods of `item`, as
/// [`strip`] does, for an impl block the marker cannot expand in (a trait
/// impl); returns a use of each name the marker was written with
/// (`#[tool]` after `use rmcp::tool`), so that the user's import of it is
/// not reported unused beside our error.
pub(crate) fn strip_keeping_imports(item: &mut ItemImpl, marker: &str) -> TokenStream {
    let mut names: Vec<Ident> = Vec::new();
    for item in &mut item.items {
        if let ImplItem::Fn(function) = item {
            for attr in function.attrs.iter().filter(|attr| is(attr, marker)) {
                if let Some(name) = attr.path().get_ident()
                    && !names.contains(name)
                {
                    names.push(name.clone());
                }
            }
        }
    }
    strip(item, marker);
    if names.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const _: () = {
            #(
                #[allow(unused_imports)]
                use #names as _;
            )*
        };
    }
}

/// The item's name and where it is written: the marker's `name = "..."`,
/// or the method's own name.
pub(crate) fn name_of(function: &ImplItemFn, attr: &Attribute) -> (String, Span) {
    match explicit_name(attr) {
        Some(lit) => (lit.value(), lit.span()),
        None => (function.sig.ident.to_string(), function.sig.ident.span()),
    }
}

fn is(attr: &Attribute, marker: &str) -> bool {
    last_segment_is(attr.path(), marker)
}

/// rmcp's own test for its attributes, so `#[rmcp::tool]` counts as well.
pub(crate) fn last_segment_is(path: &syn::Path, name: &str) -> bool {
    path.segments
        .last()
        .is_some_and(|segment| segment.ident == name)
}

/// The `name = "..."` of a `#[tool(...)]` (or `#[prompt(...)]`); anything
/// unparsable is left for rmcp's own macro to report.
pub(crate) fn explicit_name(attr: &Attribute) -> Option<LitStr> {
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
