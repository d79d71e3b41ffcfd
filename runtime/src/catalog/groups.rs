//! A catalog's own tool groups: how its tools appear to a client of MCP's
//! grouping extension ([`crate::grouping`]), named, titled and described
//! as `#[tool_group(title = .., description = ..)]` declares a compiled
//! group, and checked as strictly when the catalog is built.

use std::collections::{BTreeMap, HashSet};

use super::RuntimeTool;
use super::validate::CatalogError;
use crate::tool_name::check_name;
use crate::{Registry, Vocabulary};

/// A group of a [`Catalog`](super::Catalog)'s tools: what a client that
/// declares MCP's grouping extension is told its tools belong to. A tool
/// joins it with [`RuntimeTool::in_group`]; the group is listed while the
/// session lists one of its tools.
///
/// ```
/// use mcp_profiles::RuntimeGroup;
///
/// let github = RuntimeGroup::new("plugin.github")
///     .with_title("GitHub")
///     .with_description("Issues and pull requests of the task's repository");
/// assert_eq!(github.title(), Some("GitHub"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeGroup {
    name: String,
    title: Option<String>,
    description: Option<String>,
}

impl RuntimeGroup {
    /// A group called `name` (MCP's tool-name rules; no compiled group's
    /// name), checked when its catalog is built.
    pub fn new(name: impl Into<String>) -> Self {
        RuntimeGroup {
            name: name.into(),
            title: None,
            description: None,
        }
    }

    /// Its title for people: one non-blank line.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What it offers: non-blank.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its title, if it has one.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Its description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
}

/// Checks a catalog's `groups` against `registry` and the `tools` naming
/// them, pushing every problem onto `errors`; the groups sorted by name.
pub(super) fn verify<S: Vocabulary>(
    registry: &Registry<S>,
    mut groups: Vec<RuntimeGroup>,
    tools: &[RuntimeTool<S>],
    errors: &mut Vec<CatalogError>,
) -> Vec<RuntimeGroup> {
    let compiled: HashSet<String> = registry.group_names().into_iter().collect();
    let mut members: BTreeMap<&str, usize> = BTreeMap::new();
    for tool in tools {
        for group in tool.groups() {
            *members.entry(group).or_default() += 1;
        }
    }
    let mut declared = HashSet::with_capacity(groups.len());
    for group in &groups {
        let name = group.name();
        let invalid = |reason: String| CatalogError::InvalidGroup {
            group: name.to_owned(),
            reason,
        };
        if let Err(reason) = check_name(name) {
            errors.push(invalid(reason));
        } else if !declared.insert(name) {
            errors.push(CatalogError::DuplicateGroup {
                group: name.to_owned(),
            });
        } else if compiled.contains(name) {
            errors.push(CatalogError::GroupNameTaken {
                group: name.to_owned(),
            });
        } else if !members.contains_key(name) {
            errors.push(invalid("no tool of the catalog is in it".to_owned()));
        }
        match group.title() {
            Some(title) if title.trim().is_empty() => {
                errors.push(invalid("its title is blank".to_owned()));
            }
            Some(title) if title.contains(['\n', '\r']) => {
                errors.push(invalid("its title is more than one line".to_owned()));
            }
            _ => {}
        }
        if group
            .description()
            .is_some_and(|text| text.trim().is_empty())
        {
            errors.push(invalid("its description is blank".to_owned()));
        }
    }
    for tool in tools {
        for group in tool.groups() {
            if !declared.contains(group) {
                errors.push(CatalogError::UnknownGroup {
                    tool: tool.name().to_owned(),
                    group: group.to_owned(),
                });
            }
        }
    }
    groups.sort_by(|a, b| a.name.cmp(&b.name));
    groups
}
