//! The store seam: where a multi-agent server keeps each principal's
//! profile context, its version and the tokens that name it.
//!
//! [`AgentStore`] is what a backend (a control API) changes, each change
//! attributed and recorded in the store's audit trail ([`crate::audit`]);
//! a store drives the [`ProfileStore`] its routers serve (the serving
//! index: token → principal → controller), and a backing of one's own is
//! one more implementation of this one trait. Two here:
//!
//! - [`MemoryStore`]: in memory, one process, no extra dependency. The
//!   default.
//! - `RedisStore` (feature `redis`): the profiles, versions and token
//!   digests live in Redis, shared by every gateway instance; each instance
//!   keeps a [`ProfileStore`] as its local copy of the principals it serves
//!   and follows Redis's change feed.
//!
//! Either way the serving path is the same: [`crate::http::multi_agent_router`]
//! over [`AgentStore::profiles`]. Each version of a principal's profile is
//! applied once, in version order, on every instance that serves it, and
//! notifies only that instance's sessions of that principal, only when
//! their visible tool set changed.

#[cfg(feature = "runtime-tools")]
mod catalogs;
#[cfg(feature = "conformance")]
pub mod conformance;
mod kill;
mod memory;
mod propagation;
#[cfg(feature = "redis")]
mod redis;
mod shared;
mod written;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_profiles::{PolicyError, Profile, ProfileContext, Vocabulary};

use crate::audit::{Attribution, AuditQuery, AuditRecord};

#[cfg(feature = "runtime-tools")]
pub(crate) use self::catalogs::decode_catalog;
#[cfg(feature = "runtime-tools")]
pub use self::catalogs::{CatalogChange, StoredCatalog};
#[cfg(feature = "redis")]
pub(crate) use self::catalogs::{listed_change, presentable};
pub use self::kill::StoredKillSwitch;
pub use self::memory::MemoryStore;
pub use self::propagation::{Changed, Propagation};
#[cfg(feature = "redis")]
pub use self::redis::{RedisOptions, RedisStore};
pub use self::written::{Replication, Written};
use crate::{ProfileStore, ServingFuture, UnknownPrincipal, Unreachable};

/// The future every [`AgentStore`] operation returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A principal's agent as the store holds it.
#[non_exhaustive]
pub struct StoredAgent<S: Vocabulary> {
    /// The principal.
    pub principal: String,
    /// Its profile: the context and the compiled tools it enables.
    pub profile: Profile<S>,
    /// The version of that profile: it grows by one with every replacement.
    pub version: u64,
}

/// The outcome of [`AgentStore::put_agent`].
#[non_exhaustive]
pub struct AgentChange<S: Vocabulary> {
    /// The agent as stored now.
    pub agent: StoredAgent<S>,
    /// Whether its compiled tool set changed (always for a new agent).
    pub changed: bool,
}

impl<S: Vocabulary> std::fmt::Debug for StoredAgent<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredAgent")
            .field("principal", &self.principal)
            .field("profile", &self.profile)
            .field("version", &self.version)
            .finish()
    }
}

impl<S: Vocabulary> std::fmt::Debug for AgentChange<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentChange")
            .field("agent", &self.agent)
            .field("changed", &self.changed)
            .finish()
    }
}

