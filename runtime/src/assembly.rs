//! Assembly: a context in, a [`Profile`] out.
//!
//! The enabled groups are a bit set over registry indices; their tools,
//! sorted by name, are the profile. The registry only computes; sharing one
//! tool set per distinct group set is the serving layer's job
//! (`snapshot.rs`).

use std::fmt;
use std::sync::Arc;

use mcp_profiles_rules::BitSet;

use crate::sorted;
use crate::{Decision, Group, ProfileContext, Registry, Vocabulary};

/// The sorted tools of one set of enabled groups; shared, never mutated.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ToolSet {
    /// Names of the enabled groups, in registry (name) order.
    pub groups: Box<[Arc<str>]>,
    /// Every tool name of those groups, sorted.
    pub tools: Box<[&'static str]>,
    /// Where each tool of `tools` comes from: (group index, tool index).
    pub origins: Box<[(usize, usize)]>,
}

/// The tools one context can reach: the enabled groups and their tools.
///
/// Profiles a server assembled from the same enabled groups share one tool
/// list; comparing them is a pointer comparison first.
///
/// ```
/// # mod server { #[derive(Clone)] pub struct Demo; }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability { Refund }
/// #     #[providers] pub enum Provider {}
/// # }
/// # use rmcp::{ErrorData, model::CallToolResult, tool};
/// # #[mcp_profiles::tool_group(name = "tickets", surface = "ticket")]
/// # impl Demo {
/// #     #[tool(description = "List tickets")]
/// #     async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> { todo!() }
/// # }
/// #[mcp_profiles::tool_group(name = "refunds", capability = "refund")]
/// impl Demo {
///     #[tool(description = "Refund the order")]
///     async fn issue_refund(&self) -> Result<CallToolResult, ErrorData> {
///         Ok(CallToolResult::success(vec![]))
///     }
/// }
///
/// use mcp_profiles::{ProfileContext, Vocabulary};
///
/// let registry = Demo::registry();
/// let plain = registry.assemble(&ProfileContext::new(Surface::Ticket));
/// let refunding = registry.assemble(
///     &ProfileContext::new(Surface::Ticket).with_capability(Capability::Refund)?,
/// );
/// assert_eq!(plain.tool_names(), ["list_tickets"]);
/// assert_eq!(refunding.tool_names(), ["issue_refund", "list_tickets"]);
/// let diff = plain.diff(&refunding);
/// assert_eq!((diff.added, diff.removed), (vec!["issue_refund"], vec![]));
/// # Ok::<(), mcp_profiles::ContextError>(())
/// ```
pub struct Profile<S: Vocabulary> {
    context: ProfileContext<S>,
    set: Arc<ToolSet>,
}

impl<S: Vocabulary> Clone for Profile<S> {
    fn clone(&self) -> Self {
        Profile {
            context: self.context,
            set: Arc::clone(&self.set),
        }
    }
}

impl<S: Vocabulary> fmt::Debug for Profile<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Profile")
            .field("context", &self.context)
            .field("groups", &self.set.groups)
            .field("tools", &self.set.tools)
            .finish()
    }
}

/// Tools gained and lost between two profiles, each list sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolDiff {
    /// In the new profile only.
    pub added: Vec<&'static str>,
    /// In the old profile only.
    pub removed: Vec<&'static str>,
}

impl ToolDiff {
    /// Whether the two tool sets are equal.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }
}

impl<S: Vocabulary> Profile<S> {
    /// The context this profile was assembled from.
    pub fn context(&self) -> &ProfileContext<S> {
        &self.context
    }

    /// Names of the enabled groups, in registry order.
    pub fn groups(&self) -> impl ExactSizeIterator<Item = &str> {
        self.set.groups.iter().map(|name| &**name)
    }

    /// Every tool name, sorted.
    pub fn tool_names(&self) -> &[&'static str] {
        &self.set.tools
    }

    /// Whether the profile exposes `tool`.
    pub fn contains(&self, tool: &str) -> bool {
        self.set.tools.binary_search(&tool).is_ok()
    }

    /// Whether both profiles expose exactly the same tools; a replacement
    /// between such profiles changes nothing a client can see.
    pub fn same_tools(&self, other: &Profile<S>) -> bool {
        Arc::ptr_eq(&self.set, &other.set) || self.set.tools == other.set.tools
    }

    pub(crate) fn new(context: ProfileContext<S>, set: Arc<ToolSet>) -> Self {
        Profile { context, set }
    }

