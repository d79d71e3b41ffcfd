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
    /// Tool groups include each other in a cycle (a group including
    /// itself is one of one): MCP's grouping extension nests a group in
    /// each group that includes it, and no group may contain itself.
    GroupCycle {
        /// The groups around the cycle, the first again at the end.
        groups: Vec<String>,
    },
    /// The vocabulary declares its capabilities additive, but adding one
    /// (or a provider) to a valid context removes a tool.
    NotAdditive {
        /// The context, in its JSON form.
        context: String,
        /// What was added: `capability x` or `provider y`.
        added: String,
        /// A tool the context serves and the wider one does not.
        tool: String,
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
    /// A surface's costliest context lists more o200k_base tokens than the
    /// budget its vocabulary declares (`Registry::verify_budgets`,
    /// feature `tokens`).
    OverBudget {
        /// The surface.
        surface: String,
        /// Its budget, in tokens.
        budget: usize,
        /// What its costliest context lists, in tokens.
        tokens: usize,
        /// The same, in bytes of the `tools` array.
        bytes: usize,
        /// How many tools that is.
        tools: usize,
        /// The costliest context, in its JSON form.
        context: String,
        /// Its largest tools, with their tokens, most first.
        largest: Vec<(String, usize)>,
    },
    /// A surface's budget cannot be checked exactly, so it is refused
    /// rather than passed unchecked.
    BudgetUnchecked {
        /// The surface.
        surface: String,
        /// Why.
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
            RegistryError::GroupCycle { groups } => write!(
                f,
                "tool groups include each other in a cycle ({}): a group nests in each \
                 group that includes it, and none may contain itself",
                groups.join(" → ")
            ),
            RegistryError::NotAdditive {
                context,
                added,
                tool,
            } => write!(
                f,
                "the vocabulary declares its capabilities additive, but adding {added} to \
                 {context} removes tool `{tool}`"
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
            RegistryError::OverBudget {
                surface,
                budget,
                tokens,
                bytes,
                tools,
                context,
                largest,
            } => {
                let largest: Vec<String> = largest
                    .iter()
                    .map(|(tool, tokens)| format!("{tool} ({tokens})"))
                    .collect();
                write!(
                    f,
                    "surface `{surface}` is over its budget of {budget} tokens: the context \
                     {context} lists {tools} tools in {tokens} o200k_base tokens ({bytes} bytes), \
                     {over} over; its largest tools: {}. Trim their descriptions or schemas, move \
                     tools to groups that context does not enable, or raise \
                     `#[budget(tokens = ...)]` on the surface",
                    largest.join(", "),
                    over = tokens - budget,
                )
            }
            RegistryError::BudgetUnchecked { surface, reason } => write!(
                f,
                "the token budget of surface `{surface}` cannot be checked: {reason}; remove its \
                 `#[budget(...)]` or declare fewer exclusive capabilities"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

/// Every invariant a registry broke, one per line when displayed.
pub type RegistryErrors = Errors<RegistryError>;
