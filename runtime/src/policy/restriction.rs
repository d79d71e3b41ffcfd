//! What restricts a tool: the annotation hints policies read, and the
//! reasons (`Restriction`) a policy, an allow list or the kill switch
//! removed a tool for.

use std::fmt;

use rmcp::model::ToolAnnotations;

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
    /// The tool is in its group's allow-list universe but not in the
    /// context's allow list for the group (or the group's default); or,
    /// for a runtime tool, the context's runtime allow list does not name
    /// it.
    NotAllowed,
}

impl Restriction {
    const ALL: [Restriction; 7] = [
        Restriction::ReadOnly,
        Restriction::NoDestructive,
        Restriction::DeniedTool,
        Restriction::DeniedGroup,
        Restriction::KilledTool,
        Restriction::KilledGroup,
        Restriction::NotAllowed,
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
            Restriction::NotAllowed => "not in its group's allow list",
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
