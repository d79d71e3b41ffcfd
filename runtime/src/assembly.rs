//! Assembly: a context in, a [`Profile`] out.
//!
//! The enabled groups are a bit set over registry indices; their tools,
//! sorted by name, less what the context's policy (and, for a controller,
//! the operator's kill switch) removes, are the profile. The registry only
//! computes; sharing one tool set per distinct visible set is the serving
//! layer's job (`snapshot.rs`).

use std::fmt;
use std::sync::Arc;

use mcp_profiles_rules::BitSet;

use crate::policy::Hints;
use crate::sorted;
use crate::{
    AllowLists, Decision, DenyList, Group, Policy, ProfileContext, Registry, Restriction,
    Restrictions, Vocabulary,
};

/// The sorted tools of one set of enabled groups, maybe less some removed
/// by restrictions; shared, never mutated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ToolSet {
    /// Names of the enabled groups, in registry (name) order.
    pub groups: Box<[Arc<str>]>,
    /// Every tool name of those groups, sorted.
    pub tools: Box<[&'static str]>,
    /// Where each tool of `tools` comes from: (group index, tool index),
    /// the first enabled group exposing it in registry order.
    pub origins: Box<[(usize, usize)]>,
    /// The further exposures of a tool several enabled groups share (one
    /// definition, so the same route), by position in `tools`, sorted:
    /// group-scoped restrictions judge every exposure.
    pub also: Box<[(usize, (usize, usize))]>,
}

/// The tools one context can reach: the enabled groups and their tools,
/// less those the context's [`Policy`] and allow lists remove.
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

    /// Names of the enabled groups, in registry order; a group stays
    /// enabled when a policy removes all its tools.
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

    /// Where each tool comes from: (group index, tool index), in name order.
    pub(crate) fn origins(&self) -> &[(usize, usize)] {
        &self.set.origins
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
    /// Assembles the profile of `context`: its enabled groups and their
    /// tools, less those its [`Policy`] removes (read from each compiled
    /// tool's annotations and name, and its group's name) and those of a
    /// group's allow-list universe its allow list leaves out.
    ///
    /// Deterministic: tools are sorted by name, and the order in which a
    /// context's capabilities or providers were added cannot matter because
    /// a context stores them as sets. The registry keeps nothing: a server
    /// shares one tool list per distinct visible set itself.
    pub fn assemble(&self, context: &ProfileContext<S>) -> Profile<S> {
        let full = self.tool_set(&self.enabled_groups(context));
        let removed = self.restrictions(
            &full,
            context.policy(),
            context.allow_lists(),
            DenyList::empty(),
        );
        Profile::new(*context, Arc::new(full.without(&removed)))
    }

    /// What `policy`, the `allow` lists (and the defaults of the groups
    /// they leave alone) and the operator's `killed` list hold against
    /// each tool of `set`: the restricted ones only, by position in `set`.
    pub(crate) fn restrictions(
        &self,
        set: &ToolSet,
        policy: Policy<S>,
        allow: AllowLists<S>,
        killed: DenyList<S>,
    ) -> Vec<(usize, Restrictions)> {
        if policy.is_empty() && killed.is_empty() && !self.allowing() {
            return Vec::new();
        }
        // Annotations cost a build of the group's routes: read them only
        // when the policy asks about them.
        let by_annotations = policy.read_only() || policy.no_destructive();
        let groups = self.groups();
        let judge = |(group, tool): (usize, usize), name: &str| {
            let group = &groups[group];
            let hints = if by_annotations {
                group.hints()[tool]
            } else {
                Hints::default()
            };
            let mut found = policy.judge(killed, name, Some(group.name()), hints);
            if let Some(spec) = group.allow_spec() {
                let list = allow.get(spec.group).unwrap_or(spec.default);
                if !spec.keeps(list, name) {
                    found = found.with(Restriction::NotAllowed);
                }
            }
            found
        };
        set.origins
            .iter()
            .zip(&set.tools)
            .enumerate()
            .filter_map(|(position, (&origin, name))| {
                let found = judge(origin, name);
                // A tool shared by several enabled groups stays if any of
                // them keeps it: denying one group does not take away what
                // another grants.
                let kept_elsewhere = || {
                    set.also_of(position)
                        .any(|origin| judge(origin, name).is_empty())
                };
                (!found.is_empty() && !kept_elsewhere()).then_some((position, found))
            })
            .collect()
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
        // Verification leaves two co-enabled groups sharing a name only
        // when they share its definition: one tool, several exposures.
        let mut also = Vec::new();
        let mut unique: Vec<(&'static str, (usize, usize))> = Vec::with_capacity(tools.len());
        for (name, origin) in tools {
            match unique.last() {
                Some((last, _)) if *last == name => also.push((unique.len() - 1, origin)),
                _ => unique.push((name, origin)),
            }
        }
        ToolSet {
            groups: enabled_groups()
                .map(|(_, group)| Arc::clone(group.shared_name()))
                .collect(),
            tools: unique.iter().map(|(name, _)| *name).collect(),
            origins: unique.iter().map(|(_, origin)| *origin).collect(),
            also: also.into(),
        }
    }

    /// Explains `context`: every group, on or off, with the deciding
    /// condition, and every tool of the enabled groups that its policy or
    /// an allow list removes, with each part of the policy (or the allow
    /// list) that removes it.
    pub fn explain(&self, context: &ProfileContext<S>) -> Explanation<'_, S> {
        self.explain_under(context, DenyList::empty())
    }

    /// [`explain`](Self::explain), with the operator's `killed` list too.
    pub(crate) fn explain_under(
        &self,
        context: &ProfileContext<S>,
        killed: DenyList<S>,
    ) -> Explanation<'_, S> {
        let full = self.tool_set(&self.enabled_groups(context));
        let restricted = self.restrictions(&full, context.policy(), context.allow_lists(), killed);
        let removed = restricted
            .iter()
            .map(|&(position, restrictions)| RemovedTool {
                tool: full.tools[position],
                group: self.groups()[full.origins[position].0].name(),
                restrictions,
            })
            .collect();
        Explanation {
            context: *context,
            rows: self
                .groups()
                .iter()
                .map(|group| (group, group.rule().decide(context)))
                .collect(),
            removed,
            registry: self,
            visible: full.without(&restricted).origins,
        }
    }
}

