//! Many agents behind one HTTP endpoint: each request's bearer token names a
//! principal, and each principal has its own profile.
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

use rmcp::ErrorData;
use tokio_util::sync::CancellationToken;

use crate::controller::Cell;
use crate::http::Tracker;
use crate::store::Backing;
#[cfg(feature = "runtime-tools")]
use crate::store::CatalogDecoder;
#[cfg(feature = "runtime-tools")]
use crate::{Catalog, Installation};
use crate::{ProfileContext, ProfileController, ProfiledServer, Replacement, Vocabulary};

/// The identity a bearer token stands for.
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
/// use mcp_profiles::{ProfileContext, ProfileStore};
///
/// let store = ProfileStore::<Demo>::new();
/// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
/// store.grant("token-for-alice", "alice")?;
/// assert_eq!(store.principal("token-for-alice").unwrap().name(), "alice");
/// # Ok::<(), mcp_profiles::UnknownPrincipal>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Principal(Arc<str>);

impl Principal {
    pub(crate) fn new(name: &str) -> Self {
        Principal(Arc::from(name))
    }

    /// The principal's name.
    pub fn name(&self) -> &str {
        &self.0
    }
}

/// Every agent's profile, keyed by principal, and the tokens that name them.
///
/// - [`add_agent`](Self::add_agent) gives a principal its profile; adding
///   it again replaces that profile on the same controller;
/// - [`grant`](Self::grant) lets a bearer token act as a principal;
/// - [`revoke`](Self::revoke) takes a token away and ends every session and
///   response stream opened with it; [`remove_agent`](Self::remove_agent)
///   does so for all of a principal's tokens.
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
/// use mcp_profiles::{ProfileContext, ProfileStore};
///
/// let store = ProfileStore::<Demo>::new();
/// let alice = store.add_agent("alice", ProfileContext::new(Surface::Ticket));
/// store.grant("token-for-alice", "alice").unwrap();
/// let router = mcp_profiles::http::multi_agent_router(&store, Demo, Default::default());
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
    trackers: Mutex<Vec<Weak<Tracker>>>,
    /// The shared store this one mirrors, if any (see [`crate::store`]).
    backing: OnceLock<Weak<dyn Backing>>,
    /// Turns stored catalogs into installable ones; `None`: no catalogs.
    #[cfg(feature = "runtime-tools")]
    catalogs: Option<CatalogDecoder<S>>,
}

/// One principal's agent: its controller and the version of its profile
/// and catalog.
struct Agent<S: Vocabulary> {
    controller: ProfileController<S>,
    version: u64,
    /// The wire form of the catalog put last through this store (not
    /// through a shared one, which keeps its own).
    #[cfg(feature = "runtime-tools")]
    catalog: Option<serde_json::Value>,
}

impl<S: Vocabulary> Agent<S> {
    fn new(controller: ProfileController<S>, version: u64) -> Self {
        Agent {
            controller,
            version,
            #[cfg(feature = "runtime-tools")]
            catalog: None,
        }
    }
}

/// A principal's agent as a shared store holds it, or the part of it that
/// one change moved.
#[cfg(feature = "redis")]
pub(crate) enum Update<S: Vocabulary> {
    /// Its profile was replaced; its catalog is unchanged.
    Context(ProfileContext<S>),
    /// All of it: the profile and the catalog (`None`: none, or one this
    /// instance cannot read, which is then not served).
    Whole(ProfileContext<S>, Option<Catalog<S>>),
}

/// Why [`ProfileStore::install_catalog_if`] changed nothing.
#[cfg(feature = "runtime-tools")]
pub(crate) enum CatalogRefusal {
    /// The principal has no agent.
    NoAgent,
    /// The agent is at this version, not the one expected.
    Conflict(u64),
}

/// What a put did: the agent's controller, the replacement (`None` for a
/// new agent) and the version now in force.
pub(crate) type Put<S> = (ProfileController<S>, Option<Replacement<S>>, u64);

/// Which changes [`ProfileStore::apply`] takes.
#[cfg(feature = "redis")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Apply {
    /// A change of the feed: only for a principal served here, only newer.
    IfServed,
    /// A principal a token just named: created if missing, else only newer.
    Load,
    /// The shared store's state after a reconnect: whatever it says.
    Reset,
}

/// One granted token: whom it names, and the signal that ends every
/// session and response stream opened with it.
pub(crate) struct Grant {
    principal: Principal,
    ended: CancellationToken,
}

