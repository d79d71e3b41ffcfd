//! Policies and the kill switch's deny list: restrictions that only ever
//! remove tools, applied after the groups are assembled.
//!
//! A [`Policy`] travels in the [`ProfileContext`](crate::ProfileContext),
//! owned by the backend like the rest of it; the operator's kill switch
//! ([`KillSwitch`](crate::KillSwitch)) holds one more [`DenyList`] over every
//! profile of its controllers. Neither can add a tool, so the registry's
//! exact verification of the groups covers every restricted profile too.

mod intern;
mod json;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use rmcp::model::ToolAnnotations;

use crate::{Clipped, Vocabulary};

/// Tool and tool group names a policy or the operator's kill switch denies:
/// every tool with one of these names, and every tool of a group with one
/// of them, is removed.
///
/// A list is sorted and duplicate-free, and holds only names the registry
/// declares (a compiled tool's or a group's); a name that is both denies
/// both. It is `Copy`: the list is interned for the life of the process,
/// like snapshots, so equality and hashing are a pointer comparison.
///
/// ```
/// # mod server { #[derive(Clone)] pub struct Desk; }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// # use rmcp::{ErrorData, model::CallToolResult, tool};
/// #[mcp_profiles::tool_group(name = "tickets", surface = "ticket")]
/// impl Desk {
///     #[tool(description = "Close the ticket")]
///     async fn close_ticket(&self) -> Result<CallToolResult, ErrorData> { todo!() }
/// }
///
/// use mcp_profiles::DenyList;
///
/// let deny = DenyList::<Desk>::new(["close_ticket", "tickets"])?;
/// assert_eq!(deny.names(), ["close_ticket", "tickets"]);
/// let err = DenyList::<Desk>::new(["close_tikcet"]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unknown tool or tool group `close_tikcet`; did you mean `close_ticket`?"
/// );
/// # Ok::<(), mcp_profiles::PolicyError>(())
/// ```
pub struct DenyList<S: Vocabulary> {
    /// Sorted, duplicate-free, interned: equal lists are the same slice.
    names: &'static [&'static str],
    vocabulary: PhantomData<fn() -> S>,
}

impl<S: Vocabulary> DenyList<S> {
    /// The empty list: denies nothing.
    pub const fn empty() -> Self {
        DenyList {
            names: &[],
            vocabulary: PhantomData,
        }
    }

    /// A list of `names`, each a tool or tool group of `S`'s registry;
    /// see [`Registry::deny_list`](crate::Registry::deny_list).
    ///
    /// # Panics
    ///
    /// If `S`'s linked tool groups fail verification (see
    /// [`Vocabulary::registry`]).
    pub fn new<N: AsRef<str>>(names: impl IntoIterator<Item = N>) -> Result<Self, PolicyError> {
        S::registry().deny_list(names)
    }

    /// The names, sorted.
    pub fn names(&self) -> &'static [&'static str] {
        self.names
    }

    /// Whether the list names `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.names.binary_search(&name).is_ok()
    }

    /// Whether the list denies nothing.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// A list of names already checked, sorted and deduplicated.
    pub(crate) fn interned(names: &[&str]) -> Self {
        DenyList {
            names: intern::intern(names),
            vocabulary: PhantomData,
        }
    }
}

impl<S: Vocabulary> Default for DenyList<S> {
    fn default() -> Self {
        Self::empty()
    }
}

impl<S: Vocabulary> Clone for DenyList<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for DenyList<S> {}

impl<S: Vocabulary> PartialEq for DenyList<S> {
    fn eq(&self, other: &Self) -> bool {
        // Interned: equal non-empty lists are one slice. Empty slices may
        // have any address, so they compare by length alone.
        self.names.len() == other.names.len()
            && (self.names.is_empty() || std::ptr::eq(self.names, other.names))
    }
}

impl<S: Vocabulary> Eq for DenyList<S> {}

impl<S: Vocabulary> Hash for DenyList<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let address = if self.names.is_empty() {
            0
        } else {
            self.names.as_ptr() as usize
        };
        address.hash(state);
    }
}

impl<S: Vocabulary> fmt::Debug for DenyList<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names).finish()
    }
}

/// `delete_task, review`
impl<S: Vocabulary> fmt::Display for DenyList<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names.join(", "))
    }
}