impl ToolSet {
    /// This set without the tools at the `removed` positions.
    pub(crate) fn without(self, removed: &[(usize, Restrictions)]) -> ToolSet {
        if removed.is_empty() {
            return self;
        }
        let mut removed = removed.iter().map(|(position, _)| *position).peekable();
        let mut kept = Vec::with_capacity(self.tools.len());
        for position in 0..self.tools.len() {
            if removed.next_if_eq(&position).is_none() {
                kept.push(position);
            }
        }
        let also = self
            .also
            .iter()
            .filter_map(|(position, origin)| {
                let at = kept.binary_search(position).ok()?;
                Some((at, *origin))
            })
            .collect();
        ToolSet {
            groups: self.groups,
            tools: kept.iter().map(|&position| self.tools[position]).collect(),
            origins: kept
                .iter()
                .map(|&position| self.origins[position])
                .collect(),
            also,
        }
    }

    /// The further exposures of the tool at `position`.
    pub(crate) fn also_of(&self, position: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let start = self.also.partition_point(|(at, _)| *at < position);
        self.also[start..]
            .iter()
            .take_while(move |(at, _)| *at == position)
            .map(|(_, origin)| *origin)
    }
}

/// A tool of an enabled group that a restriction removed, and every
/// restriction that holds against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemovedTool<'r> {
    tool: &'static str,
    group: &'r str,
    restrictions: Restrictions,
}

impl<'r> RemovedTool<'r> {
    /// The tool's name.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The enabled group it comes from.
    pub fn group(&self) -> &'r str {
        self.group
    }

    /// Why it was removed: each part of the policy (and of the operator's
    /// kill switch) that removes it.
    pub fn restrictions(&self) -> Restrictions {
        self.restrictions
    }
}

/// Every group of a registry, on or off for one context, and why; then
/// every tool of an enabled group that a restriction removed, and which.
///
/// Displays as one aligned line per group, and one per removed tool:
///
/// ```text
/// on   jira     surface(ticket) & provider(jira)  every condition holds
/// off  refunds  capability(refund)                capability refund is absent
/// removed  close_issue  (jira)  read-only policy (readOnlyHint is not true)
/// ```
pub struct Explanation<'r, S: Vocabulary> {
    context: ProfileContext<S>,
    rows: Vec<(&'r Group<S>, Decision<S>)>,
    removed: Vec<RemovedTool<'r>>,
    /// The registry explaining, for [`cost`](Self::cost).
    registry: &'r Registry<S>,
    /// Where each tool left after the restrictions comes from, in name
    /// order.
    visible: Box<[(usize, usize)]>,
}

impl<S: Vocabulary> std::fmt::Debug for Explanation<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Explanation")
            .field("context", &self.context)
            .field("groups", &self.rows.len())
            .field("removed", &self.removed)
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

    /// Each tool of an enabled group that a restriction removed, sorted by
    /// name, with why.
    pub fn removed(&self) -> &[RemovedTool<'r>] {
        &self.removed
    }

    pub(crate) fn registry(&self) -> &'r Registry<S> {
        self.registry
    }

    /// Where each tool the context lists comes from, in name order.
    pub(crate) fn visible(&self) -> &[(usize, usize)] {
        &self.visible
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
        let tool_width = self.removed.iter().map(|r| r.tool.len()).max();
        let group_width = self.removed.iter().map(|r| r.group.len() + 2).max();
        for removed in &self.removed {
            writeln!(
                f,
                "removed  {tool:<tw$}  {group:<gw$}  {restrictions}",
                tool = removed.tool,
                group = format!("({})", removed.group),
                tw = tool_width.unwrap_or(0),
                gw = group_width.unwrap_or(0),
                restrictions = removed.restrictions,
            )?;
        }
        Ok(())
    }
}
