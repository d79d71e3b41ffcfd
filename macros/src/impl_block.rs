//! Checks every group attribute makes of the impl block it is on: an
//! inherent, non-generic impl of a named type, with at least one marked
//! method and no item key given twice. The words of each error come from the
//! attribute ([`Marker`]), so each names what the user wrote.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Ident, Item, ItemImpl, Type, TypePath};

use crate::errors::{Errors, item_with_errors};

/// What a group attribute collects and how its errors say it.
pub(crate) struct Marker {
    /// The attribute: `tool_group`.
    pub attr: &'static str,
    /// The method marker: `#[tool]`, as errors write it.
    pub marker: &'static str,
    /// One item, in words: `tool`.
    pub item: &'static str,
    /// Why a trait impl cannot hold the group.
    pub trait_reason: &'static str,
    /// How to mark a method: `mark its handlers with rmcp's #[tool]`.
    pub how_to_mark: &'static str,
    /// What an item's key is called: `tool names`.
    pub keys: &'static str,
}

/// One marked method: its key (a name or URI), where the key is written, and
/// the method.
pub(crate) struct Keyed<'a> {
    pub key: &'a str,
    pub span: Span,
    pub method: &'a Ident,
}

/// Checks the impl block: inherent, concrete, with at least one of its
/// `marked` methods and uniquely keyed items (those whose marker is valid).
/// Returns the self type's path when the block is usable.
pub(crate) fn check<'a>(
    item: &'a ItemImpl,
    marker: &Marker,
    marked: usize,
    items: &[Keyed<'_>],
    errors: &mut Errors,
) -> Option<&'a TypePath> {
    let attr = marker.attr;
    if let Some((_, path, _)) = &item.trait_ {
        errors.spanned(
            path,
            format!(
                "#[{attr}] goes on an inherent impl (`impl Server {{ ... }}`), not a trait \
                 impl: {}",
                marker.trait_reason
            ),
        );
    }
    if !item.generics.params.is_empty() {
        errors.spanned(
            &item.generics,
            format!(
                "#[{attr}] cannot be generic: each group is one static registry entry \
                 for one concrete server type"
            ),
        );
    }
    let self_path = match &*item.self_ty {
        Type::Path(path) if path.qself.is_none() => Some(path),
        other => {
            errors.spanned(
                other,
                format!("#[{attr}] needs the server type by name, like `impl MyServer {{ ... }}`"),
            );
            None
        }
    };
    if marked == 0 {
        errors.spanned(
            &item.self_ty,
            format!(
                "this impl block has no {} method, so the group would expose no {}s; {}",
                marker.marker, marker.item, marker.how_to_mark
            ),
        );
    }
    for (index, keyed) in items.iter().enumerate() {
        if let Some(first) = items[..index].iter().find(|k| k.key == keyed.key) {
            errors.at(
                keyed.span,
                format!(
                    "{} `{}` is defined twice in this group (first by `fn {}`); {} must be \
                     unique",
                    marker.item, keyed.key, first.method, marker.keys
                ),
            );
        }
    }
    self_path
}

/// `item` as the impl block a group attribute is on. Anything else comes
/// back as an error: the item with one error, `applies_to` (what the
/// attribute applies to) and what the item is instead, or, when it is not
/// an item at all, the item alone for rustc to report.
pub(crate) fn parse(item: TokenStream, applies_to: &str) -> Result<ItemImpl, TokenStream> {
    match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Impl(item_impl)) => Ok(item_impl),
        Ok(other) => {
            let (what, head) = describe(&other);
            let mut errors = Errors::default();
            errors.spanned(head, format!("{applies_to}, not to {what}"));
            Err(item_with_errors(item, &errors))
        }
        Err(_) => Err(item),
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
