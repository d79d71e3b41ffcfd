//! Many agents behind one HTTP endpoint: each request's bearer token names a
//! principal, and each principal has its own profile.
//!
//! With MCP 2026-07-28 a streamable-HTTP request may be served by a handler
//! built for that request alone, and the tool set may vary by the request's
//! authorisation but not per connection. So the profile is looked up per
//! request: token → principal → that principal's controller. An unknown
//! token is refused; replacing one principal's profile never touches
//! another's.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::controller::Cell;
use crate::{ProfileContext, ProfileController, ProfiledServer, Vocabulary};

/// The identity a bearer token stands for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Principal(Arc<str>);

impl Principal {
    /// The principal's name.
    pub fn name(&self) -> &str {
        &self.0
    }
}

/// Every agent's profile, keyed by principal, and the tokens that name them.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { KanbanTask, External }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use mcp_profiles::{ProfileContext, ProfileStore};
///
/// let store = ProfileStore::<Demo>::new();
/// let alice = store.add_agent("alice", ProfileContext::new(Surface::KanbanTask));
/// store.grant("token-for-alice", "alice").unwrap();
/// let router = mcp_profiles::http::multi_agent_router(&store, Demo, Default::default());
/// // The backend replaces alice's profile through `alice`; bob is untouched.
/// alice.replace(ProfileContext::new(Surface::External));
/// # drop(router);
/// ```
pub struct ProfileStore<S: Vocabulary> {
    tokens: RwLock<HashMap<String, Principal>>,
    agents: RwLock<HashMap<Principal, ProfileController<S>>>,
}

/// A token was granted for a principal that has no agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPrincipal(pub String);

impl std::fmt::Display for UnknownPrincipal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown principal `{}`", self.0)
    }
}

impl std::error::Error for UnknownPrincipal {}

impl<S: Vocabulary> ProfileStore<S> {
    /// An empty store.
    pub fn new() -> Arc<Self> {
        Arc::new(ProfileStore {
            tokens: RwLock::default(),
            agents: RwLock::default(),
        })
    }

    /// Adds (or replaces) `principal`'s agent with profile `initial`; the
    /// returned controller is the backend's handle on it.
    pub fn add_agent(&self, principal: &str, initial: ProfileContext<S>) -> ProfileController<S> {
        let controller = ProfileController::new(initial);
        let principal = Principal(Arc::from(principal));
        let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
        agents.insert(principal, controller.clone());
        controller
    }

    /// Lets requests bearing `token` act as `principal`.
    pub fn grant(&self, token: &str, principal: &str) -> Result<(), UnknownPrincipal> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        let principal = agents
            .keys()
            .find(|known| known.name() == principal)
            .cloned()
            .ok_or_else(|| UnknownPrincipal(principal.to_owned()))?;
        let mut tokens = self.tokens.write().unwrap_or_else(|e| e.into_inner());
        tokens.insert(token.to_owned(), principal);
        Ok(())
    }

    /// Stops accepting `token`.
    pub fn revoke(&self, token: &str) {
        let mut tokens = self.tokens.write().unwrap_or_else(|e| e.into_inner());
        tokens.remove(token);
    }

    /// The principal `token` stands for.
    pub fn principal(&self, token: &str) -> Option<Principal> {
        let tokens = self.tokens.read().unwrap_or_else(|e| e.into_inner());
        tokens.get(token).cloned()
    }

    /// The controller of `principal`'s agent.
    pub fn controller(&self, principal: &Principal) -> Option<ProfileController<S>> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        agents.get(principal).cloned()
    }

    /// A server that serves each request with its bearer's profile.
    pub fn server(self: &Arc<Self>, handler: S) -> ProfiledServer<S> {
        ProfiledServer::for_principals(handler, Arc::clone(self))
    }

    /// The cell serving the bearer of `headers`, if the token is known.
    pub(crate) fn cell_for(&self, headers: &http::HeaderMap) -> Option<Arc<Cell<S>>> {
        let principal = self.principal(bearer_token(headers)?)?;
        Some(self.controller(&principal)?.cell())
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
