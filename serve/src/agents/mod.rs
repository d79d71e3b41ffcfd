//! Many agents behind one endpoint: each request's bearer token names a
//! principal, and each principal has its own profile ([`ProfileStore`]).
//!
//! With MCP 2026-07-28 a streamable-HTTP request may be served by a handler
//! built for that request alone, and the tool set may vary by the request's
//! authorisation but not per connection. So the profile is looked up per
//! request: token → principal → that principal's controller. An unknown
//! token is refused; replacing one principal's profile never touches
//! another's.
//!
//! A principal keeps one controller for as long as it is in the store, so
//! its sessions, which register for `list_changed` with that controller,
//! hear of every replacement. Taking a token away ends what was opened with
//! it (see [`ProfileStore::revoke`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};

#[cfg(feature = "runtime-tools")]
use mcp_profiles::CatalogDecoder;
use mcp_profiles::{
    Presentation, ProfileContext, ProfileController, ProfileHandle, Replacement, ToolSearch,
    Vocabulary,
};

use crate::identity::{Grant, Principal, SessionBook, UnknownPrincipal};

#[cfg(feature = "oauth")]
mod identities;
mod kill;
mod mirror;
mod narrowing;
mod presentation;
mod search;
mod versions;
mod views;

pub use kill::KillSwitchOutcome;
pub(crate) use mirror::Backed;
#[cfg(feature = "runtime-tools")]
pub(crate) use mirror::CatalogRefusal;
pub use mirror::{AgentUpdate, Apply, ServingFuture, Unreachable};
pub(crate) use narrowing::Narrowing;

/// The serving index: every agent's profile, keyed by principal, and the
/// tokens that name them, as the routers read them.
///
/// A store drives it ([`MemoryStore`](crate::MemoryStore) in one process,
/// `RedisStore` across many, or a backing of one's own: see
/// [`AgentStore`](crate::AgentStore)), recording each change; its own
/// methods are the parts those changes are made of, and record nothing, so
/// a server with no control API can drive it directly:
///
/// - [`add_agent`](Self::add_agent) gives a principal its profile; adding
///   it again replaces that profile on the same controller;
/// - [`grant`](Self::grant) lets a bearer token act as a principal;
/// - [`revoke`](Self::revoke) takes a token away and ends every session and
///   response stream opened with it; [`remove_agent`](Self::remove_agent)
///   does so for all of a principal's tokens;
/// - [`apply_kill_switch`](Self::apply_kill_switch) puts the operator's
///   deny list in force over every agent at once: each agent's controller
///   is attached to the store's one [`KillSwitch`](mcp_profiles::KillSwitch);
/// - [`with_presentation`](Self::with_presentation), when the store is
///   built, lists every agent's tools under one
///   [`Presentation`](mcp_profiles::Presentation) (`list_tasks_kandev` as
///   `list_tasks`, say).
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use mcp_profiles::ProfileContext;
/// use mcp_profiles_serve::ProfileStore;
/// use std::sync::Arc;
///
/// let store = Arc::new(ProfileStore::<Demo>::default());
/// let alice = store.add_agent("alice", ProfileContext::new(Surface::Ticket));
/// store.grant("token-for-alice", "alice").unwrap();
/// let router = mcp_profiles_serve::http::multi_agent_router(&store, Demo, Default::default());
/// // The backend replaces alice's profile through `alice`; bob is untouched.
/// alice.replace(ProfileContext::new(Surface::Chat));
/// # drop(router);
/// ```
pub struct ProfileStore<S: Vocabulary> {
    tokens: RwLock<HashMap<String, Arc<Grant>>>,
    agents: RwLock<HashMap<Principal, Agent<S>>>,
    /// Serialises changes to agents, so that a version and the profile it
    /// stands for move together. Holds the version of each removal, so that
    /// a principal added again goes on from it: versions never repeat, and
    /// a compare-and-set holding one of the old agent's cannot apply to the
    /// new one.
    writing: Mutex<HashMap<Principal, u64>>,
    /// The session books of the routers serving this store, so that a
    /// revocation reaches the sessions each of them holds.
    books: Mutex<Vec<Weak<dyn SessionBook>>>,
    /// The shared store this one mirrors, if any (see [`crate::store`]).
    backing: OnceLock<Weak<dyn Backed<S>>>,
    /// The operator's kill switch over every agent's controller, and the
    /// version of the list in force.
    kill: kill::Kill<S>,
    /// Turns stored catalogs into installable ones; `None`: no catalogs.
    #[cfg(feature = "runtime-tools")]
    catalogs: Option<CatalogDecoder<S>>,
    /// The tool names every agent's sessions list; `None`: canonical names.
    presentation: Option<Presentation>,
    /// Tool search on every agent's sessions; `None`: every tool listed.
    tool_search: Option<ToolSearch<S>>,
    /// The identities OAuth sessions are bound to, per principal.
    #[cfg(feature = "oauth")]
    identities: identities::Identities,
    /// Whether request counts carry the principal as a label.
    principal_metrics: bool,
    /// Whether every agent's list answers carry their exposure.
    stamp_exposure: bool,
    /// Whether every agent serves MCP's grouping extension.
    grouping: bool,
    /// How every agent's sessions disclose its tools, if progressively.
    disclosure: Option<mcp_profiles::Disclosure<S>>,
    /// Where every agent's call decisions are logged, if anywhere.
    decisions: Option<Arc<crate::audit::decisions::DecisionLog>>,
}

