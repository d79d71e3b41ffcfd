//! What registry verification reports: a leaf module, so the group kinds
//! the registry verifies can name it without importing the registry.

use std::fmt;

use crate::Errors;

/// One broken registry invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two groups share a name.
    DuplicateGroupName {
        /// The shared name.
        name: String,
        /// Where the two groups are declared.
        locations: [String; 2],
    },
    /// A group exposes no tools.
    EmptyGroup {
        /// The group.
        group: String,
    },
    /// A group lists the same tool twice.
    DuplicateTool {
        /// The group.
        group: String,
        /// The repeated tool name.
        tool: String,
    },
    /// No valid context enables the group.
    UnreachableGroup {
        /// The group.
        group: String,
        /// Where it is declared.
        location: String,
        /// Why no context satisfies its rule.
        reason: String,
    },
    /// Two groups that a valid context enables together expose one tool
    /// name through two different definitions (one definition shared with
    /// `include` is one tool, and allowed).
    ToolCollision {
        /// The shared tool name.
        tool: String,
        /// The two groups, in registry order.
        groups: [String; 2],
        /// A context enabling both, in its JSON form.
        witness: String,
    },
    /// Two prompt groups (or two resource groups) share a name.
    DuplicateContentGroupName {
        /// `prompt` or `resource`.
        kind: &'static str,
        /// The shared name.
        name: String,
        /// Where the two groups are declared.
        locations: [String; 2],
    },
    /// No valid context enables the prompt (or resource) group.
    UnreachableContentGroup {
        /// `prompt` or `resource`.
        kind: &'static str,
        /// The group.
        group: String,
        /// Where it is declared.
        location: String,
        /// Why no context satisfies its rule.
        reason: String,
    },
    /// Two prompt groups that a valid context enables together expose one
    /// prompt name.
    PromptCollision {
        /// The shared prompt name.
        prompt: String,
        /// The two groups, in registry order.
        groups: [String; 2],
        /// A context enabling both, in its JSON form.
        witness: String,
    },
    /// Two resource groups that a valid context enables together serve one
    /// URI (or URI template).
    ResourceCollision {
        /// The shared URI or template.
        uri: String,
        /// The two groups, in registry order.
        groups: [String; 2],
        /// A context enabling both, in its JSON form.
        witness: String,
    },
    /// An allow list that breaks its own rules (`#[tool_group]` checks
    /// them at compile time; the registry still refuses rather than
    /// trusts).
    InvalidAllowList {
        /// The group it names.
        group: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::DuplicateGroupName { name, locations } => write!(
                f,
                "two tool groups are named `{name}` ({} and {}); give one of them \
                 `#[tool_group(name = \"...\")]`",
                locations[0], locations[1]
            ),
            RegistryError::EmptyGroup { group } => {
                write!(f, "tool group `{group}` exposes no tools")
            }
            RegistryError::DuplicateTool { group, tool } => {
                write!(f, "tool group `{group}` lists tool `{tool}` twice")
            }
            RegistryError::UnreachableGroup {
                group,
                location,
                reason,
            } => write!(
                f,
                "tool group `{group}` ({location}) can never be enabled: {reason}"
            ),
            RegistryError::ToolCollision {
                tool,
                groups,
                witness,
            } => write!(
                f,
                "tool `{tool}` is exposed by both `{}` and `{}`, which the context {witness} \
                 enables together, with two different definitions; let one group share the \
                 other's (`include(\"{}\": [\"{tool}\"])`) or rename one",
                groups[0], groups[1], groups[1]
            ),
            RegistryError::DuplicateContentGroupName {
                kind,
                name,
                locations,
            } => write!(
                f,
                "two {kind} groups are named `{name}` ({} and {}); give one of them \
                 `#[{kind}_group(name = \"...\")]`",
                locations[0], locations[1]
            ),
            RegistryError::UnreachableContentGroup {
                kind,
                group,
                location,
                reason,
            } => write!(
                f,
                "{kind} group `{group}` ({location}) can never be enabled: {reason}"
            ),
            RegistryError::PromptCollision {
                prompt,
                groups,
                witness,
            } => write!(
                f,
                "prompt `{prompt}` is exposed by both `{}` and `{}`, which the context \
                 {witness} enables together",
                groups[0], groups[1]
            ),
            RegistryError::ResourceCollision {
                uri,
                groups,
                witness,
            } => write!(
                f,
                "resource `{uri}` is served by both `{}` and `{}`, which the context \
                 {witness} enables together",
                groups[0], groups[1]
            ),
            RegistryError::InvalidAllowList { group, reason } => {
                write!(
                    f,
                    "the allow list of tool group `{group}` is invalid: {reason}"
                )
            }
        }
    }
}

/// Every invariant a registry broke, one per line when displayed.
pub type RegistryErrors = Errors<RegistryError>;
