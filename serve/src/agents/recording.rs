//! The in-memory store's recording: where its audit records and call
//! decisions go ([`AuditTrail`], [`DecisionTrail`]), the lock each recorded
//! change holds from its check to its making, and the application's own
//! changes held in order with them.

use std::sync::Arc;

use mcp_profiles::{ProfileContext, Replacement, Vocabulary};

use super::ProfileStore;
use crate::audit::{AuditTrail, DecisionTrail};
use crate::identity::{Principal, UnknownPrincipal};

impl<S: Vocabulary> ProfileStore<S> {
    /// This store, keeping the audit records of the changes made through
    /// its [`AgentStore`](crate::AgentStore) methods in `trail` (an
    /// application's own database, say) instead of in memory: each record
    /// is appended before its change is made, and a record `trail` refuses
    /// refuses the change (see [`AuditTrail`]).
    pub fn with_audit_trail(mut self, trail: Arc<dyn AuditTrail>) -> Self {
        self.trail = trail;
        self
    }

    /// Where the records of the changes made through this store's
    /// [`AgentStore`](crate::AgentStore) methods go.
    pub(crate) fn audit_trail(&self) -> &dyn AuditTrail {
        &*self.trail
    }

    /// This store, shipping the call decisions its
    /// [`decision log`](Self::with_decision_log) hears to `trail` (beside
    /// an [`AuditTrail`] of the application's) whenever
    /// [`AgentStore::decisions_written`](crate::AgentStore::decisions_written)
    /// is called, and reading them back from it (see [`DecisionTrail`]).
    pub fn with_decision_trail(mut self, trail: Arc<dyn DecisionTrail>) -> Self {
        self.decision_trail = Some(trail);
        self
    }

    /// Where the log's decisions are shipped, if anywhere.
    pub(crate) fn decision_trail(&self) -> Option<&dyn DecisionTrail> {
        self.decision_trail.as_deref()
    }

    /// The lock each recorded change holds from its check to its making.
    pub(crate) fn recording(&self) -> std::sync::MutexGuard<'_, ()> {
        self.recording.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `principal`'s agent as it stands (its context and version), and the
    /// version a put would give it.
    pub(crate) fn standing(&self, principal: &str) -> (Option<(ProfileContext<S>, u64)>, u64) {
        let removed = self.write_lock();
        let key = Principal::new(principal);
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        match agents.get(&key) {
            Some(agent) => {
                let context = *agent.controller.current().context();
                (Some((context, agent.version)), agent.version + 1)
            }
            None => (None, removed.get(&key).map_or(1, |last| last + 1)),
        }
    }

    /// An application's own change of `principal`'s agent (a route of its
    /// own, a change another process saved), in the order of the store's
    /// recorded changes: `change` is called with the agent's context while
    /// every change through the store's [`AgentStore`](crate::AgentStore)
    /// methods is held back; it makes and records the change in the
    /// application's terms (its own audit record, in its own transaction)
    /// and answers what to serve next (`None`: the profile stays), which is
    /// put in force, bumping the version, before any other change: the
    /// replacement, if any.
    ///
    /// # Errors
    ///
    /// `change`'s, or [`UnknownPrincipal`] (converted) if `principal` has
    /// no agent (`change` is not called).
    ///
    /// ```
    /// # mod server {
    /// #     #[derive(Clone)] pub struct Demo;
    /// #     impl rmcp::ServerHandler for Demo {}
    /// # }
    /// # use server::Demo;
    /// # mcp_profiles::vocabulary! {
    /// #     server Demo;
    /// #     #[surfaces] pub enum Surface { Ticket, Billing }
    /// #     #[capabilities] pub enum Capability {}
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// use mcp_profiles::ProfileContext;
    /// use mcp_profiles_serve::{ProfileStore, StoreError};
    ///
    /// let store = ProfileStore::<Demo>::default();
    /// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// let replaced = store.change_agent("alice", |current| {
    ///     assert_eq!(current.surface(), Surface::Ticket);
    ///     // ... save and record the application's change, then:
    ///     Ok::<_, StoreError>(Some(ProfileContext::new(Surface::Billing)))
    /// })?;
    /// assert!(replaced.is_some(), "the profile was replaced");
    /// assert_eq!(store.version("alice"), Some(2));
    /// # Ok::<(), StoreError>(())
    /// ```
    pub fn change_agent<E: From<UnknownPrincipal>>(
        &self,
        principal: &str,
        change: impl FnOnce(ProfileContext<S>) -> Result<Option<ProfileContext<S>>, E>,
    ) -> Result<Option<Replacement<S>>, E> {
        let _held = self.recording();
        let controller = self
            .controller(&Principal::new(principal))
            .ok_or_else(|| UnknownPrincipal::new(principal))?;
        let Some(next) = change(*controller.current().context())? else {
            return Ok(None);
        };
        match self.put_if(principal, next, None) {
            Ok((_, replacement, _)) => Ok(replacement),
            Err(_) => unreachable!("an unconditional put never conflicts"),
        }
    }

    /// Makes `principal`'s versions go on from `last`, the newest a trail
    /// the store keeps already holds (a single-agent server restarted over
    /// its own trail): an agent put for it next, through
    /// [`AgentStore::put_agent`](crate::AgentStore::put_agent) or
    /// [`add_agent`](Self::add_agent), is at version `last + 1` at least,
    /// so no version names two profiles. An agent it has already goes on
    /// from its own.
    pub fn resume_versions(&self, principal: &str, last: u64) {
        let mut removed = self.write_lock();
        let held = removed.entry(Principal::new(principal)).or_default();
        *held = (*held).max(last);
    }
}
