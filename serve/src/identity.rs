//! Who is asking: the principal a bearer token stands for, the grant that
//! lets a token act as one, and the hook that ends what a grant opened.
//!
//! Nothing here knows profiles or transports: the profile store keeps
//! grants, and the HTTP layer books the sessions each one opened.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

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
/// use mcp_profiles::ProfileContext;
/// use mcp_profiles_serve::ProfileStore;
/// use std::sync::Arc;
///
/// let store = Arc::new(ProfileStore::<Demo>::default());
/// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
/// store.grant("token-for-alice", "alice")?;
/// assert_eq!(store.principal("token-for-alice").unwrap().name(), "alice");
/// # Ok::<(), mcp_profiles_serve::UnknownPrincipal>(())
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

/// Principals are found by name: `store.controller("alice")`.
impl std::borrow::Borrow<str> for Principal {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// One granted token: whom it names, and the signal that ends every
/// session and response stream opened with it.
pub(crate) struct Grant {
    principal: Principal,
    ended: CancellationToken,
    /// The principal's request counter, when the store labels principals
    /// (registered on first use by `telemetry::admitted`).
    #[cfg(feature = "metrics")]
    meter: std::sync::OnceLock<metrics::Counter>,
}

impl Grant {
    /// A live grant of a token for `principal`.
    pub(crate) fn new(principal: Principal) -> Self {
        Grant {
            principal,
            ended: CancellationToken::new(),
            #[cfg(feature = "metrics")]
            meter: std::sync::OnceLock::new(),
        }
    }

    /// The principal the token names.
    pub(crate) fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The principal's request counter (registered on first use).
    #[cfg(feature = "metrics")]
    pub(crate) fn meter(&self) -> &std::sync::OnceLock<metrics::Counter> {
        &self.meter
    }

    /// Cancelled once the token is revoked.
    pub(crate) fn ended(&self) -> &CancellationToken {
        &self.ended
    }
}

/// What ends the sessions a grant opened once it is revoked: the session
/// book of each router serving a profile store.
pub(crate) trait SessionBook: Send + Sync {
    /// Closes every session opened with `grant` (already cancelled).
    fn close_sessions_of(&self, grant: &Arc<Grant>);
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
/// let store = mcp_profiles_serve::ProfileStore::<Demo>::default();
/// let error = store.grant("token-for-carol", "carol").unwrap_err();
/// assert_eq!(error.principal(), "carol");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPrincipal {
    principal: String,
}

impl UnknownPrincipal {
    /// `principal` has no agent (for a store backing to answer with).
    pub fn new(principal: &str) -> Self {
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
            "unknown principal `{}`: it has no agent; put its agent before granting it a token",
            self.principal
        )
    }
}

impl std::error::Error for UnknownPrincipal {}

/// The token of an `Authorization: Bearer <token>` header.
pub(crate) fn bearer_token(headers: &http::HeaderMap) -> Option<&str> {
    headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .filter(|token| !token.is_empty())
}