/// Why a store could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// A token was granted for a principal that has no agent.
    UnknownPrincipal(UnknownPrincipal),
    /// The shared store could not be reached; nothing was changed (or, for
    /// a write whose answer was lost, the change may have been made: its
    /// feed message still reaches every instance).
    Unavailable(String),
    /// A compare-and-set found another version than the one expected
    /// (`current`: 0 when there is no agent); nothing was changed.
    Conflict {
        /// The principal.
        principal: String,
        /// Its version now.
        current: u64,
    },
    /// The shared store holds something this build cannot read (a profile
    /// naming terms it does not know); the message names it.
    Corrupt(String),
    /// A catalog was refused by the store's [`CatalogDecoder`](mcp_profiles::CatalogDecoder) (or the
    /// store takes no catalogs), or because two of its tools, or one of
    /// its tools and a compiled one, would collide under the store's name
    /// presentation (see [`ProfileStore::with_presentation`]); nothing was
    /// changed. The message says why, naming both tools of a collision.
    InvalidCatalog(String),
    /// A kill switch naming something that is neither a tool nor a tool
    /// group of the server, or naming one twice; nothing was changed. The
    /// error names it (with the closest declared name, if one is close).
    InvalidKillSwitch(PolicyError),
    /// A kill switch compare-and-set found another version than the one
    /// expected; nothing was changed.
    KillSwitchConflict {
        /// The kill switch's version now.
        current: u64,
    },
    /// The shared store was reached and refused the write (for Redis: the
    /// script making it failed, as when the audit record cannot be
    /// appended: a full memory, a key holding another type); nothing was
    /// changed. The message is the store's.
    Refused(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::UnknownPrincipal(error) => error.fmt(f),
            StoreError::Unavailable(why) => write!(f, "the profile store is unreachable: {why}"),
            StoreError::Conflict { principal, current } => write!(
                f,
                "the agent `{principal}` is at version {current}, not the one expected"
            ),
            StoreError::Corrupt(why) => write!(f, "the profile store holds unreadable data: {why}"),
            StoreError::InvalidCatalog(why) => write!(f, "the catalog was refused: {why}"),
            StoreError::InvalidKillSwitch(why) => write!(f, "the kill switch was refused: {why}"),
            StoreError::KillSwitchConflict { current } => write!(
                f,
                "the kill switch is at version {current}, not the one expected"
            ),
            StoreError::Refused(why) => {
                write!(f, "the profile store refused the change: {why}")
            }
        }
    }
}

impl std::error::Error for StoreError {}

impl From<UnknownPrincipal> for StoreError {
    fn from(error: UnknownPrincipal) -> Self {
        StoreError::UnknownPrincipal(error)
    }
}

/// Where principals' profiles and tokens are kept: the backend's side of a
/// multi-agent server.
///
/// Tokens are secrets: implementations never log them, and a shared store
/// keeps only their SHA-256 digests.
///
/// Every write takes an [`Attribution`] (who asked, in which request) and
/// appends one [`AuditRecord`] per change in the same atomic step as the
/// change: a record that cannot be appended refuses the change, and a
/// write that is refused or changes nothing records nothing (see
/// [`crate::audit`]). [`audit`](Self::audit) reads the trail.
///
/// Every write answers [`Written`]: what it made, and whether the store's
/// replicas confirmed it ([`Replication`]). A change whose replicas did not
/// confirm it is still made, recorded and in force (never an `Err`, whose
/// meaning is that nothing was changed); only a failover before they catch
/// up may undo it.
pub trait AgentStore<S: Vocabulary>: Send + Sync {
    /// Creates `principal`'s agent serving `context`, or replaces its
    /// profile, in one atomic step that bumps its version, records
    /// `profile-put` and publishes the change to every instance.
    fn put_agent<'a>(
        &'a self,
        principal: &'a str,
        context: ProfileContext<S>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<AgentChange<S>>> {
        self.put_agent_if(principal, context, None, by)
    }

    /// [`put_agent`](Self::put_agent) as a compare-and-set: only if the
    /// agent's version is `expected` now (`Some(0)`: only if it has no
    /// agent), else [`StoreError::Conflict`] and nothing changes.
    fn put_agent_if<'a>(
        &'a self,
        principal: &'a str,
        context: ProfileContext<S>,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<AgentChange<S>>>;

    /// `principal`'s agent, if it has one.
    fn agent<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredAgent<S>>>;

    /// Removes `principal`'s agent and every token naming it, ending their
    /// sessions on every instance, and records `agent-deleted`; whether it
    /// had one (none: nothing recorded).
    fn delete_agent<'a>(
        &'a self,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>>;

    /// Lets `token` act as `principal` on every instance (see
    /// [`ProfileStore::grant`]) and records `token-granted` with the
    /// token's [`fingerprint`](crate::audit::fingerprint), never the token;
    /// granting it again to the principal it names changes and records
    /// nothing.
    fn grant_token<'a>(
        &'a self,
        token: &'a str,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<()>>;

