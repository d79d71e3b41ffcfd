//! Validate stage of `vocabulary!`: role-marked enums of unit variants (the
//! surfaces, and the capabilities and providers unless left out), unique
//! kebab-case wire names, and exclusivity between known capabilities. The
//! `server` line's attributes are `server_line.rs`'s.
//!
//! Every mistake is one error, and the vocabulary is still read as the user
//! most likely meant it, so that the expansion declares what later code
//! names and adds no error of its own.

use syn::{Attribute, Fields, Ident, Item, ItemEnum, LitStr, Meta, Token, punctuated::Punctuated};

use super::budget::{self, BUDGET, Budget};
use super::parse::Input;
use super::server_line::ServerLine;
use crate::errors::Errors;
use crate::names::{closest, is_kebab_case, kebab_case};

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

    /// The part's word for one term, as errors write it.
    pub fn singular(self) -> &'static str {
        match self {
            Role::Surfaces => "surface",
            Role::Capabilities => "capability",
            Role::Providers => "provider",
        }
    }

    /// The part's place in [`Role::ALL`].
    pub fn index(self) -> usize {
        match self {
            Role::Surfaces => 0,
            Role::Capabilities => 1,
            Role::Providers => 2,
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
    /// Declared by the macro for a part the input leaves out: an empty
    /// `Capability` or `Provider` (or, after an error, `Surface`).
    pub implicit: bool,
}

pub(crate) struct TermSpec {
    pub variant: Ident,
    pub wire_name: String,
    pub exclusive_with: Vec<Ident>,
    /// A surface's `#[budget(tokens = N)]`.
    pub budget: Option<Budget>,
}

pub(crate) struct Vocabulary {
    /// `None` when the input has no server line (its error is recorded):
    /// then only the enums are declared.
    pub server: Option<Ident>,
    pub surfaces: TermEnum,
    pub capabilities: TermEnum,
    pub providers: TermEnum,
    /// The other items of the input, each an error, declared anyway so
    /// that later code naming them compiles: a second enum of one role, an
    /// enum with no role, an item that is not an enum.
    pub others: Vec<Other>,
    /// Index pairs into `capabilities.terms`, each pair once.
    pub exclusive: Vec<(usize, usize)>,
    /// What the `server` line's attributes declare.
    pub line: ServerLine,
    /// No error in the vocabulary itself (the `server` line's attributes
    /// aside): its names are the ones the user meant. Groups check their
    /// names only against a complete vocabulary; otherwise the vocabulary's
    /// own error is the one to fix first.
    pub complete: bool,
}

/// An item of the input that is not one of the three parts.
pub(crate) enum Other {
    /// An enum with a role that is already taken, declared with that
    /// role's traits.
    Term(Role, TermEnum),
    /// An enum of no known role, declared plain.
    Plain(ItemEnum),
    /// Any other item, as written.
    Item(Item),
}

/// How an enum says its role.
#[derive(Clone, Copy)]
enum Marking {
    /// `#[surfaces]`, `#[capabilities]` or `#[providers]`.
    Marked(Role),
    /// An attribute close to one of them (`#[capabilites]`, `#[provider]`):
    /// an error on it, and the enum taken as that role.
    Misspelt(Role),
    /// No role attribute; an error on the name, which may suggest the role.
    Unmarked(Option<Role>),
}

/// An enum of the input, its role attribute taken off.
struct Candidate {
    item: ItemEnum,
    marking: Marking,
}

/// Validates the input. Every error is recorded, and the vocabulary is
/// still read as far as it can be (a misspelt role attribute or an
/// unmarked enum taken as the role it most likely means, invalid variants
/// made unit variants, an omitted part declared empty), so that the
/// expansion declares everything later code names and the errors recorded
/// are the only ones.
pub(crate) fn validate(input: Input, line: ServerLine, errors: &mut Errors) -> Vocabulary {
    let mut candidates = Vec::new();
    let mut others = Vec::new();
    for item in input.items {
        match item {
            Item::Enum(mut item) => {
                let marking = take_role(&mut item, errors);
                candidates.push(Candidate { item, marking });
            }
            item => match as_enum(&item) {
                Some((role, mut enum_item)) => {
                    let vis = &enum_item.vis;
                    let declaration = quote::quote!(#vis enum).to_string();
                    errors.spanned(
                        &item,
                        format!(
                            "#[{}] marks an enum: declare `{declaration} {} {{ ... }}`, its \
                             variants the {}",
                            role.attribute(),
                            enum_item.ident,
                            role.attribute()
                        ),
                    );
                    // Declared as the empty enum it meant to be, so that
                    // code naming it compiles; its error is the one above.
                    let marking = take_role(&mut enum_item, &mut Errors::default());
                    candidates.push(Candidate {
                        item: enum_item,
                        marking,
                    });
                }
                None => {
                    errors.spanned(
                        &item,
                        "a vocabulary holds only enums marked #[surfaces], #[capabilities] or \
                         #[providers]",
                    );
                    others.push(Other::Item(item));
                }
            },
        }
    }
    let (mut slots, unplaced) = place(candidates, &mut others, errors);
    for item in unplaced {
        errors.spanned(
            &item.ident,
            "mark this enum #[surfaces], #[capabilities] or #[providers]",
        );
        others.push(Other::Plain(item));
    }
    let unmarked = others.iter().any(|other| matches!(other, Other::Plain(_)));
    let server_span = input
        .server
        .as_ref()
        .map_or_else(proc_macro2::Span::call_site, Ident::span);
    // An unmarked enum was most likely meant to be the surfaces; its error
    // says so.
    if slots[0].is_none() && !unmarked {
        errors.at(
            server_span,
            "the vocabulary has no #[surfaces] enum; declare where its sessions run, e.g. \
             `#[surfaces] pub enum Surface { Main }` (a vocabulary needs at least one surface; \
             #[capabilities] and #[providers] may be left out)",
        );
    }
    // The enums of the parts the input leaves out share the surfaces'
    // visibility.
    let vis = slots[0]
        .as_ref()
        .map_or_else(|| syn::parse_quote!(pub), |item| item.vis.clone());
    let [surfaces, capabilities, providers] = Role::ALL.map(|role| {
        let index = role.index();
        match slots[index].take() {
            Some(mut item) => {
                let terms = terms(&mut item, Some(role), errors);
                TermEnum {
                    item,
                    terms,
                    implicit: false,
                }
            }
            None => implicit(role, &vis),
        }
    });
    for other in &mut others {
        if let Other::Term(role, term_enum) = other {
            term_enum.terms = terms(&mut term_enum.item, Some(*role), errors);
        } else if let Other::Plain(item) = other {
            terms(item, None, errors);
        }
    }
    let exclusive = exclusive_pairs(&capabilities, errors);
    if !surfaces.implicit && surfaces.terms.is_empty() {
        errors.spanned(
            &surfaces.item.ident,
            "a vocabulary needs at least one surface",
        );
    }
    Vocabulary {
        server: input.server,
        surfaces,
        capabilities,
        providers,
        others,
        exclusive,
        line,
        complete: errors.is_empty(),
    }
}

/// The empty enum of a part the input leaves out.
fn implicit(role: Role, vis: &syn::Visibility) -> TermEnum {
    let ident = Ident::new(role.kind(), proc_macro2::Span::call_site());
    TermEnum {
        item: syn::parse_quote!(#vis enum #ident {}),
        terms: Vec::new(),
        implicit: true,
    }
}

/// A struct, union or type alias marked with a role attribute (or one
/// close to it), as the empty enum of that name it was meant to be; its
/// other attributes (a `derive`, say) are dropped with the item.
fn as_enum(item: &Item) -> Option<(Role, ItemEnum)> {
    let (attrs, vis, ident) = match item {
        Item::Struct(item) => (&item.attrs, &item.vis, &item.ident),
        Item::Union(item) => (&item.attrs, &item.vis, &item.ident),
        Item::Type(item) => (&item.attrs, &item.vis, &item.ident),
        _ => return None,
    };
    let (role, _) = attrs.iter().find_map(role_like)?;
    let roles = attrs.iter().filter(|attr| role_like(attr).is_some());
    let docs = attrs.iter().filter(|attr| attr.path().is_ident("doc"));
    Some((
        role,
        syn::parse_quote!(#(#docs)* #(#roles)* #vis enum #ident {}),
    ))
}

/// Puts each enum in its part: marked ones first, then misspelt ones,
/// then unmarked ones whose name says their role, then a single unmarked
/// one in the one part left (the surfaces, if they are missing). Returns
/// the parts and the unmarked enums no part fits, with no error recorded
/// for those yet.
fn place(
    candidates: Vec<Candidate>,
    others: &mut Vec<Other>,
    errors: &mut Errors,
) -> ([Option<ItemEnum>; 3], Vec<ItemEnum>) {
    let mut slots: [Option<ItemEnum>; 3] = [None, None, None];
    let mut waiting: Vec<Candidate> = Vec::new();
    for candidate in candidates {
        let Marking::Marked(role) = candidate.marking else {
            waiting.push(candidate);
            continue;
        };
        let slot = &mut slots[role.index()];
        if slot.is_some() {
            errors.spanned(
                &candidate.item.ident,
                format!(
                    "a second #[{}] enum; a vocabulary has one: declare every {} in `{}`",
                    role.attribute(),
                    role.singular(),
                    slot.as_ref()
                        .map_or_else(String::new, |first| first.ident.to_string())
                ),
            );
            others.push(Other::Term(role, term_enum(candidate.item)));
        } else {
            *slot = Some(candidate.item);
        }
    }
    // A misspelt role attribute says more than a name does: those first.
    waiting.sort_by_key(|candidate| matches!(candidate.marking, Marking::Unmarked(_)));
    let mut unplaced = Vec::new();
    for candidate in waiting {
        let role = match candidate.marking {
            Marking::Misspelt(role) | Marking::Unmarked(Some(role)) => role,
            Marking::Marked(_) | Marking::Unmarked(None) => {
                unplaced.push(candidate.item);
                continue;
            }
        };
        let slot = &mut slots[role.index()];
        if let Marking::Unmarked(_) = candidate.marking {
            errors.spanned(&candidate.item.ident, unmarked(role));
        }
        if slot.is_some() {
            others.push(Other::Term(role, term_enum(candidate.item)));
        } else {
            *slot = Some(candidate.item);
        }
    }
    // One enum with nothing to say its role: the part that is missing.
    if let [_] = unplaced.as_slice() {
        let free: Vec<Role> = Role::ALL
            .into_iter()
            .filter(|role| slots[role.index()].is_none())
            .collect();
        let role = match free.as_slice() {
            [Role::Surfaces, ..] => Some(Role::Surfaces),
            [role] => Some(*role),
            _ => None,
        };
        if let Some(role) = role {
            let item = unplaced.remove(0);
            errors.spanned(&item.ident, unmarked(role));
            slots[role.index()] = Some(item);
        }
    }
    (slots, unplaced)
}

fn term_enum(item: ItemEnum) -> TermEnum {
    TermEnum {
        item,
        terms: Vec::new(),
        implicit: false,
    }
}

/// The error on an enum with no role attribute that is taken as `role`.
fn unmarked(role: Role) -> String {
    format!(
        "mark this enum #[{}]: each enum of a vocabulary is marked #[surfaces], \
         #[capabilities] or #[providers]",
        role.attribute()
    )
}

/// The error on a second role attribute of an enum marked `first`.
fn second_role(first: Role, second: Role) -> String {
    if first == second {
        format!("`#[{}]` is given twice", first.attribute())
    } else {
        format!(
            "an enum has one role, and this one is marked #[{}]: declare the {} in an enum of \
             their own",
            first.attribute(),
            second.attribute()
        )
    }
}

/// The role `attr` names, exactly or nearly: `#[providers]`, or
/// `#[provider]`, `#[capabilites]`, `#[Surfaces]`.
fn role_like(attr: &Attribute) -> Option<(Role, bool)> {
    let ident = attr.path().get_ident()?;
    if let Some(role) = Role::ALL.into_iter().find(|role| ident == role.attribute()) {
        return Some((role, true));
    }
    let name = ident.to_string().to_lowercase();
    let close = closest(&name, Role::ALL.map(Role::attribute))?;
    Role::ALL
        .into_iter()
        .find(|role| role.attribute() == close)
        .map(|role| (role, false))
}

/// The role an unmarked enum's name suggests: `Provider`, `Providers`,
/// `Capabilities`, `Surfaces`, ... (`closest` to a role's words).
fn role_of_name(ident: &Ident) -> Option<Role> {
    let name = ident.to_string().to_lowercase();
    let words = Role::ALL.map(|role| [role.attribute(), role.singular()]);
    let close = closest(&name, words.iter().flatten().copied())?;
    Role::ALL
        .into_iter()
        .find(|role| role.attribute() == close || role.singular() == close)
}

/// Removes the enum's role attribute, or one close to it, and says how it
/// was marked; a misspelt, repeated or misused role attribute is an error
/// on it.
fn take_role(item: &mut ItemEnum, errors: &mut Errors) -> Marking {
    let mut exact = None;
    let mut misspelt = None;
    item.attrs.retain(|attr| {
        let Some((role, is_exact)) = role_like(attr) else {
            return true;
        };
        if is_exact {
            if let Some(first) = exact {
                errors.spanned(attr, second_role(first, role));
            } else if !matches!(attr.meta, Meta::Path(_)) {
                errors.spanned(
                    attr,
                    format!(
                        "`#[{}]` takes no arguments: write `#[{}]`",
                        role.attribute(),
                        role.attribute()
                    ),
                );
            }
            exact = exact.or(Some(role));
        } else {
            if misspelt.is_none() {
                misspelt = Some((role, attr.clone()));
            }
        }
        false
    });
    match (exact, misspelt) {
        (Some(role), None) => Marking::Marked(role),
        (Some(role), Some((other, attr))) => {
            errors.spanned(&attr, second_role(role, other));
            Marking::Marked(role)
        }
        (None, Some((role, attr))) => {
            let path = attr.path();
            let written = quote::quote!(#path).to_string();
            errors.spanned(
                &attr,
                format!(
                    "unknown attribute `#[{written}]`; did you mean `#[{}]`? each enum of a \
                     vocabulary is marked #[surfaces], #[capabilities] or #[providers]",
                    role.attribute()
                ),
            );
            Marking::Misspelt(role)
        }
        (None, None) => Marking::Unmarked(role_of_name(&item.ident)),
    }
}

/// The enum's terms, checking variants and removing our variant attributes.
fn terms(item: &mut ItemEnum, role: Option<Role>, errors: &mut Errors) -> Vec<TermSpec> {
    if !item.generics.params.is_empty() {
        errors.spanned(&item.generics, "vocabulary enums cannot be generic");
    }
    // Declared without them, so that later code naming the enum compiles.
    item.generics = syn::Generics::default();
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
            variant.fields = Fields::Unit;
        }
        if let Some((eq, discriminant)) = variant.discriminant.take() {
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

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;
    use crate::vocabulary::parse;

    /// The vocabulary read from `tokens`, and its number of errors.
    fn read(tokens: proc_macro2::TokenStream) -> (Vocabulary, usize) {
        let mut errors = Errors::default();
        let input = parse::parse(tokens, &mut errors);
        let vocabulary = validate(input, ServerLine::default(), &mut errors);
        (vocabulary, errors.len())
    }

    fn names(vocabulary: &Vocabulary) -> [String; 3] {
        [
            &vocabulary.surfaces,
            &vocabulary.capabilities,
            &vocabulary.providers,
        ]
        .map(|part| {
            let implicit = if part.implicit { " (implicit)" } else { "" };
            format!("{}{implicit}", part.item.ident)
        })
    }

    #[test]
    fn omitted_parts_are_declared_empty_and_without_error() {
        let (vocabulary, errors) = read(quote! {
            server Desk;
            #[surfaces] pub(crate) enum Surface { Ticket }
        });
        assert_eq!(errors, 0);
        assert!(vocabulary.complete);
        assert_eq!(
            names(&vocabulary),
            ["Surface", "Capability (implicit)", "Provider (implicit)"]
        );
        let vis = &vocabulary.providers.item.vis;
        assert_eq!(quote!(#vis).to_string(), "pub (crate)");
    }

    #[test]
    fn a_misspelt_or_missing_role_is_one_error_and_the_part_it_means() {
        for (tokens, expected) in [
            (
                quote!(server D; #[surface] pub enum S { A } #[capabilites] pub enum C { B }),
                ["S", "C", "Provider (implicit)"],
            ),
            (
                quote!(server D; #[surfaces] pub enum S { A } pub enum Providers { B }),
                ["S", "Capability (implicit)", "Providers"],
            ),
            (
                quote!(server D; pub enum Where { A } #[providers] pub enum P {}),
                ["Where", "Capability (implicit)", "P"],
            ),
        ] {
            let (vocabulary, errors) = read(tokens.clone());
            let expected_errors = if tokens.to_string().contains("capabilites") {
                2
            } else {
                1
            };
            assert_eq!(errors, expected_errors, "{tokens}");
            assert!(!vocabulary.complete);
            assert_eq!(names(&vocabulary), expected, "{tokens}");
        }
    }

    #[test]
    fn missing_surfaces_are_one_error_and_an_empty_enum() {
        let (vocabulary, errors) = read(quote!(server D; #[providers] pub enum P { A }));
        assert_eq!(errors, 1);
        assert_eq!(
            names(&vocabulary),
            ["Surface (implicit)", "Capability (implicit)", "P"]
        );
    }

    #[test]
    fn a_second_part_is_one_error_and_still_declared() {
        let (vocabulary, errors) = read(quote! {
            server D;
            #[surfaces] pub enum S { A }
            #[surfaces] pub enum T { B }
        });
        assert_eq!(errors, 1);
        assert!(matches!(
            vocabulary.others.as_slice(),
            [Other::Term(Role::Surfaces, term)] if term.item.ident == "T" && term.terms.len() == 1
        ));
    }

    #[test]
    fn invalid_variants_are_declared_as_unit_variants() {
        let (vocabulary, errors) = read(quote! {
            server D;
            #[surfaces] pub enum S<T> { A(T), B = 2 }
        });
        assert_eq!(errors, 3);
        let item = &vocabulary.surfaces.item;
        assert!(item.generics.params.is_empty());
        assert!(item.variants.iter().all(|variant| {
            matches!(variant.fields, Fields::Unit) && variant.discriminant.is_none()
        }));
    }
}