/// A deny list that could not be built or decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyError {
    /// A name that is neither a compiled tool's nor a tool group's.
    UnknownName {
        /// The name given.
        name: String,
        /// The closest declared name, if one is close enough to be meant.
        suggestion: Option<String>,
    },
    /// A name given twice.
    Duplicate {
        /// The repeated name.
        name: String,
    },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::UnknownName { name, suggestion } => {
                write!(f, "unknown tool or tool group `{}`; ", Clipped(name))?;
                match suggestion {
                    Some(suggestion) => write!(f, "did you mean `{suggestion}`?"),
                    None => f.write_str("no tool or tool group of the server has that name"),
                }
            }
            PolicyError::Duplicate { name } => write!(f, "`{}` is listed twice", Clipped(name)),
        }
    }
}

impl std::error::Error for PolicyError {}

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

/// What a tool's annotations say, as far as policies ask: MCP's defaults
/// (`readOnlyHint` false, `destructiveHint` true) for what they leave out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hints {
    /// `readOnlyHint: true`.
    pub read_only: bool,
    /// Read-only, or `destructiveHint: false`.
    pub non_destructive: bool,
}

impl Hints {
    /// The hints of a tool's annotations (`None`: it has none).
    pub fn of(annotations: Option<&ToolAnnotations>) -> Self {
        let read_only = annotations.and_then(|a| a.read_only_hint) == Some(true);
        let additive = annotations.and_then(|a| a.destructive_hint) == Some(false);
        Hints {
            read_only,
            non_destructive: read_only || additive,
        }
    }
}

/// One reason a tool the groups enable is not served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Restriction {
    /// The policy is read-only and the tool's `readOnlyHint` is not true.
    ReadOnly,
    /// The policy is no-destructive and the tool may be destructive.
    NoDestructive,
    /// The policy's deny list names the tool.
    DeniedTool,
    /// The policy's deny list names the tool's group.
    DeniedGroup,
    /// The operator's kill switch names the tool.
    KilledTool,
    /// The operator's kill switch names the tool's group.
    KilledGroup,
}

impl Restriction {
    const ALL: [Restriction; 6] = [
        Restriction::ReadOnly,
        Restriction::NoDestructive,
        Restriction::DeniedTool,
        Restriction::DeniedGroup,
        Restriction::KilledTool,
        Restriction::KilledGroup,
    ];

    /// Whether this is the operator's kill switch rather than the policy.
    pub fn is_operator(self) -> bool {
        matches!(self, Restriction::KilledTool | Restriction::KilledGroup)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Restriction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Restriction::ReadOnly => "read-only policy (readOnlyHint is not true)",
            Restriction::NoDestructive => {
                "no-destructive policy (destructiveHint is true or absent)"
            }
            Restriction::DeniedTool => "denied by name",
            Restriction::DeniedGroup => "its group is denied",
            Restriction::KilledTool => "disabled by the operator",
            Restriction::KilledGroup => "its group is disabled by the operator",
        })
    }
}

/// The set of [`Restriction`]s that hold against one tool.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Restrictions(u8);

impl Restrictions {
    /// No restriction: the tool is served.
    pub const NONE: Restrictions = Restrictions(0);

    /// The set with `restriction` added.
    #[must_use]
    pub fn with(self, restriction: Restriction) -> Self {
        Restrictions(self.0 | restriction.bit())
    }

    /// Whether `restriction` holds.
    pub fn contains(self, restriction: Restriction) -> bool {
        self.0 & restriction.bit() != 0
    }

    /// Whether none holds.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether only the operator's kill switch removes the tool: the
    /// profile would serve it otherwise.
    pub fn only_operator(self) -> bool {
        !self.is_empty() && self.iter().all(Restriction::is_operator)
    }

    /// Each restriction that holds, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = Restriction> {
        Restriction::ALL
            .into_iter()
            .filter(move |restriction| self.contains(*restriction))
    }
}

impl fmt::Debug for Restrictions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// `read-only policy (readOnlyHint is not true); denied by name`
impl fmt::Display for Restrictions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for restriction in self.iter() {
            if !first {
                f.write_str("; ")?;
            }
            first = false;
            write!(f, "{restriction}")?;
        }
        Ok(())
    }
}
