//! Validate stage of the registration callback: every name the group uses
//! must be declared, and the group must not require exclusive capabilities.

use syn::LitStr;

use super::parse::{GroupInput, VocabularyNames};
use crate::errors::Errors;
use crate::names::closest;

/// The group's rule as bit masks over term indices.
#[derive(Default)]
pub(crate) struct Masks {
    pub surfaces: u64,
    pub capabilities: u64,
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
        providers: mask(
            "provider",
            "providers",
            &vocabulary.providers,
            &group.providers,
            errors,
        ),
    };
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
    masks
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
