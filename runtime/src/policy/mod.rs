//! Policies, allow lists (of groups, and the runtime allow list) and the
//! kill switch's deny list: restrictions that only ever remove tools,
//! applied after the groups are assembled (or, for runtime tools, when
//! they are judged).
//!
//! A [`Policy`] travels in the [`ProfileContext`](crate::ProfileContext),
//! owned by the backend like the rest of it; the operator's kill switch
//! ([`KillSwitch`](crate::KillSwitch)) holds one more [`DenyList`] over every
//! profile of its controllers. Neither can add a tool, so the registry's
//! exact verification of the groups covers every restricted profile too.

mod allow;
mod deny;
mod intern;
mod json;
mod restriction;
mod runtime_allow;

pub use allow::{AllowError, AllowLists, AllowSpec};
pub use deny::{DenyList, PolicyError};
pub(crate) use restriction::Hints;
pub use restriction::{Restriction, Restrictions};
pub(crate) use runtime_allow::RuntimeAllowList;

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::Vocabulary;

/// What a profile may not reach, whatever its groups enable: the
/// backend's restrictions, carried by the context.
///
/// - `read_only`: only tools whose annotations say `readOnlyHint: true`;
/// - `no_destructive`: no tool that may be destructive, that is, whose
///   `readOnlyHint` is not true and whose `destructiveHint` is true or
///   absent (MCP's default for it is true);
/// - `deny`: no tool named in the list, and no tool of a group named in it.
///
/// A tool without annotations is therefore neither read-only nor
/// non-destructive. A policy only removes tools; the default removes
/// none. Its JSON form is the context's `"policy"` field, e.g.
/// `{"read_only":true,"deny":["delete_task"]}`, each field optional.
pub struct Policy<S: Vocabulary> {
    read_only: bool,
    no_destructive: bool,
    deny: DenyList<S>,
}

impl<S: Vocabulary> Policy<S> {
    /// The policy that removes nothing.
    pub const fn none() -> Self {
        Policy {
            read_only: false,
            no_destructive: false,
            deny: DenyList::empty(),
        }
    }

    /// The same policy, keeping only read-only tools (or not).
    #[must_use]
    pub fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// The same policy, removing tools that may be destructive (or not).
    #[must_use]
    pub fn with_no_destructive(mut self, no_destructive: bool) -> Self {
        self.no_destructive = no_destructive;
        self
    }

    /// The same policy with `deny` as its deny list.
    #[must_use]
    pub fn with_deny(mut self, deny: DenyList<S>) -> Self {
        self.deny = deny;
        self
    }

    /// Whether only read-only tools are kept.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Whether tools that may be destructive are removed.
    pub fn no_destructive(&self) -> bool {
        self.no_destructive
    }

    /// The denied tool and group names.
    pub fn deny(&self) -> DenyList<S> {
        self.deny
    }

    /// Whether the policy removes nothing.
    pub fn is_empty(&self) -> bool {
        !self.read_only && !self.no_destructive && self.deny.is_empty()
    }

    /// What this policy and the operator's `killed` list hold against a
    /// tool called `tool`, of group `group` (none for a runtime tool), with
    /// annotations `hints`.
    pub(crate) fn judge(
        &self,
        killed: DenyList<S>,
        tool: &str,
        group: Option<&str>,
        hints: Hints,
    ) -> Restrictions {
        let in_group = |list: DenyList<S>| group.is_some_and(|group| list.contains(group));
        let mut found = Restrictions::NONE;
        for (holds, restriction) in [
            (self.read_only && !hints.read_only, Restriction::ReadOnly),
            (
                self.no_destructive && !hints.non_destructive,
                Restriction::NoDestructive,
            ),
            (self.deny.contains(tool), Restriction::DeniedTool),
            (in_group(self.deny), Restriction::DeniedGroup),
            (killed.contains(tool), Restriction::KilledTool),
            (in_group(killed), Restriction::KilledGroup),
        ] {
            if holds {
                found = found.with(restriction);
            }
        }
        found
    }
}

impl<S: Vocabulary> Default for Policy<S> {
    fn default() -> Self {
        Self::none()
    }
}

impl<S: Vocabulary> Clone for Policy<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for Policy<S> {}

impl<S: Vocabulary> PartialEq for Policy<S> {
    fn eq(&self, other: &Self) -> bool {
        (self.read_only, self.no_destructive, self.deny)
            == (other.read_only, other.no_destructive, other.deny)
    }
}

impl<S: Vocabulary> Eq for Policy<S> {}

impl<S: Vocabulary> Hash for Policy<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.read_only, self.no_destructive, self.deny).hash(state);
    }
}

impl<S: Vocabulary> fmt::Debug for Policy<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policy")
            .field("read_only", &self.read_only)
            .field("no_destructive", &self.no_destructive)
            .field("deny", &self.deny)
            .finish()
    }
}

/// `read-only, no-destructive, deny: delete_task, review`, or `none`.
impl<S: Vocabulary> fmt::Display for Policy<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if self.read_only {
            parts.push("read-only".to_owned());
        }
        if self.no_destructive {
            parts.push("no-destructive".to_owned());
        }
        if !self.deny.is_empty() {
            parts.push(format!("deny: {}", self.deny));
        }
        if parts.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}
