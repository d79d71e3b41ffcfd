//! Validate stage: what `include` and `exclude` mean as far as this impl
//! block can tell, every misuse on the user's literal.

use std::collections::HashSet;

use syn::{Ident, LitStr};

use super::parse::{Part, Written};
use crate::errors::Errors;

/// A valid composition: the groups included and the names excluded.
pub(crate) struct Compose {
    /// The `include` key, where a conflict between definitions is reported.
    pub key: Ident,
    pub parts: Vec<Part>,
    pub exclude: Vec<LitStr>,
}

impl Compose {
    /// The tools named in `include("group": [...])` lists.
    pub(crate) fn listed(&self) -> impl Iterator<Item = &LitStr> {
        self.parts
            .iter()
            .flat_map(|part| part.only.iter().flat_map(|(tools, _)| tools))
    }
}

/// The group's composition, if it includes any group; every problem is
/// recorded in `errors`.
pub(crate) fn validate(
    written: Written,
    name: Option<&LitStr>,
    own_tools: &[&str],
    errors: &mut Errors,
) -> Option<Compose> {
    let mut includes = written.include.into_iter();
    let first = includes.next();
    for (again, _) in includes {
        errors.spanned(
            &again,
            "`include` is given twice; name every included group in one `include(...)`",
        );
    }
    let mut excludes = written.exclude.into_iter();
    let exclude = excludes.next();
    for (again, _) in excludes {
        errors.spanned(
            &again,
            "`exclude` is given twice; name every excluded tool in one list",
        );
    }
    let Some((key, parts)) = first else {
        if let Some((key, _)) = &exclude {
            errors.spanned(
                key,
                "`exclude` removes tools this group includes from others, and it includes \
                 none: add `include(\"group\", ...)`, or drop the tool's #[tool] instead",
            );
        }
        return None;
    };
    if parts.is_empty() {
        errors.spanned(&key, "`include()` names no group; name at least one");
    }
    let mut groups = HashSet::new();
    for part in &parts {
        if !groups.insert(part.group.value()) {
            errors.spanned(
                &part.group,
                format!("group `{}` is included twice", part.group.value()),
            );
        }
        if name.is_some_and(|name| name.value() == part.group.value()) {
            errors.spanned(&part.group, "a group cannot include itself");
        }
        if let Some((tools, span)) = &part.only {
            if tools.is_empty() {
                errors.at(
                    *span,
                    format!(
                        "the list of `{}`'s tools is empty; name at least one, or write \
                         `\"{}\"` alone for all of them",
                        part.group.value(),
                        part.group.value()
                    ),
                );
            }
            check_listed(tools, own_tools, errors);
        }
    }
    let exclude = exclude.map(|(_, names)| names).unwrap_or_default();
    let listed: HashSet<String> = parts
        .iter()
        .flat_map(|part| part.only.iter().flat_map(|(tools, _)| tools))
        .map(LitStr::value)
        .collect();
    let mut seen = HashSet::new();
    for tool in &exclude {
        let value = tool.value();
        if !seen.insert(value.clone()) {
            errors.spanned(tool, format!("`{value}` is excluded twice"));
        } else if own_tools.contains(&value.as_str()) {
            errors.spanned(
                tool,
                format!(
                    "`{value}` is a #[tool] of this group; `exclude` only removes included \
                     tools, so drop the method's #[tool] instead"
                ),
            );
        } else if listed.contains(&value) {
            errors.spanned(
                tool,
                format!("`{value}` is both listed in `include` and excluded; keep one"),
            );
        }
    }
    Some(Compose {
        key,
        parts,
        exclude,
    })
}

/// A listed tool named twice, or also defined here: two definitions of one
/// name in one group.
fn check_listed(tools: &[LitStr], own_tools: &[&str], errors: &mut Errors) {
    let mut seen = HashSet::new();
    for tool in tools {
        let value = tool.value();
        if !seen.insert(value.clone()) {
            errors.spanned(tool, format!("`{value}` is listed twice"));
        } else if own_tools.contains(&value.as_str()) {
            errors.spanned(
                tool,
                format!(
                    "`{value}` is a #[tool] of this group and also included: two definitions \
                     of one name; keep one"
                ),
            );
        }
    }
}