/// An empty store, serving no agent and taking no catalogs.
impl<S: Vocabulary> Default for ProfileStore<S> {
    fn default() -> Self {
        ProfileStore {
            tokens: RwLock::default(),
            agents: RwLock::default(),
            writing: Mutex::default(),
            books: Mutex::default(),
            backing: OnceLock::new(),
            kill: kill::Kill::default(),
            #[cfg(feature = "runtime-tools")]
            catalogs: None,
            presentation: None,
            tool_search: None,
            #[cfg(feature = "oauth")]
            identities: identities::Identities::default(),
            principal_metrics: false,
            stamp_exposure: false,
            grouping: false,
            disclosure: None,
            decisions: None,
        }
    }
}

impl<S: Vocabulary> std::fmt::Debug for ProfileStore<S> {
    /// Counts only: tokens are secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner()).len();
        let tokens = self.tokens.read().unwrap_or_else(|e| e.into_inner()).len();
        f.debug_struct("ProfileStore")
            .field("agents", &agents)
            .field("tokens", &tokens)
            .field("backed", &self.backing.get().is_some())
            .field("presentation", &self.presentation)
            .finish_non_exhaustive()
    }
}

/// One principal's agent: its controller and the version of its profile
/// and catalog.
struct Agent<S: Vocabulary> {
    controller: ProfileController<S>,
    version: u64,
    /// The wire form of the catalog put last through this store (not
    /// through a shared one, which keeps its own), and what its audit
    /// records say of it.
    #[cfg(feature = "runtime-tools")]
    catalog: Option<(serde_json::Value, crate::audit::states::CatalogSummary)>,
    /// Narrower views of the agent's profile (a token's scopes withholding
    /// some of it), each following the profile as it is replaced.
    views: HashMap<Narrowing<S>, ProfileController<S>>,
}

impl<S: Vocabulary> Agent<S> {
    fn new(controller: ProfileController<S>, version: u64) -> Self {
        Agent {
            controller,
            version,
            #[cfg(feature = "runtime-tools")]
            catalog: None,
            views: HashMap::new(),
        }
    }
}

/// What a put did: the agent's controller, the replacement (`None` for a
/// new agent) and the version now in force.
pub(crate) type Put<S> = (ProfileController<S>, Option<Replacement<S>>, u64);