    /// Stops accepting `token` on every instance and ends what was opened
    /// with it (see [`ProfileStore::revoke`]), recording `token-revoked`;
    /// whether it was granted (not: nothing recorded).
    fn revoke_token<'a>(
        &'a self,
        token: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>>;

    /// Puts `principal`'s runtime catalog, in the wire form the store's
    /// [`CatalogDecoder`](mcp_profiles::CatalogDecoder) reads, in one atomic step that bumps the agent's
    /// version (the one [`put_agent`](Self::put_agent) bumps), records
    /// `catalog-put` and installs it on every instance serving the
    /// principal: one `list_changed` per session whose visible tools
    /// changed. As a compare-and-set when `expected` is `Some`
    /// ([`StoreError::Conflict`], nothing changed).
    ///
    /// The catalog is decoded first: one the decoder refuses is
    /// [`StoreError::InvalidCatalog`] and nothing is stored. An agent must
    /// exist ([`StoreError::UnknownPrincipal`]). Installed catalogs follow
    /// the store's version order, not their own generation and revision:
    /// a backend that wants stale catalogs ignored compares them with
    /// [`catalog`](Self::catalog) and puts with the version it read.
    #[cfg(feature = "runtime-tools")]
    fn put_catalog_if<'a>(
        &'a self,
        principal: &'a str,
        wire: serde_json::Value,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<CatalogChange>>;

    /// `principal`'s catalog as it was put, and the agent's version (the
    /// one to compare-and-set with); `None` if it has no agent.
    #[cfg(feature = "runtime-tools")]
    fn catalog<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredCatalog>>;

    /// Puts the operator's kill switch: `names`, tool and tool group names
    /// of the server, are removed from every agent's profile on every
    /// instance, in one atomic step that bumps the switch's version (its
    /// own, not an agent's), records `kill-switch` (of no principal) and
    /// publishes the change. Each session whose
    /// visible tools changed gets one `list_changed`, every other session
    /// none; an empty list turns the switch off.
    ///
    /// A compare-and-set when `expected` is `Some` (`Some(0)`: only if it
    /// was never put): on another version, [`StoreError::KillSwitchConflict`]
    /// and nothing changes. An unknown or repeated name is
    /// [`StoreError::InvalidKillSwitch`] naming it, and nothing changes.
    fn put_kill_switch_if<'a>(
        &'a self,
        names: &'a [String],
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<StoredKillSwitch>>;

    /// The kill switch as stored (the version to compare-and-set with);
    /// `None` if it was never put.
    fn kill_switch(&self) -> StoreFuture<'_, Option<StoredKillSwitch>>;

    /// One page of the audit trail, as `query` asks: every change made
    /// through any handle on the store, in the order they were made.
    ///
    /// A page is whole or not given: [`StoreError::Unavailable`] when a
    /// part of the trail cannot be read now (on a Redis Cluster, naming the
    /// stream and hash slot of the shard that did not answer).
    fn audit<'a>(&'a self, query: &'a AuditQuery) -> StoreFuture<'a, Vec<AuditRecord>>;

