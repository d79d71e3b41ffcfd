//! Validate stage of `vocabulary!`: three role-marked enums of unit
//! variants, unique kebab-case wire names, and exclusivity between known
//! capabilities. The `server` line's attributes are `server_line.rs`'s.

use syn::{Attribute, Fields, Ident, Item, ItemEnum, LitStr, Meta, Token, punctuated::Punctuated};

use super::budget::{self, BUDGET, Budget};
use super::parse::Input;
use super::server_line::ServerLine;
use crate::errors::Errors;
use crate::names::{is_kebab_case, kebab_case};

/// Terms of one kind are bits of a `u64`: the limit per kind, stated in the
/// `vocabulary!` docs and enforced here with an error naming it.
const MAX_TERMS: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Surfaces,
    Capabilities,
    Providers,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Surfaces, Role::Capabilities, Role::Providers];

    pub fn attribute(self) -> &'static str {
        match self {
            Role::Surfaces => "surfaces",
            Role::Capabilities => "capabilities",
            Role::Providers => "providers",
        }
    }

    pub fn kind(self) -> &'static str {
        match self {
            Role::Surfaces => "Surface",
            Role::Capabilities => "Capability",
            Role::Providers => "Provider",
        }
    }
}

/// One enum of the vocabulary, with our attributes taken off.
pub(crate) struct TermEnum {
    pub item: ItemEnum,
    pub terms: Vec<TermSpec>,
}

pub(crate) struct TermSpec {
    pub variant: Ident,
    pub wire_name: String,
    pub exclusive_with: Vec<Ident>,
    /// A surface's `#[budget(tokens = N)]`.
    pub budget: Option<Budget>,
}

pub(crate) struct Vocabulary {
    pub server: Ident,
    pub surfaces: TermEnum,
    pub capabilities: TermEnum,
    pub providers: TermEnum,
    /// Index pairs into `capabilities.terms`, each pair once.
    pub exclusive: Vec<(usize, usize)>,
    /// What the `server` line's attributes declare.
    pub line: ServerLine,
}

/// Validates the input; on any error returns the enums found so far, cleaned
/// of our attributes, so that code naming them still compiles.
pub(crate) fn validate(
    input: Input,
    line: ServerLine,
    errors: &mut Errors,
) -> Result<Vocabulary, Vec<ItemEnum>> {
    let mut found: [Option<TermEnum>; 3] = [None, None, None];
    let mut cleaned = Vec::new();
    let mut unmarked = false;
    for item in input.items {
        let Item::Enum(mut item) = item else {
            errors.spanned(
                &item,
                "a vocabulary holds only enums marked #[surfaces], #[capabilities] or #[providers]",
            );
            continue;
        };
        let role = take_role(&mut item, errors);
        let terms = terms(&mut item, role, errors);
        cleaned.push(item.clone());
        let Some(role) = role else {
            unmarked = true;
            continue;
        };
        let slot = &mut found[Role::ALL
            .iter()
            .position(|r| *r == role)
            .unwrap_or_default()];
        if slot.is_some() {
            errors.spanned(
                &item.ident,
                format!(
                    "a second #[{}] enum; a vocabulary has exactly one",
                    role.attribute()
                ),
            );
        } else {
            *slot = Some(TermEnum { item, terms });
        }
    }
    for (role, slot) in Role::ALL.iter().zip(&found) {
        // An unmarked enum was most likely meant to fill the gap; its error says so.
        if slot.is_none() && !unmarked {
            errors.at(
                proc_macro2::Span::call_site(),
                format!(
                    "the vocabulary has no #[{}] enum; declare one (it may be empty: `pub enum {} {{}}`)",
                    role.attribute(),
                    role.kind()
                ),
            );
        }
    }
    let exclusive = found[1]
        .as_ref()
        .map(|capabilities| exclusive_pairs(capabilities, errors))
        .unwrap_or_default();
    if let Some(surfaces) = &found[0]
        && surfaces.terms.is_empty()
    {
        errors.spanned(
            &surfaces.item.ident,
            "a vocabulary needs at least one surface",
        );
    }
    let [Some(surfaces), Some(capabilities), Some(providers)] = found else {
        return Err(cleaned);
    };
    if !errors.is_empty() {
        return Err(cleaned);
    }
    Ok(Vocabulary {
        server: input.server,
        surfaces,
        capabilities,
        providers,
        exclusive,
        line,
    })
}

