//! Validate stage of the registration callback: every name the group uses
//! must be declared, and the group's rule must be satisfiable: no two
//! required capabilities exclusive, and not every alternative of its any-of
//! set excluded by a required one. Satisfiability is decided by
//! `mcp_profiles_rules`, the check the registry runs again at run time.
//! When the group or the vocabulary requires annotations, every tool must
//! state its behaviour hints.

use mcp_profiles_rules::{RuleMasks, Shape, Unsatisfiable, each_index};
use syn::LitStr;

use super::parse::{GroupInput, VocabularyNames};
use crate::errors::Errors;
use crate::names::closest;

pub(crate) fn validate(
    vocabulary: &VocabularyNames,
    group: &GroupInput,
    errors: &mut Errors,
) -> RuleMasks {
    // A vocabulary with an error of its own is not the one meant: checked
    // against it, the group's names would only repeat that error.
    let mut unchecked = Errors::default();
    let masks = if vocabulary.complete {
        rule(vocabulary, group, errors)
    } else {
        rule(vocabulary, group, &mut unchecked)
    };
    annotations(vocabulary, group, errors);
    masks
}

/// The rule's masks, with an error on each unknown name and on a rule no
/// context could satisfy.
fn rule(vocabulary: &VocabularyNames, group: &GroupInput, errors: &mut Errors) -> RuleMasks {
    let masks = RuleMasks {
        surfaces: mask(
            "surface",
            "surfaces",
            &vocabulary.surfaces,
            &group.surfaces,
            errors,
        ),
        capabilities: mask(
            "capability",
            "capabilities",
            &vocabulary.capabilities,
            &group.capabilities,
            errors,
        ),
        any_capabilities: mask(
            "capability",
            "capabilities",
            &vocabulary.capabilities,
            &group.any_capabilities.0,
            errors,
        ),
        providers: mask(
            "provider",
            "providers",
            &vocabulary.providers,
            &group.providers,
            errors,
        ),
    };
    // Unknown names have no bit: the check sees the rest of the rule.
    let shape = shape(vocabulary);
    match shape.witness(&masks) {
        Err(Unsatisfiable::Exclusive(_)) => exclusive(vocabulary, &shape, group, &masks, errors),
        // An unknown alternative might have been the satisfiable one.
        Err(Unsatisfiable::ExcludedAlternatives { required, .. })
            if all_declared(&vocabulary.capabilities, &group.any_capabilities.0) =>
        {
            alternatives_excluded(vocabulary, &shape, group, required, errors);
        }
        // `vocabulary!` declares at least one surface, and masks hold only
        // declared names: nothing else can be unsatisfiable.
        _ => {}
    }
    masks
}

/// One error per tool that leaves a hint unstated, on its `#[tool]` (or its
/// `annotations(...)`), when the group or the vocabulary requires
/// annotations. Which hints a tool must state is decided by
/// `#[tool_group]`, which sends only the tools that miss one.
fn annotations(vocabulary: &VocabularyNames, group: &GroupInput, errors: &mut Errors) {
    let why = match &group.require_annotations {
        Some(_) => "which its group requires (`require_annotations`)".to_owned(),
        None if vocabulary.require_annotations => format!(
            "which the vocabulary of `{}` requires of every group (`#[require_annotations]`)",
            server_name(&group.server)
        ),
        None => return,
    };
    let place = match &group.name {
        Some(name) => format!("in group `{}`", name.value()),
        None => "in this group".to_owned(),
    };
    for tool in &group.unannotated {
        let name = tool.name.value();
        let missing: Vec<String> = tool.missing.iter().map(ToString::to_string).collect();
        let message = match missing.as_slice() {
            [hint] if hint == "destructive_hint" => format!(
                "tool `{name}` {place} is not read-only and does not state `destructive_hint` \
                 (MCP clients then assume `true`), {why}: add `destructive_hint = true` to its \
                 `annotations(...)`, or `destructive_hint = false` if it only adds"
            ),
            [hint] if hint == "read_only_hint" => format!(
                "tool `{name}` {place} does not state `read_only_hint`, {why}: add \
                 `read_only_hint = false` to its `annotations(...)`, or `read_only_hint = true` \
                 if it changes nothing"
            ),
            _ => format!(
                "tool `{name}` {place} states neither `read_only_hint` nor `destructive_hint`, \
                 {why}: add `annotations(read_only_hint = false, destructive_hint = true)` to \
                 its #[tool] (`destructive_hint = false` if it only adds), or \
                 `annotations(read_only_hint = true)` if it changes nothing"
            ),
        };
        errors.spanned(&tool.at, message);
    }
}

