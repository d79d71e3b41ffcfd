//! The in-memory store ([`MemoryStore`]): the [`AgentStore`] of one
//! process, over the [`ProfileStore`] it serves from.
//!
//! Versions are counted per principal from 1 and never repeated (a removal
//! counts as one, as in Redis). Each change is checked, its audit record
//! appended to the store's [`AuditTrail`] and only then made, with every
//! other recorded change held back: records come in the order of the
//! changes, and a record the trail refuses refuses its change.

mod writes;

use std::sync::{Arc, Mutex, MutexGuard};

use mcp_profiles::{ProfileContext, Replacement, Vocabulary};

use super::{StoreError, Written};
use crate::ProfileStore;
use crate::audit::{AuditEntry, AuditTrail, DecisionTrail, MemoryAuditLog};
use crate::identity::UnknownPrincipal;

/// A change checked and recorded: how to make it.
type Making<'a, T> = Box<dyn FnOnce() -> Result<T, StoreError> + 'a>;

/// The in-memory [`AgentStore`](crate::AgentStore): agents, tokens and the
/// kill switch of one process, each change recorded in an
/// [`AuditTrail`] (in memory by default, or an application's own
/// database) and put in force on the [`ProfileStore`] its routers serve.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use mcp_profiles::ProfileContext;
/// use mcp_profiles_serve::audit::Attribution;
/// use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore};
/// use std::sync::Arc;
///
/// # tokio_test(async {
/// let store = Arc::new(MemoryStore::new(ProfileStore::<Demo>::default()));
/// let by = Attribution::new("operator", "req-1").unwrap();
/// store.put_agent("alice", ProfileContext::new(Surface::Ticket), &by).await.unwrap();
/// store.grant_token("token-for-alice", "alice", &by).await.unwrap();
/// // Routers serve what the store put in force.
/// let router = mcp_profiles_serve::http::multi_agent_router(store.profiles(), Demo, Default::default());
/// assert_eq!(store.profiles().version("alice"), Some(1));
/// # drop(router);
/// # });
/// # fn tokio_test(f: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub struct MemoryStore<S: Vocabulary> {
    profiles: Arc<ProfileStore<S>>,
    /// Where the records of its changes go.
    trail: Arc<dyn AuditTrail>,
    /// Where the serving index's decision log is shipped, if anywhere.
    decision_trail: Option<Arc<dyn DecisionTrail>>,
    /// Held across each recorded change, from its check to its making, so
    /// that records come in the order of the changes.
    recording: Mutex<()>,
}

/// A store over an empty [`ProfileStore`], its trail in memory.
impl<S: Vocabulary> Default for MemoryStore<S> {
    fn default() -> Self {
        Self::new(ProfileStore::default())
    }
}

impl<S: Vocabulary> std::fmt::Debug for MemoryStore<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("profiles", &self.profiles)
            .finish_non_exhaustive()
    }
}

impl<S: Vocabulary> MemoryStore<S> {
    /// A store putting its changes in force on `profiles` (a
    /// [`ProfileStore`], or the `Arc` its routers already hold), its audit
    /// trail in memory
    /// ([`audit::DEFAULT_CAPACITY`](crate::audit::DEFAULT_CAPACITY)
    /// records).
    ///
    /// Changes made on `profiles` directly
    /// ([`ProfileStore::add_agent`], [`ProfileStore::grant`], ...) are the
    /// parts the store's are made of, and record nothing.
    pub fn new(profiles: impl Into<Arc<ProfileStore<S>>>) -> Self {
        MemoryStore {
            profiles: profiles.into(),
            trail: Arc::new(MemoryAuditLog::default()),
            decision_trail: None,
            recording: Mutex::default(),
        }
    }

    /// This store, its audit trail keeping the newest `capacity` records
    /// in memory (at least 1).
    pub fn with_audit_capacity(mut self, capacity: usize) -> Self {
        self.trail = Arc::new(MemoryAuditLog::new(capacity));
        self
    }