/// Removes and returns the enum's role attribute.
fn take_role(item: &mut ItemEnum, errors: &mut Errors) -> Option<Role> {
    let mut role = None;
    item.attrs.retain(|attr| {
        let Some(found) = Role::ALL
            .into_iter()
            .find(|r| attr.path().is_ident(r.attribute()))
        else {
            return true;
        };
        if role.is_some() {
            errors.spanned(
                attr,
                "an enum has one role: #[surfaces], #[capabilities] or #[providers]",
            );
        }
        role = Some(found);
        false
    });
    if role.is_none() {
        errors.spanned(
            &item.ident,
            "mark this enum #[surfaces], #[capabilities] or #[providers]",
        );
    }
    role
}

/// The enum's terms, checking variants and removing our variant attributes.
fn terms(item: &mut ItemEnum, role: Option<Role>, errors: &mut Errors) -> Vec<TermSpec> {
    if !item.generics.params.is_empty() {
        errors.spanned(&item.generics, "vocabulary enums cannot be generic");
    }
    if item.variants.len() > MAX_TERMS {
        let kind = role.map_or("terms", Role::attribute);
        errors.spanned(
            &item.ident,
            format!(
                "a vocabulary holds at most {MAX_TERMS} {kind} (each is one bit of a 64-bit \
                 mask); `{}` declares {}",
                item.ident,
                item.variants.len()
            ),
        );
    }
    let mut terms: Vec<TermSpec> = Vec::new();
    for variant in &mut item.variants {
        if !matches!(variant.fields, Fields::Unit) {
            errors.spanned(&variant.fields, "vocabulary terms are unit variants");
        }
        if let Some((eq, discriminant)) = &variant.discriminant {
            errors.spanned(
                quote::quote!(#eq #discriminant),
                "vocabulary terms take no discriminant; a term's index is its position",
            );
        }
        let mut wire_name = kebab_case(&variant.ident.to_string());
        let mut exclusive_with = Vec::new();
        let mut budget = None;
        let mut budget_seen = false;
        let mut attrs = Vec::new();
        for attr in variant.attrs.drain(..) {
            if attr.path().is_ident(BUDGET) {
                if budget_seen {
                    errors.spanned(
                        &attr,
                        format!("`#[budget]` is given twice on `{}`", variant.ident),
                    );
                } else {
                    budget_seen = true;
                    let on_surface = role.is_none_or(|role| role == Role::Surfaces);
                    budget = budget::read(&attr, on_surface, errors);
                }
            } else if attr.path().is_ident("rename") {
                if let Some(name) = rename(&attr, errors) {
                    wire_name = name;
                }
            } else if attr.path().is_ident("exclusive_with") {
                if role != Some(Role::Capabilities) {
                    errors.spanned(&attr, "#[exclusive_with] belongs on capabilities");
                }
                exclusive_with.extend(idents(&attr, errors));
            } else {
                attrs.push(attr);
            }
        }
        variant.attrs = attrs;
        if let Some(first) = terms.iter().find(|t| t.wire_name == wire_name) {
            errors.spanned(
                &variant.ident,
                format!(
                    "wire name `{wire_name}` is already used by `{}`",
                    first.variant
                ),
            );
        }
        terms.push(TermSpec {
            variant: variant.ident.clone(),
            wire_name,
            exclusive_with,
            budget,
        });
    }
    terms
}

fn rename(attr: &Attribute, errors: &mut Errors) -> Option<String> {
    let name = match &attr.meta {
        Meta::NameValue(pair) => match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) => Some(lit.clone()),
            _ => None,
        },
        _ => None,
    };
    let Some(name): Option<LitStr> = name else {
        errors.spanned(attr, "expected `#[rename = \"wire-name\"]`");
        return None;
    };
    if !is_kebab_case(&name.value()) {
        errors.spanned(
            &name,
            format!("wire name `{}` is not kebab-case", name.value()),
        );
        return None;
    }
    Some(name.value())
}

fn idents(attr: &Attribute, errors: &mut Errors) -> Vec<Ident> {
    match attr.parse_args_with(Punctuated::<Ident, Token![,]>::parse_terminated) {
        Ok(list) if !list.is_empty() => list.into_iter().collect(),
        _ => {
            errors.spanned(attr, "expected `#[exclusive_with(OtherCapability, ...)]`");
            Vec::new()
        }
    }
}

fn exclusive_pairs(capabilities: &TermEnum, errors: &mut Errors) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (index, term) in capabilities.terms.iter().enumerate() {
        for other in &term.exclusive_with {
            match capabilities.terms.iter().position(|t| t.variant == *other) {
                None => errors.spanned(other, format!("no capability `{other}` in this enum")),
                Some(found) if found == index => {
                    errors.spanned(other, "a capability cannot exclude itself")
                }
                Some(found) => {
                    let pair = (index.min(found), index.max(found));
                    if !pairs.contains(&pair) {
                        pairs.push(pair);
                    }
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs
}