/// The server type's name as the user knows it: the last segment of its path.
fn server_name(server: &syn::Type) -> String {
    match server {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .map(|segment| segment.ident.to_string())
            .unwrap_or_default(),
        other => quote::quote!(#other).to_string(),
    }
}

/// The vocabulary's context space, its exclusive pairs as indices.
fn shape(vocabulary: &VocabularyNames) -> Shape {
    let index = |name: &String| {
        vocabulary
            .capabilities
            .iter()
            .position(|declared| declared == name)
    };
    Shape::new(
        vocabulary.surfaces.len(),
        vocabulary.capabilities.len(),
        vocabulary.providers.len(),
        vocabulary
            .exclusive
            .iter()
            .filter_map(|(a, b)| Some((index(a)?, index(b)?))),
    )
}

/// Reports each exclusive pair the group requires, on the later of its two
/// literals.
fn exclusive(
    vocabulary: &VocabularyNames,
    shape: &Shape,
    group: &GroupInput,
    masks: &RuleMasks,
    errors: &mut Errors,
) {
    let position = |name: &String| {
        group
            .capabilities
            .iter()
            .position(|lit| lit.value() == *name)
    };
    for pair in shape.conflicts(masks.capabilities) {
        // `vocabulary!` lists each pair lower index first, as bits go.
        let mut names = capabilities(vocabulary, pair);
        let (Some(first), Some(second)) = (names.next(), names.next()) else {
            continue;
        };
        if let (Some(a), Some(b)) = (position(first), position(second)) {
            errors.spanned(
                &group.capabilities[a.max(b)],
                format!(
                    "capabilities `{first}` and `{second}` are mutually exclusive, \
                     so no context could ever enable this group"
                ),
            );
        }
    }
}

/// Reports an any-of set whose every alternative is exclusive with a
/// required capability: no context could enable the group.
fn alternatives_excluded(
    vocabulary: &VocabularyNames,
    shape: &Shape,
    group: &GroupInput,
    required: u64,
    errors: &mut Errors,
) {
    let (alternatives, span) = &group.any_capabilities;
    let clashes: Vec<String> = alternatives
        .iter()
        .map(LitStr::value)
        .map(|alternative| {
            let index = vocabulary
                .capabilities
                .iter()
                .position(|c| *c == alternative);
            let bit = index.map_or(0, |index| 1 << index);
            let excluders: Vec<String> = capabilities(vocabulary, shape.excluders(bit, required))
                .map(|name| format!("`{name}`"))
                .collect();
            format!("`{alternative}` with {}", excluders.join(" and "))
        })
        .collect();
    errors.at(
        *span,
        format!(
            "every capability of `any_capability` is mutually exclusive with a required one \
             ({}), so no context could ever enable this group",
            clashes.join(", ")
        ),
    );
}

/// The names of the capabilities in `mask`, in declaration order.
fn capabilities(vocabulary: &VocabularyNames, mask: u64) -> impl Iterator<Item = &String> {
    each_index(mask).map(|index| &vocabulary.capabilities[index])
}

/// Whether every literal of `used` is declared.
fn all_declared(declared: &[String], used: &[LitStr]) -> bool {
    used.iter()
        .all(|literal| declared.contains(&literal.value()))
}

/// The bits of `used`, with an error on each literal the vocabulary lacks.
fn mask(
    kind: &str,
    plural: &str,
    declared: &[String],
    used: &[LitStr],
    errors: &mut Errors,
) -> u64 {
    let mut bits = 0;
    for literal in used {
        let value = literal.value();
        match declared.iter().position(|name| *name == value) {
            Some(index) => bits |= 1 << index,
            None => {
                let hint = closest(&value, declared.iter().map(String::as_str))
                    .map(|name| format!("did you mean `{name}`? "))
                    .unwrap_or_default();
                let listing = if declared.is_empty() {
                    format!("no {plural} are declared")
                } else {
                    format!("declared {plural}: {}", declared.join(", "))
                };
                errors.spanned(
                    literal,
                    format!("unknown {kind} `{value}`; {hint}{listing}"),
                );
            }
        }
    }
    bits
}