impl<S: Vocabulary> ProfileStore<S> {
    /// An empty store, in an `Arc` as the routers take it.
    #[deprecated(
        note = "use `Arc::new(ProfileStore::default())`: `new` returned an `Arc`, which its name hid"
    )]
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// This store, its agents also taking runtime catalogs, put through
    /// [`AgentStore::put_catalog_if`](crate::AgentStore::put_catalog_if)
    /// in the wire form `decoder` reads (see [`CatalogDecoder`]).
    #[cfg(feature = "runtime-tools")]
    pub fn with_catalogs(mut self, decoder: CatalogDecoder<S>) -> Self {
        self.catalogs = Some(decoder);
        self
    }

    /// How many tokens name `principal` here.
    pub(crate) fn token_count(&self, principal: &str) -> usize {
        let tokens = self.tokens.read().unwrap_or_else(|e| e.into_inner());
        tokens
            .values()
            .filter(|grant| grant.principal().name() == principal)
            .count()
    }

    /// This store, its routers counting requests per principal (feature
    /// `metrics`): `mcp_profiles_agent_requests_total` gets a `principal`
    /// label, one series per principal that makes a request. Off by
    /// default, since each principal is a series the metrics backend keeps:
    /// turn it on where principals are few and known (a fleet of agents),
    /// not where any OAuth subject may become one.
    pub fn with_principal_metrics(mut self) -> Self {
        self.principal_metrics = true;
        self
    }

    /// Whether request counts carry the principal as a label.
    pub(crate) fn principal_metrics(&self) -> bool {
        self.principal_metrics
    }

    /// This store, every agent's list answers carrying their
    /// [`Exposure`](mcp_profiles::Exposure) in `_meta` (see
    /// [`ProfileController::set_exposure_stamp`]): the agent's version in
    /// this store (the same on every instance of a shared one) and the
    /// digest of what was listed. Every agent held or added later.
    pub fn with_exposure_stamp(mut self) -> Self {
        self.stamp_exposure = true;
        for controller in self.held_controllers() {
            controller.set_exposure_stamp(true);
        }
        self
    }

    /// This store, every agent serving MCP's draft grouping extension to
    /// the clients that declare it (see
    /// [`ProfileController::set_grouping`]): `groups/list`, each listed
    /// tool's groups in `_meta`, `notifications/groups/list_changed`. Every
    /// agent held or added later.
    pub fn with_grouping(mut self) -> Self {
        self.grouping = true;
        for controller in self.held_controllers() {
            controller.set_grouping(true);
        }
        self
    }

    /// This store, every agent's 2025-era sessions disclosing its tools
    /// progressively (see [`ProfileController::set_disclosure`]): the
    /// always-listed groups and the activation tool first, more groups of
    /// the agent's profile as a session activates them. Set while the
    /// store is built, before any agent.
    ///
    /// # Errors
    ///
    /// [`mcp_profiles::NameTaken`] when a compiled tool has the activation
    /// tool's name.
    pub fn with_disclosure(
        mut self,
        disclosure: mcp_profiles::Disclosure<S>,
    ) -> Result<Self, mcp_profiles::NameTaken> {
        disclosure.check()?;
        self.disclosure = Some(disclosure);
        Ok(self)
    }

    /// This store, every agent's `tools/call` decisions kept in `log`
    /// (see [`crate::audit::decisions`]): the principal, the tool, the
    /// revision, allowed or refused and why. Every agent added later; set
    /// it while the store is built, before any agent.
    pub fn with_decision_log(mut self, log: Arc<crate::audit::decisions::DecisionLog>) -> Self {
        self.decisions = Some(log);
        self
    }

    /// The decision log every agent tells its decisions to, if any.
    pub(crate) fn decision_log(&self) -> Option<&Arc<crate::audit::decisions::DecisionLog>> {
        self.decisions.as_ref()
    }

    /// Gives `principal` an agent serving `initial` and returns the
    /// backend's handle on it.
    ///
    /// Adding a principal that already has an agent replaces its profile on
    /// the *same* controller, exactly as
    /// [`ProfileController::replace`]
    /// would: its live sessions and subscriptions stay bound to it and get
    /// one `list_changed` each if the tool set changed (none otherwise), and
    /// the returned controller is the one handed out before (its list TTL
    /// kept).
    ///
    /// ```
    /// # mod server {
    /// #     #[derive(Clone)] pub struct Demo;
    /// #     impl rmcp::ServerHandler for Demo {}
    /// # }
    /// # use server::Demo;
    /// # mcp_profiles::vocabulary! {
    /// #     server Demo;
    /// #     #[surfaces] pub enum Surface { Ticket, Chat }
    /// #     #[capabilities] pub enum Capability {}
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// use mcp_profiles::ProfileContext;
    /// use mcp_profiles_serve::ProfileStore;
    /// use std::sync::Arc;
    ///
    /// let store = Arc::new(ProfileStore::<Demo>::default());
    /// let first = store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// let again = store.add_agent("alice", ProfileContext::new(Surface::Chat));
    /// // One agent, now serving the new profile through either handle.
    /// assert_eq!(first.current().context(), &ProfileContext::new(Surface::Chat));
    /// assert_eq!(again.current().context(), first.current().context());
    /// ```
    pub fn add_agent(&self, principal: &str, initial: ProfileContext<S>) -> ProfileController<S> {
        match self.put_if(principal, initial, None) {
            Ok((controller, _, _)) => controller,
            Err(_) => unreachable!("an unconditional put never conflicts"),
        }
    }

    /// Adds or replaces `principal`'s agent, bumping its version (1 for a
    /// new agent), if its version is `expected` (0: no agent; `None`: any):
    /// the controller, the replacement (`None` for a new agent) and the
    /// version now in force; else the current version.
    pub(crate) fn put_if(
        &self,
        principal: &str,
        context: ProfileContext<S>,
        expected: Option<u64>,
    ) -> Result<Put<S>, u64> {
        let mut removed = self.write_lock();
        let principal = Principal::new(principal);
        let existing = {
            let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
            let current = agents.get(&principal).map_or(0, |agent| agent.version);
            if expected.is_some_and(|expected| expected != current) {
                return Err(current);
            }
            match agents.get_mut(&principal) {
                Some(agent) => {
                    agent.version += 1;
                    (agent.controller.clone(), agent.version)
                }
                None => {
                    let version = removed.remove(&principal).map_or(1, |last| last + 1);
                    let controller = self.new_controller(context, version, Some(principal.name()));
                    agents.insert(principal, Agent::new(controller.clone(), version));
                    return Ok((controller, None, version));
                }
            }
        };
        // Replaced outside the agents' lock: replacing notifies sessions.
        let (controller, version) = existing;
        let span = crate::telemetry::agent_span(principal.name());
        let replacement = controller.at_revision(version).replace(context);
        drop(span);
        self.sync_views(&principal);
        Ok((controller, Some(replacement), version))
    }

    /// The identity `principal`'s OAuth sessions are bound to (see
    /// [`crate::oauth::OAuth`]): ended with every session bound to it when
    /// the principal's agent is removed.
    #[cfg(feature = "oauth")]
    pub(crate) fn identity(&self, principal: &str) -> Arc<Grant> {
        self.identities.of(principal)
    }

    /// The controllers of every agent held, while the store is still
    /// being built (no lock to wait for).
    pub(crate) fn held_controllers(&mut self) -> Vec<ProfileController<S>> {
        self.agents
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .map(|agent| agent.controller.clone())
            .collect()
    }

    /// A controller for a new agent at `revision` (its version), under the
    /// store's kill switch, name presentation, tool search and exposure
    /// stamp.
    pub(crate) fn new_controller(
        &self,
        context: ProfileContext<S>,
        revision: u64,
        principal: Option<&str>,
    ) -> ProfileController<S> {
        let controller = ProfileController::with_kill_switch(context, &self.kill.switch);
        if revision != controller.revision() {
            // No session yet: nobody hears of it.
            let _ = controller.at_revision(revision).replace(context);
        }
        self.present(&controller);
        self.search(&controller);
        controller.set_exposure_stamp(self.stamp_exposure);
        controller.set_grouping(self.grouping);
        if let Some(disclosure) = &self.disclosure {
            // Checked when it was set on the store.
            let _ = controller.set_disclosure(disclosure.clone());
        }
        if let Some(log) = &self.decisions {
            controller.log_decisions(log.sink(principal));
        }
        controller
    }

    /// The version of `principal`'s profile, if it has an agent here.
    pub fn version(&self, principal: &str) -> Option<u64> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        agents
            .get(&Principal::new(principal))
            .map(|agent| agent.version)
    }

    /// Removes `principal`'s agent and revokes every token naming it (see
    /// [`revoke`](Self::revoke)), ending the sessions and streams those
    /// tokens opened, and those OAuth access tokens opened as the principal
    /// (feature `oauth`); returns its controller, or `None` if it had no
    /// agent. Adding the principal again later starts a new controller;
    /// its versions go on from the removal, which counts as one (as in the
    /// Redis store), so they never repeat.
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
    /// use mcp_profiles_serve::ProfileStore;
    /// use std::sync::Arc;
    ///
    /// let store = Arc::new(ProfileStore::<Demo>::default());
    /// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// store.grant("token-for-alice", "alice").unwrap();
    /// assert!(store.remove_agent("alice").is_some());
    /// assert!(store.principal("token-for-alice").is_none());
    /// assert!(store.grant("token-for-alice", "alice").is_err());
    /// // Added again, it goes on from the removal (version 2).
    /// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// assert_eq!(store.version("alice"), Some(3));
    /// ```
    pub fn remove_agent(&self, principal: &str) -> Option<ProfileController<S>> {
        let mut removed = self.write_lock();
        let (controller, version) = self.remove_locked(principal)?;
        removed.insert(Principal::new(principal), version + 1);
        Some(controller)
    }

    /// [`remove_agent`](Self::remove_agent), the writing lock held: the
    /// controller and the version it was at.
    fn remove_locked(&self, principal: &str) -> Option<(ProfileController<S>, u64)> {
        let (controller, ended) = {
            let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
            let agent = agents.remove(&Principal::new(principal))?;
            // Under the agents lock, so no `grant` can name it meanwhile.
            let mut tokens = self.tokens.write().unwrap_or_else(|e| e.into_inner());
            let mut ended = Vec::new();
            tokens.retain(|_, grant| {
                let keep = grant.principal().name() != principal;
                if !keep {
                    ended.push(Arc::clone(grant));
                }
                keep
            });
            // The sessions OAuth tokens opened as the principal end too.
            #[cfg(feature = "oauth")]
            ended.extend(self.identities.take(principal));
            ((agent.controller, agent.version), ended)
        };
        for grant in &ended {
            self.end(grant);
        }
        Some(controller)
    }

    /// Lets requests bearing `token` act as `principal`.
    ///
    /// Granting a token again for the principal it already names changes
    /// nothing; granting it for another principal first revokes it (ending
    /// what was opened with it), so no session ever outlives the principal
    /// it was opened for.
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
    /// use mcp_profiles_serve::ProfileStore;
    /// use std::sync::Arc;
    ///
    /// let store = Arc::new(ProfileStore::<Demo>::default());
    /// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// store.grant("token-for-alice", "alice")?;
    /// store.grant("second-token-for-alice", "alice")?;
    /// # Ok::<(), mcp_profiles_serve::UnknownPrincipal>(())
    /// ```
    pub fn grant(&self, token: &str, principal: &str) -> Result<(), UnknownPrincipal> {
        let replaced = {
            // Held across the token insert, so `remove_agent` cannot slip between.
            let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
            let principal = agents
                .keys()
                .find(|known| known.name() == principal)
                .cloned()
                .ok_or_else(|| UnknownPrincipal::new(principal))?;
            let mut tokens = self.tokens.write().unwrap_or_else(|e| e.into_inner());
            if tokens
                .get(token)
                .is_some_and(|grant| *grant.principal() == principal)
            {
                return Ok(());
            }
            let grant = Arc::new(Grant::new(principal));
            tokens.insert(token.to_owned(), grant)
        };
        if let Some(old) = replaced {
            self.end(&old);
        }
        Ok(())
    }

    /// Stops accepting `token` and ends everything opened with it: later
    /// requests bearing it get 401; every response stream of a request made
    /// with it (`subscriptions/listen` streams, SSE streams) ends; and every
    /// 2025-era streamable-HTTP session initialised with it is closed, so its
    /// session id is refused from then on. Other tokens, of this principal
    /// or others, are untouched. Revoking an unknown token does nothing.
    ///
    /// Streams end at once; sessions are closed in the background, on the
    /// runtime serving them.
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
    /// use mcp_profiles_serve::ProfileStore;
    /// use std::sync::Arc;
    ///
    /// let store = Arc::new(ProfileStore::<Demo>::default());
    /// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// store.grant("laptop", "alice").unwrap();
    /// store.grant("phone", "alice").unwrap();
    /// store.revoke("laptop");
    /// assert!(store.principal("laptop").is_none());
    /// assert_eq!(store.principal("phone").unwrap().name(), "alice");
    /// ```
    pub fn revoke(&self, token: &str) {
        let removed = {
            let mut tokens = self.tokens.write().unwrap_or_else(|e| e.into_inner());
            tokens.remove(token)
        };
        if let Some(grant) = removed {
            self.end(&grant);
        }
    }

    /// The principal `token` stands for.
    pub fn principal(&self, token: &str) -> Option<Principal> {
        Some(self.grant_for(token)?.principal().clone())
    }

    /// The controller of `principal`'s agent: a [`Principal`] or its name.
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
    /// # use mcp_profiles::ProfileContext;
    /// # let store = mcp_profiles_serve::ProfileStore::<Demo>::new();
    /// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// assert_eq!(store.controller("alice").unwrap().session_count(), 0);
    /// assert!(store.controller("bob").is_none());
    /// ```
    pub fn controller<Q>(&self, principal: &Q) -> Option<ProfileController<S>>
    where
        Principal: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        agents.get(principal).map(|agent| agent.controller.clone())
    }

    /// The live grant of `token`.
    pub(crate) fn grant_for(&self, token: &str) -> Option<Arc<Grant>> {
        let tokens = self.tokens.read().unwrap_or_else(|e| e.into_inner());
        tokens.get(token).cloned()
    }

    /// The profile serving `grant`'s bearer, if its principal still has an
    /// agent.
    pub(crate) fn admit(&self, grant: &Grant) -> Option<ProfileHandle<S>> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        agents
            .get(grant.principal())
            .map(|agent| agent.controller.handle())
    }

    /// The grant of `token`, asking the shared store behind this one about
    /// a token not known here; `Err` says why the shared store could not
    /// answer.
    pub(crate) async fn find_grant(&self, token: &str) -> Result<Option<Arc<Grant>>, Unreachable> {
        if let Some(grant) = self.grant_for(token) {
            return Ok(Some(grant));
        }
        let Some(backing) = self.backing() else {
            return Ok(None);
        };
        backing?.resolve(token).await?;
        Ok(self.grant_for(token))
    }

    /// Whether `principal` has an agent here, loading it from the shared
    /// store behind this one when it has none yet; `Err` when that store
    /// could not answer.
    #[cfg(feature = "oauth")]
    pub(crate) async fn find_agent(&self, principal: &str) -> Result<bool, Unreachable> {
        if self.version(principal).is_some() {
            return Ok(true);
        }
        let Some(backing) = self.backing() else {
            return Ok(false);
        };
        backing?.load(principal).await?;
        Ok(self.version(principal).is_some())
    }

    /// The principal `token` stands for, as a request bearing it would be
    /// served: a token not known here is looked up in the shared store
    /// behind this one, if any (and its agent loaded). `Err` when that
    /// store could not answer.
    pub async fn lookup(&self, token: &str) -> Result<Option<Principal>, Unreachable> {
        Ok(self
            .find_grant(token)
            .await?
            .map(|grant| grant.principal().clone()))
    }

    /// Whether this store may serve `principal`'s agent now (`None`: a
    /// profile no stored agent holds): always, unless a shared store behind
    /// it says otherwise ([`AgentStore::serving`](crate::AgentStore::serving)).
    pub(crate) fn serving(&self, principal: Option<&Principal>) -> Result<(), Unreachable> {
        match self.backing() {
            None => Ok(()),
            Some(backing) => backing?.serving(principal.map(Principal::name)),
        }
    }

    /// The shared store behind this one: `None` if there is none, `Err` if
    /// it is gone.
    fn backing(&self) -> Option<Result<Arc<dyn Backed<S>>, Unreachable>> {
        let backing = self.backing.get()?;
        Some(backing.upgrade().ok_or_else(|| {
            Unreachable::new("the shared profile store behind this gateway was closed")
        }))
    }

    fn write_lock(&self) -> std::sync::MutexGuard<'_, HashMap<Principal, u64>> {
        self.writing.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lets revocations reach the sessions `book` holds.
    pub(crate) fn attach(&self, book: Weak<dyn SessionBook>) {
        let mut books = self.books.lock().unwrap_or_else(|e| e.into_inner());
        books.retain(|known| known.strong_count() > 0);
        books.push(book);
    }

    /// Ends everything opened with a grant that is no longer in the store.
    fn end(&self, grant: &Arc<Grant>) {
        // Cancelled before the books are searched: a session bound after
        // the search sees the cancellation and closes itself.
        grant.ended().cancel();
        let books: Vec<Arc<dyn SessionBook>> = {
            let books = self.books.lock().unwrap_or_else(|e| e.into_inner());
            books.iter().filter_map(Weak::upgrade).collect()
        };
        for book in books {
            book.close_sessions_of(grant);
        }
        tracing::info!(
            principal = grant.principal().name(),
            "sessions of an ended grant closed"
        );
    }
}
