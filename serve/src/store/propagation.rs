//! Whether a change is in force on every instance sharing a store:
//! [`AgentStore::propagated`](super::AgentStore::propagated).

/// What a change touched, as [`AgentStore::propagated`](super::AgentStore::propagated)
/// takes it: where to look for the instances' confirmations.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Changed<'a> {
    /// A principal's agent: its profile put, its catalog put, or the agent
    /// deleted.
    Agent(&'a str),
    /// A token granted or revoked (the token itself, never logged or kept).
    Token(&'a str),
    /// The operator's kill switch.
    KillSwitch,
}

/// How far a change has reached the instances sharing the store.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Propagation {
    /// How many instances confirmed that they apply the change, the one
    /// that made it included.
    pub applied: usize,
    /// The live instances that had not confirmed it when the wait ended,
    /// by name, sorted: each still serves what it served before the change
    /// until its feed reaches it. Empty: the change is in force on every
    /// instance that serves.
    pub pending: Vec<String>,
}

impl Propagation {
    /// `applied` instances confirmed the change (the one that made it
    /// included), and the live ones named in `pending` had not when the
    /// wait ended: what a backing of one's own answers
    /// [`AgentStore::propagated`](super::AgentStore::propagated) with.
    /// `pending` is kept sorted and without repeats.
    ///
    /// ```
    /// # use mcp_profiles_serve::Propagation;
    /// let propagation = Propagation::new(2, vec!["gw-3".into(), "gw-2".into()]);
    /// assert_eq!(propagation.pending, ["gw-2", "gw-3"]);
    /// assert!(!propagation.is_complete());
    /// ```
    pub fn new(applied: usize, mut pending: Vec<String>) -> Self {
        pending.sort();
        pending.dedup();
        Propagation { applied, pending }
    }

    /// In force on the one instance there is.
    pub fn here() -> Self {
        Propagation {
            applied: 1,
            pending: Vec::new(),
        }
    }

    /// Whether every instance that serves applies the change.
    pub fn is_complete(&self) -> bool {
        self.pending.is_empty()
    }
}
