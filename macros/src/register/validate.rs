//! Validate stage of the registration callback: every name the group uses
//! must be declared, and the group's capabilities must be satisfiable: no
//! two required ones exclusive, and not every alternative of its any-of set
//! excluded by a required one.

use syn::LitStr;

use super::parse::{GroupInput, VocabularyNames};
use crate::errors::Errors;
use crate::names::closest;

/// The group's rule as bit masks over term indices.
#[derive(Default)]
pub(crate) struct Masks {
    pub surfaces: u64,
    pub capabilities: u64,
    pub any_capabilities: u64,
    pub providers: u64,
}

pub(crate) fn validate(
    vocabulary: &VocabularyNames,
    group: &GroupInput,
    errors: &mut Errors,
) -> Masks {
    let masks = Masks {
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
    let errors_before = errors.len();
    for (first, second) in &vocabulary.exclusive {
        let position = |name: &String| {
            group
                .capabilities
                .iter()
                .position(|lit| lit.value() == *name)
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
    // Unknown names or exclusive requirements already explain the group.
    if errors.len() == errors_before && !group.any_capabilities.0.is_empty() {
        alternatives_excluded(vocabulary, group, errors);
    }
    masks
}

/// Reports an any-of set whose every alternative is exclusive with a
/// required capability: no context could enable the group.
fn alternatives_excluded(vocabulary: &VocabularyNames, group: &GroupInput, errors: &mut Errors) {
    let (alternatives, span) = &group.any_capabilities;
    let required: Vec<String> = group.capabilities.iter().map(LitStr::value).collect();
    let mut clashes = Vec::new();
    for alternative in alternatives.iter().map(LitStr::value) {
        let excluders: Vec<String> = vocabulary
            .exclusive
            .iter()
            .filter_map(|(a, b)| {
                if *a == alternative && required.contains(b) {
                    Some(b)
                } else if *b == alternative && required.contains(a) {
                    Some(a)
                } else {
                    None
                }
            })
            .map(|name| format!("`{name}`"))
            .collect();
        if excluders.is_empty() {
            return;
        }
        clashes.push(format!("`{alternative}` with {}", excluders.join(" and ")));
    }
    errors.at(
        *span,
        format!(
            "every capability of `any_capability` is mutually exclusive with a required one \
             ({}), so no context could ever enable this group",
            clashes.join(", ")
        ),
    );
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