    /// This store, keeping the audit records of its changes in `trail` (an
    /// application's own database, say) instead of in memory: each record
    /// is appended before its change is made, and a record `trail` refuses
    /// refuses the change (see [`AuditTrail`]).
    pub fn with_audit_trail(mut self, trail: Arc<dyn AuditTrail>) -> Self {
        self.trail = trail;
        self
    }

    /// This store, shipping the call decisions its serving index's
    /// [decision log](ProfileStore::with_decision_log) hears to `trail`
    /// (beside an [`AuditTrail`] of the application's) whenever
    /// [`AgentStore::decisions_written`](crate::AgentStore::decisions_written)
    /// is called, and reading them back from it (see [`DecisionTrail`]).
    pub fn with_decision_trail(mut self, trail: Arc<dyn DecisionTrail>) -> Self {
        self.decision_trail = Some(trail);
        self
    }

    /// An application's own change of `principal`'s agent (a route of its
    /// own, a change another process saved), in the order of the store's
    /// recorded changes: `change` is called with the agent's context and
    /// version (the one it moves on from) while every change through the
    /// store's [`AgentStore`](crate::AgentStore) methods is held back; it makes and records the change in the
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
    /// use mcp_profiles_serve::{AgentStore, MemoryStore, StoreError};
    ///
    /// let store = MemoryStore::<Demo>::default();
    /// store.profiles().add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// let replaced = store.change_agent("alice", |current, version| {
    ///     assert_eq!((current.surface(), version), (Surface::Ticket, 1));
    ///     // ... save and record the application's change, then:
    ///     Ok::<_, StoreError>(Some(ProfileContext::new(Surface::Billing)))
    /// })?;
    /// assert!(replaced.is_some(), "the profile was replaced");
    /// assert_eq!(store.profiles().version("alice"), Some(2));
    /// # Ok::<(), StoreError>(())
    /// ```
    pub fn change_agent<E: From<UnknownPrincipal>>(
        &self,
        principal: &str,
        change: impl FnOnce(ProfileContext<S>, u64) -> Result<Option<ProfileContext<S>>, E>,
    ) -> Result<Option<Replacement<S>>, E> {
        let _held = self.recording();
        let (Some((current, version)), _) = self.profiles.standing(principal) else {
            return Err(UnknownPrincipal::new(principal).into());
        };
        let Some(next) = change(current, version)? else {
            return Ok(None);
        };
        match self.profiles.put_if(principal, next, None) {
            Ok((_, replacement, _)) => Ok(replacement),
            Err(_) => unreachable!("an unconditional put never conflicts"),
        }
    }

    /// Makes `principal`'s versions go on from `last`, the newest the
    /// store's trail already holds (a single-agent server restarted over
    /// its own trail): an agent put for it next is at version `last + 1` at
    /// least, so no version names two profiles. An agent it has already
    /// goes on from its own.
    pub fn resume_versions(&self, principal: &str, last: u64) {
        self.profiles.resume_versions(principal, last);
    }

    /// The lock each recorded change holds from its check to its making.
    fn recording(&self) -> MutexGuard<'_, ()> {
        self.recording.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One recorded change, its making held back from every other's:
    /// `check` refuses it or says its record (`None`: it changes nothing)
    /// and how to make it; the record is appended (one the trail refuses
    /// is [`StoreError::Refused`], nothing changed), then the change made.
    fn recorded<'a, T>(
        &'a self,
        check: impl FnOnce() -> Result<(Option<AuditEntry>, Making<'a, T>), StoreError>,
    ) -> Result<Written<T>, StoreError> {
        let _held = self.recording();
        let (entry, make) = check()?;
        if let Some(entry) = entry {
            self.trail.append(entry).map_err(|error| {
                StoreError::Refused(format!("its audit record could not be kept: {error}"))
            })?;
        }
        make().map(Written::unreplicated)
    }
}
