//! Registries built in code, for tests of rules and verification.

use std::panic::Location;

use rmcp::model::ToolAnnotations;

use super::{GroupEntry, Registry, RegistryErrors};
use crate::policy::Hints;
use crate::{Rule, Vocabulary};

/// Builds a [`Registry`] from groups written in code rather than linked by
/// `#[tool_group]`; enabled by the `testing` feature.
///
/// Groups built here have tool names but no handlers, so a profile assembled
/// from them lists no tools to a client; they exist to test rules,
/// verification and profile diffs without writing a handler per case. Each
/// group's location is the line that added it, so verification errors point
/// at the test.
///
/// ```
/// # mod server { pub struct Desk; }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability { Refund }
/// #     #[providers] pub enum Provider { Jira }
/// # }
/// use mcp_profiles::{Registry, RegistryError, Rule};
///
/// let errors = Registry::<Desk>::builder()
///     .group("tickets", Rule::on_surface(Surface::Ticket), &["reply"])
///     .group("everywhere", Rule::always(), &["reply"])
///     .build()
///     .unwrap_err();
/// assert!(matches!(
///     errors.iter().next(),
///     Some(RegistryError::ToolCollision { tool, .. }) if tool == "reply"
/// ));
/// ```
#[must_use = "a builder does nothing until `build` verifies it"]
pub struct RegistryBuilder<S: Vocabulary> {
    entries: Vec<GroupEntry<S>>,
    /// Annotations declared with [`RegistryBuilder::annotate`], by tool name.
    annotations: Vec<(&'static str, ToolAnnotations)>,
}

impl<S: Vocabulary> std::fmt::Debug for RegistryBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.entries.iter().map(|entry| entry.name).collect();
        f.debug_struct("RegistryBuilder")
            .field("groups", &names)
            .finish()
    }
}

impl<S: Vocabulary> Registry<S> {
    /// Starts a registry of groups written in code; see [`RegistryBuilder`].
    pub fn builder() -> RegistryBuilder<S> {
        RegistryBuilder {
            entries: Vec::new(),
            annotations: Vec::new(),
        }
    }
}

impl<S: Vocabulary> RegistryBuilder<S> {
    /// Adds a group called `name` with `rule`, exposing `tools`.
    ///
    /// Nothing is checked here; [`RegistryBuilder::build`] verifies every
    /// group together, as [`Registry::linked`] does for linked groups.
    #[track_caller]
    pub fn group(
        mut self,
        name: &'static str,
        rule: Rule<S>,
        tools: &'static [&'static str],
    ) -> Self {
        let location = Location::caller();
        self.entries.push(GroupEntry {
            name: Some(name),
            title: None,
            description: None,
            module_path: module_path!(),
            file: location.file(),
            line: location.line(),
            rule: *rule.masks(),
            tools,
            definitions: &[],
            includes: &[],
            routes: Vec::new,
        });
        self
    }

    /// Gives every tool called `tool` the `annotations` a `#[tool]` would
    /// declare, for tests of policies (a tool left out has none: MCP's
    /// defaults, not read-only and maybe destructive).
    pub fn annotate(mut self, tool: &'static str, annotations: ToolAnnotations) -> Self {
        self.annotations.push((tool, annotations));
        self
    }

    /// Verifies the groups and builds the registry, or reports every broken
    /// invariant together.
    pub fn build(self) -> Result<Registry<S>, RegistryErrors> {
        let mut registry = Registry::from_entries(self.entries)?;
        let annotated = |name: &str| {
            let annotations = self
                .annotations
                .iter()
                .rev()
                .find(|(tool, _)| *tool == name);
            Hints::of(annotations.map(|(_, annotations)| annotations))
        };
        for group in &mut registry.groups {
            let hints = group.tools().iter().map(|tool| annotated(tool)).collect();
            group.set_hints(hints);
        }
        Ok(registry)
    }
}