    /// One page of the decision log, as `query` asks (see
    /// [`crate::audit::decisions`]): every call decision of the store's
    /// agents that its instances heard with a
    /// [`DecisionLog`](crate::audit::decisions::DecisionLog) attached to
    /// their [`profiles`](Self::profiles), in the order of the records'
    /// numbers; empty when none is attached.
    ///
    /// A page is whole or not given, as for [`audit`](Self::audit). A
    /// backing that keeps no log of its own answers (the default) with what
    /// this instance's log holds.
    fn decisions<'a>(
        &'a self,
        query: &'a AuditQuery,
    ) -> StoreFuture<'a, Vec<crate::audit::decisions::DecisionRecord>> {
        let page = self
            .profiles()
            .decision_log()
            .map_or_else(Vec::new, |log| log.query(query));
        Box::pin(std::future::ready(Ok(page)))
    }

    /// Waits until every call decision this instance heard so far is in
    /// the store's decision log (on Redis, shipped): call it before
    /// reading the log back to judge what was just served, and at
    /// shutdown. At once where the log is this instance's (the default).
    ///
    /// # Errors
    ///
    /// [`StoreError::Unavailable`] when the store could not take them now;
    /// they are kept to be shipped again (the oldest dropped, counted, past
    /// the log's capacity).
    fn decisions_written(&self) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }

    /// What this instance serves: hand it to
    /// [`crate::http::multi_agent_router`].
    fn profiles(&self) -> &Arc<ProfileStore<S>>;

    /// `Err` with the reason once [`profiles`](Self::profiles), as the
    /// local copy of a shared store, may no longer serve `principal`'s agent
    /// (`None`: a profile no stored agent holds, such as one an access token
    /// carries): the part of the shared store it depends on was out of
    /// reach for too long, and a profile narrowed meanwhile must not be
    /// served wide, nor a token revoked meanwhile honoured (a store must
    /// carry a principal's token revocations where this answers for the
    /// principal). A store in parts (shards) refuses only the principals of
    /// a part out of reach. Asked only where the store backs its local copy
    /// ([`ProfileStore::back_with`]); by default, always served.
    fn serving(&self, principal: Option<&str>) -> Result<(), Unreachable> {
        let _ = principal;
        Ok(())
    }

    /// Looks `token`, unknown to [`profiles`](Self::profiles), up in the
    /// shared store and, if it names an agent, loads the agent
    /// ([`ProfileStore::apply`] with [`Apply::Load`](crate::Apply::Load))
    /// and grants the token there. `Err` when the shared store could not
    /// answer. Asked only where the store backs its local copy; by default
    /// nothing is looked up (a token is known where it was granted).
    fn resolve<'a>(&'a self, token: &'a str) -> ServingFuture<'a> {
        let _ = token;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Loads `principal`'s agent from the shared store
    /// ([`Apply::Load`](crate::Apply::Load)), if it has one there and none
    /// in [`profiles`](Self::profiles) yet: how a principal named by an
    /// identity provider's access token, not by a granted token, is found.
    /// `Err` when the shared store could not answer. By default nothing is
    /// loaded: only the agents in [`profiles`](Self::profiles) are served.
    fn load<'a>(&'a self, principal: &'a str) -> ServingFuture<'a> {
        let _ = principal;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Waits until the change this handle just made to `changed` is in
    /// force on every instance sharing the store, or the store's limit
    /// passes: how many instances confirmed it, and which had not. A
    /// change method answers once the change is made and applied *here*;
    /// a control API calls this before it answers, so that its answer
    /// means every instance that serves applies the change.
    ///
    /// In memory, one process: at once, [`Propagation::here`]. On Redis
    /// (feature `redis`), see `RedisOptions::with_propagation_wait` for the
    /// limit and the README's "What an acknowledgement means" for how
    /// instances confirm. A backing of one's own answers with
    /// [`Propagation::new`] (the default answers [`Propagation::here`]).
    ///
    /// # Errors
    ///
    /// [`StoreError::Unavailable`] when the store could not be asked which
    /// instances serve, or could not carry the question to them. The change
    /// itself stands (it was made and applied here before this was called):
    /// a control API answers that the change was made but its reach is
    /// unknown (Kandev's gateway: `202` with `Mcp-Profiles-Pending: unknown`),
    /// never that it was refused.
    ///
    /// ```
    /// # use mcp_profiles_serve::{AgentStore, Changed};
    /// # async fn demo<S: mcp_profiles::Vocabulary>(store: &dyn AgentStore<S>) {
    /// let propagation = store.propagated(Changed::Agent("alice")).await;
    /// if let Ok(propagation) = propagation {
    ///     assert!(propagation.applied >= 1);
    /// }
    /// # }
    /// ```
    fn propagated<'a>(&'a self, changed: Changed<'a>) -> StoreFuture<'a, Propagation> {
        let _ = changed;
        Box::pin(std::future::ready(Ok(Propagation::here())))
    }
}

fn stored<S: Vocabulary>(
    principal: &str,
    context: ProfileContext<S>,
    version: u64,
) -> StoredAgent<S> {
    StoredAgent {
        principal: principal.to_owned(),
        profile: S::registry().assemble(&context),
        version,
    }
}