    /// What a change from `self` to `new` adds and removes.
    pub fn diff(&self, new: &Profile<S>) -> ToolDiff {
        let (old, new) = (&self.set.tools, &new.set.tools);
        let (added, removed) =
            sorted::added_removed(old.iter().copied(), new.iter().copied(), Ord::cmp);
        ToolDiff { added, removed }
    }
}

/// Which groups of a registry one context enables: a bit set over registry
/// indices. Equal sets give equal tool sets, so serving layers key their
/// shared snapshots by it.
pub(crate) type GroupSet = BitSet;

impl<S: Vocabulary> Registry<S> {
    /// Assembles the profile of `context`: its enabled groups and tools.
    ///
    /// Deterministic: tools are sorted by name, and the order in which a
    /// context's capabilities or providers were added cannot matter because
    /// a context stores them as sets. The registry keeps nothing: a server
    /// shares one tool list per distinct set of enabled groups itself.
    pub fn assemble(&self, context: &ProfileContext<S>) -> Profile<S> {
        Profile::new(
            *context,
            Arc::new(self.tool_set(&self.enabled_groups(context))),
        )
    }

    /// The groups `context` enables.
    pub(crate) fn enabled_groups(&self, context: &ProfileContext<S>) -> GroupSet {
        let (bits, groups) = (context.bits(), self.groups());
        BitSet::from_fn(groups.len(), |index| {
            groups[index].rule().masks().matches(&bits)
        })
    }

    /// The sorted tools of the `enabled` groups.
    pub(crate) fn tool_set(&self, enabled: &GroupSet) -> ToolSet {
        let enabled_groups = || {
            self.groups()
                .iter()
                .enumerate()
                .filter(|(index, _)| enabled.contains(*index))
        };
        let mut tools: Vec<(&'static str, (usize, usize))> = enabled_groups()
            .flat_map(|(group_index, group)| {
                group
                    .tools()
                    .iter()
                    .enumerate()
                    .map(move |(tool_index, name)| (*name, (group_index, tool_index)))
            })
            .collect();
        tools.sort_unstable();
        // Verification rules out two co-enabled groups sharing a tool name.
        tools.dedup_by_key(|(name, _)| *name);
        ToolSet {
            groups: enabled_groups()
                .map(|(_, group)| Arc::clone(group.shared_name()))
                .collect(),
            tools: tools.iter().map(|(name, _)| *name).collect(),
            origins: tools.iter().map(|(_, origin)| *origin).collect(),
        }
    }

    /// Explains `context`: every group, on or off, with the deciding condition.
    pub fn explain(&self, context: &ProfileContext<S>) -> Explanation<'_, S> {
        Explanation {
            context: *context,
            rows: self
                .groups()
                .iter()
                .map(|group| (group, group.rule().decide(context)))
                .collect(),
        }
    }
}

/// Every group of a registry, on or off for one context, and why.
///
/// Displays as one aligned line per group:
///
/// ```text
/// on   jira     surface(ticket) & provider(jira)  every condition holds
/// off  refunds  capability(refund)                capability refund is absent
/// ```
pub struct Explanation<'r, S: Vocabulary> {
    context: ProfileContext<S>,
    rows: Vec<(&'r Group<S>, Decision<S>)>,
}

impl<S: Vocabulary> std::fmt::Debug for Explanation<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Explanation")
            .field("context", &self.context)
            .field("groups", &self.rows.len())
            .finish_non_exhaustive()
    }
}

impl<'r, S: Vocabulary> Explanation<'r, S> {
    /// The explained context.
    pub fn context(&self) -> &ProfileContext<S> {
        &self.context
    }

    /// Each group with its decision, in registry order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = (&'r Group<S>, Decision<S>)> + '_ {
        self.rows.iter().copied()
    }
}

impl<S: Vocabulary> fmt::Display for Explanation<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rules: Vec<String> = self
            .rows
            .iter()
            .map(|(g, _)| g.rule().to_string())
            .collect();
        let name_width = self.rows.iter().map(|(g, _)| g.name().len()).max();
        let rule_width = rules.iter().map(String::len).max();
        for ((group, decision), rule) in self.rows.iter().zip(&rules) {
            let state = if decision.is_enabled() { "on" } else { "off" };
            writeln!(
                f,
                "{state:<4} {name:<nw$}  {rule:<rw$}  {decision}",
                name = group.name(),
                nw = name_width.unwrap_or(0),
                rw = rule_width.unwrap_or(0),
            )?;
        }
        Ok(())
    }
}