impl Grant {
    /// Cancelled once the token is revoked.
    pub(crate) fn ended(&self) -> &CancellationToken {
        &self.ended
    }
}

/// A token was granted for a principal that has no agent.
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
/// let store = mcp_profiles::ProfileStore::<Demo>::new();
/// let error = store.grant("token-for-carol", "carol").unwrap_err();
/// assert_eq!(error.principal(), "carol");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPrincipal {
    principal: String,
}

impl UnknownPrincipal {
    #[cfg(any(feature = "redis", feature = "runtime-tools"))]
    pub(crate) fn new(principal: &str) -> Self {
        UnknownPrincipal {
            principal: principal.to_owned(),
        }
    }

    /// The principal that has no agent.
    pub fn principal(&self) -> &str {
        &self.principal
    }
}

impl std::fmt::Display for UnknownPrincipal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown principal `{}`: add its agent with `ProfileStore::add_agent` before granting tokens for it",
            self.principal
        )
    }
}

impl std::error::Error for UnknownPrincipal {}

impl<S: Vocabulary> ProfileStore<S> {
    /// An empty store.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::empty())
    }

    fn empty() -> Self {
        ProfileStore {
            tokens: RwLock::default(),
            agents: RwLock::default(),
            writing: Mutex::default(),
            trackers: Mutex::default(),
            backing: OnceLock::new(),
            #[cfg(feature = "runtime-tools")]
            catalogs: None,
        }
    }

    /// An empty store whose agents may also have runtime catalogs, put
    /// through [`AgentStore::put_catalog_if`](crate::AgentStore::put_catalog_if)
    /// in the wire form `decoder` reads (see [`CatalogDecoder`]).
    #[cfg(feature = "runtime-tools")]
    pub fn with_catalogs(decoder: CatalogDecoder<S>) -> Arc<Self> {
        Arc::new(ProfileStore {
            catalogs: Some(decoder),
            ..Self::empty()
        })
    }

    /// The decoder of stored catalogs, if this store takes them.
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn catalog_decoder(&self) -> Option<&CatalogDecoder<S>> {
        self.catalogs.as_ref()
    }

    /// Gives `principal` an agent serving `initial` and returns the
    /// backend's handle on it.
    ///
    /// Adding a principal that already has an agent replaces its profile on
    /// the *same* controller, exactly as
    /// [`ProfileController::replace`](crate::ProfileController::replace)
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
    /// use mcp_profiles::{ProfileContext, ProfileStore};
    ///
    /// let store = ProfileStore::<Demo>::new();
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
        let principal = Principal(Arc::from(principal));
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
                    let controller = ProfileController::new(context);
                    let version = removed.remove(&principal).map_or(1, |last| last + 1);
                    agents.insert(principal, Agent::new(controller.clone(), version));
                    return Ok((controller, None, version));
                }
            }
        };
        // Replaced outside the agents' lock: replacing notifies sessions.
        let (controller, version) = existing;
        let replacement = controller.replace(context);
        Ok((controller, Some(replacement), version))
    }

    /// Installs `catalog`, whose wire form is `wire`, on `principal`'s agent,
    /// bumping its version, if its version is `expected` (`None`: any):
    /// its controller, the installation and the version now in force.
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn install_catalog_if(
        &self,
        principal: &str,
        wire: serde_json::Value,
        catalog: &Catalog<S>,
        expected: Option<u64>,
    ) -> Result<(ProfileController<S>, Installation, u64), CatalogRefusal> {
        let _writing = self.write_lock();
        let (controller, version) = {
            let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
            let agent = agents
                .get_mut(&Principal(Arc::from(principal)))
                .ok_or(CatalogRefusal::NoAgent)?;
            if expected.is_some_and(|expected| expected != agent.version) {
                return Err(CatalogRefusal::Conflict(agent.version));
            }
            agent.version += 1;
            agent.catalog = Some(wire);
            (agent.controller.clone(), agent.version)
        };
        // Installed outside the agents' lock: installing notifies sessions.
        let installation = controller.set_catalog(Some(catalog));
        Ok((controller, installation, version))
    }

    /// The wire form of `principal`'s catalog and the agent's version;
    /// `None` if it has no agent here.
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn catalog_wire(&self, principal: &str) -> Option<(Option<serde_json::Value>, u64)> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        let agent = agents.get(&Principal(Arc::from(principal)))?;
        Some((agent.catalog.clone(), agent.version))
    }

    /// The version of `principal`'s profile, if it has an agent here.
    pub fn version(&self, principal: &str) -> Option<u64> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        agents
            .get(&Principal(Arc::from(principal)))
            .map(|agent| agent.version)
    }

    /// Every principal with an agent here, and its version.
    #[cfg(feature = "redis")]
    pub(crate) fn versions(&self) -> Vec<(String, u64)> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        agents
            .iter()
            .map(|(principal, agent)| (principal.name().to_owned(), agent.version))
            .collect()
    }

    /// Applies version `version` of `principal`'s agent as a shared store
    /// reports it (`None`: removed), as `how` allows; whether it changed
    /// anything here. Versions only move forward, except on [`Apply::Reset`].
    #[cfg(feature = "redis")]
    pub(crate) fn apply(
        &self,
        principal: &str,
        version: u64,
        update: Option<Update<S>>,
        how: Apply,
    ) -> bool {
        // A shared store numbers the versions; nothing is kept for it here.
        let _writing = self.write_lock();
        let key = Principal(Arc::from(principal));
        let controller = {
            let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
            let newer = match agents.get(&key) {
                None => {
                    let (Some(update), Apply::Load | Apply::Reset) = (update, how) else {
                        return false;
                    };
                    let controller = match update {
                        Update::Context(context) => ProfileController::new(context),
                        Update::Whole(context, catalog) => {
                            let controller = ProfileController::new(context);
                            // Before any session can see the controller.
                            if catalog.is_some() {
                                controller.set_catalog(catalog.as_ref());
                            }
                            controller
                        }
                    };
                    agents.insert(key, Agent::new(controller, version));
                    return true;
                }
                Some(agent) => {
                    (how == Apply::Reset && version != agent.version) || version > agent.version
                }
            };
            if !newer {
                return false;
            }
            match update {
                Some(update) => {
                    let agent = agents.get_mut(&key).expect("checked above");
                    agent.version = version;
                    Some((agent.controller.clone(), update))
                }
                None => None,
            }
        };
        match controller {
            // Outside the agents' lock: replacing notifies sessions.
            Some((controller, Update::Context(context))) => {
                controller.replace(context);
            }
            Some((controller, Update::Whole(context, catalog))) => {
                controller.replace_whole(context, catalog);
            }
            None => {
                self.remove_locked(principal);
            }
        }
        true
    }

    /// Removes `principal`'s agent and revokes every token naming it (see
    /// [`revoke`](Self::revoke)); returns its controller, or `None` if it had
    /// no agent. Adding the principal again later starts a new controller;
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
    /// use mcp_profiles::{ProfileContext, ProfileStore};
    ///
    /// let store = ProfileStore::<Demo>::new();
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
        removed.insert(Principal(Arc::from(principal)), version + 1);
        Some(controller)
    }

    /// [`remove_agent`](Self::remove_agent), the writing lock held: the
    /// controller and the version it was at.
    fn remove_locked(&self, principal: &str) -> Option<(ProfileController<S>, u64)> {
        let (controller, ended) = {
            let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
            let agent = agents.remove(&Principal(Arc::from(principal)))?;
            // Under the agents lock, so no `grant` can name it meanwhile.
            let mut tokens = self.tokens.write().unwrap_or_else(|e| e.into_inner());
            let mut ended = Vec::new();
            tokens.retain(|_, grant| {
                let keep = grant.principal.name() != principal;
                if !keep {
                    ended.push(Arc::clone(grant));
                }
                keep
            });
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
    /// use mcp_profiles::{ProfileContext, ProfileStore};
    ///
    /// let store = ProfileStore::<Demo>::new();
    /// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// store.grant("token-for-alice", "alice")?;
    /// store.grant("second-token-for-alice", "alice")?;
    /// # Ok::<(), mcp_profiles::UnknownPrincipal>(())
    /// ```
    pub fn grant(&self, token: &str, principal: &str) -> Result<(), UnknownPrincipal> {
        let replaced = {
            // Held across the token insert, so `remove_agent` cannot slip between.
            let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
            let principal = agents
                .keys()
                .find(|known| known.name() == principal)
                .cloned()
                .ok_or_else(|| UnknownPrincipal {
                    principal: principal.to_owned(),
                })?;
            let mut tokens = self.tokens.write().unwrap_or_else(|e| e.into_inner());
            if tokens
                .get(token)
                .is_some_and(|grant| grant.principal == principal)
            {
                return Ok(());
            }
            let grant = Arc::new(Grant {
                principal,
                ended: CancellationToken::new(),
            });
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
    /// use mcp_profiles::{ProfileContext, ProfileStore};
    ///
    /// let store = ProfileStore::<Demo>::new();
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
        Some(self.grant_for(token)?.principal.clone())
    }

    /// The controller of `principal`'s agent.
    pub fn controller(&self, principal: &Principal) -> Option<ProfileController<S>> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        agents.get(principal).map(|agent| agent.controller.clone())
    }

    /// A server that serves each request with its bearer's profile.
    pub fn server(self: &Arc<Self>, handler: S) -> ProfiledServer<S>
    where
        S: rmcp::ServerHandler,
    {
        ProfiledServer::for_principals(handler, Arc::clone(self))
    }

    /// The cell serving the bearer of `headers`: refused if the token is
    /// unknown, or if the shared store behind this one has been out of
    /// reach for longer than its grace period (the profile held here may
    /// have been narrowed since).
    pub(crate) fn cell_for(&self, headers: &http::HeaderMap) -> Result<Arc<Cell<S>>, ErrorData> {
        self.serving()
            .map_err(|refusal| ErrorData::internal_error(refusal, None))?;
        bearer_token(headers)
            .and_then(|token| self.principal(token))
            .and_then(|principal| self.controller(&principal))
            .map(|controller| controller.cell())
            .ok_or_else(|| {
                ErrorData::invalid_request(
                    "the request's bearer token names no known principal",
                    None,
                )
            })
    }

    /// The live grant of `token`.
    pub(crate) fn grant_for(&self, token: &str) -> Option<Arc<Grant>> {
        let tokens = self.tokens.read().unwrap_or_else(|e| e.into_inner());
        tokens.get(token).cloned()
    }

    /// The grant of `token`, asking the shared store behind this one about
    /// a token not known here; `Err` says why the shared store could not
    /// answer.
    pub(crate) async fn find_grant(&self, token: &str) -> Result<Option<Arc<Grant>>, String> {
        if let Some(grant) = self.grant_for(token) {
            return Ok(Some(grant));
        }
        let Some(backing) = self.backing() else {
            return Ok(None);
        };
        backing?.resolve(token).await?;
        Ok(self.grant_for(token))
    }

    /// Whether this store may serve now: always, unless a shared store
    /// behind it says otherwise.
    pub(crate) fn serving(&self) -> Result<(), String> {
        match self.backing() {
            None => Ok(()),
            Some(backing) => backing?.serving(),
        }
    }

    /// The shared store behind this one: `None` if there is none, `Err` if
    /// it is gone.
    fn backing(&self) -> Option<Result<Arc<dyn Backing>, String>> {
        let backing = self.backing.get()?;
        Some(
            backing.upgrade().ok_or_else(|| {
                "the shared profile store behind this gateway was closed".to_owned()
            }),
        )
    }

    /// Makes this store the local copy of a shared one.
    #[cfg(feature = "redis")]
    pub(crate) fn back_with(&self, backing: Weak<dyn Backing>) {
        let _ = self.backing.set(backing);
    }

    fn write_lock(&self) -> std::sync::MutexGuard<'_, HashMap<Principal, u64>> {
        self.writing.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lets revocations reach the sessions `tracker` holds.
    pub(crate) fn attach(&self, tracker: &Arc<Tracker>) {
        let mut trackers = self.trackers.lock().unwrap_or_else(|e| e.into_inner());
        trackers.retain(|known| known.strong_count() > 0);
        trackers.push(Arc::downgrade(tracker));
    }

    /// Ends everything opened with a grant that is no longer in the store.
    fn end(&self, grant: &Arc<Grant>) {
        // Cancelled before the trackers are searched: a session bound after
        // the search sees the cancellation and closes itself.
        grant.ended.cancel();
        let trackers: Vec<Arc<Tracker>> = {
            let trackers = self.trackers.lock().unwrap_or_else(|e| e.into_inner());
            trackers.iter().filter_map(Weak::upgrade).collect()
        };
        for tracker in trackers {
            tracker.close_sessions_of(grant);
        }
        tracing::info!(principal = grant.principal.name(), "bearer token revoked");
    }
}

/// The token of an `Authorization: Bearer <token>` header.
pub(crate) fn bearer_token(headers: &http::HeaderMap) -> Option<&str> {
    headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .filter(|token| !token.is_empty())
}
