//! Streamable HTTP: an axum router serving a [`ProfiledServer`] at `/mcp`,
//! and a server for it whose connections are bounded (see [`Limits`]).
//!
//! Every HTTP session gets its own clone of the server, so all of them share
//! one profile and each is notified on its own.

mod files;
mod head;
mod limits;
mod listener;
#[cfg(feature = "oauth")]
mod oauth;
mod resolver;
mod single_valued;
mod tracker;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

pub use files::{NoRoomForConnections, open_files, raise_file_limit};
pub use limits::{Limits, fit_to_file_limit};
pub use listener::HttpServer;
#[cfg(feature = "oauth")]
pub use oauth::oauth_router;
pub use single_valued::{SINGLE_VALUED, repeated_header};

use mcp_profiles::{ProfiledServer, Vocabulary};

use crate::ProfileStore;
use crate::identity::{Grant, SessionBook, bearer_token};
use crate::telemetry::{self, HttpRefusal};
use resolver::{Admitted, Served, StoreResolver};
use tracker::{Tracker, unauthorised, unavailable};

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// An axum router serving `server` at [`MCP_PATH`] with rmcp's streamable
/// HTTP transport (sessions kept in memory, loopback `Host`s only unless
/// `config` says otherwise).
pub fn router<S>(server: ProfiledServer<S>, config: StreamableHttpServerConfig) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    mcp_router(server, Arc::default(), config)
}

fn mcp_router<S>(
    server: ProfiledServer<S>,
    sessions: Arc<LocalSessionManager>,
    config: StreamableHttpServerConfig,
) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    let service = StreamableHttpService::new(move || Ok(server.new_session()), sessions, config);
    axum::Router::new()
        .nest_service(MCP_PATH, service)
        .layer(axum::middleware::from_fn(single_valued::refuse_repeated))
}

/// An axum router serving many agents at [`MCP_PATH`]: every request must
/// carry `Authorization: Bearer <token>` for a principal of `store` (else 401
/// before MCP sees it) and is served with that principal's profile, looked up
/// per request. Works for 2025-era sessions and 2026-07-28 stateless
/// requests alike.
///
/// A 2025-era session belongs to the token that initialised it: a request
/// naming its session id with any other token gets 404, as an unknown
/// session would. [`ProfileStore::revoke`] ends the token's sessions and
/// response streams on every router serving the store.
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
/// let app = mcp_profiles_serve::http::multi_agent_router(&store, Demo, Default::default());
/// // Nest `app` in a larger axum app, or serve it with `Serve::on(addr).app(app)`.
/// # drop(app);
/// ```
pub fn multi_agent_router<S>(
    store: &Arc<ProfileStore<S>>,
    handler: S,
    config: StreamableHttpServerConfig,
) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    let gate = Arc::clone(store);
    agents_router(store, handler, config, move |request| {
        let gate = Arc::clone(&gate);
        async move {
            // The token is read and looked up here, once per request; the
            // server reads the profile this leaves in the request.
            let grant = match bearer_token(request.headers()) {
                // A token unknown here may be known to a shared store.
                Some(token) => match gate.find_grant(token).await {
                    Ok(grant) => grant,
                    Err(refusal) => {
                        telemetry::http_refused(HttpRefusal::StoreUnavailable);
                        return Err(unavailable(&refusal.to_string()));
                    }
                },
                None => None,
            };
            let admitted = grant.and_then(|grant| gate.admit(&grant).map(|handle| (grant, handle)));
            let Some((grant, handle)) = admitted else {
                telemetry::http_refused(HttpRefusal::UnknownToken);
                return Err(unauthorised());
            };
            Ok((grant, handle, request))
        }
    })
}

/// The MCP router of many agents: `admit` finds each request's identity and
/// profile (or the answer refusing it); the session book binds 2025-era
/// sessions to the identity that opened them and ends them with it.
fn agents_router<S, A, F>(
    store: &Arc<ProfileStore<S>>,
    handler: S,
    config: StreamableHttpServerConfig,
    admit: A,
) -> axum::Router
where
    S: Vocabulary + ServerHandler,
    A: Fn(axum::extract::Request) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Result<Admitted<S>, axum::response::Response>> + Send,
{
    let sessions = Arc::new(LocalSessionManager::default());
    let tracker = Arc::new(Tracker::new(Arc::clone(&sessions)));
    let book: Arc<dyn SessionBook> = tracker.clone();
    store.attach(Arc::downgrade(&book));
    let server = ProfiledServer::resolving(handler, Arc::new(StoreResolver::new(store)));
    let counted = Arc::clone(store);
    mcp_router(server, sessions, config)
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let (admit, tracker) = (admit.clone(), Arc::clone(&tracker));
                let counted = Arc::clone(&counted);
                async move {
                    let (grant, handle, mut request) = match admit(request).await {
                        Ok(admitted) => admitted,
                        Err(refusal) => return refusal,
                    };
                    count_admitted(&counted, &grant);
                    request.extensions_mut().insert(Served {
                        handle,
                        principal: grant.principal().clone(),
                    });
                    tracker.serve(grant, request, next).await
                }
            },
        ))
        // Outermost: before the token is read.
        .layer(axum::middleware::from_fn(single_valued::refuse_repeated))
}

/// Counts a request `store`'s router admitted with `grant`, and whether
/// its MCP requests will be refused for a store out of reach too long.
#[inline]
fn count_admitted<S: Vocabulary>(store: &ProfileStore<S>, grant: &Grant) {
    telemetry::admitted(grant, store.principal_metrics());
    #[cfg(feature = "metrics")]
    if store.serving(Some(grant.principal())).is_err() {
        telemetry::grace_refused();
    }
}

/// One listener, built up then started: where it binds, the [`Limits`] on
/// its connections, and what it serves — one agent's [`ProfiledServer`],
/// many agents of a [`ProfileStore`], or any axum app (a larger app around
/// [`router`], a control API). Each serves in a background task until
/// [`HttpServer::shutdown`], which stops accepting, ends MCP sessions and
/// drains within the limits' drain timeout.
///
/// ```no_run
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
/// use std::time::Duration;
/// use mcp_profiles::{ProfileContext, ProfileController};
/// use mcp_profiles_serve::http::{Limits, Serve};
///
/// # async fn run() -> std::io::Result<()> {
/// let controller = ProfileController::<Demo>::new(ProfileContext::new(Surface::Ticket));
/// let limits = Limits::default().with_max_connections(64).with_drain_timeout(Duration::from_secs(5));
/// let http = Serve::on("127.0.0.1:0".parse().unwrap())
///     .limits(limits)
///     .one(controller.server(Demo))
///     .await?;
/// http.shutdown().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
#[must_use = "a Serve does nothing until one of `one`, `agents` or `app` starts it"]
pub struct Serve {
    addr: SocketAddr,
    limits: Limits,
}

impl Serve {
    /// A listener on `addr` (`127.0.0.1:0` for any free port), with the
    /// default [`Limits`].
    pub fn on(addr: SocketAddr) -> Self {
        Serve {
            addr,
            limits: Limits::default(),
        }
    }

    /// Bounds its connections with `limits`.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Serves `server` at [`MCP_PATH`]: one agent, every session sharing
    /// its controller's profile.
    pub async fn one<S>(self, server: ProfiledServer<S>) -> std::io::Result<HttpServer>
    where
        S: Vocabulary + ServerHandler,
    {
        let (config, stop) = stoppable();
        listener::spawn(router(server, config), self.addr, self.limits, stop).await
    }

    /// Serves many agents at [`MCP_PATH`]: see [`multi_agent_router`].
    pub async fn agents<S>(
        self,
        store: &Arc<ProfileStore<S>>,
        handler: S,
    ) -> std::io::Result<HttpServer>
    where
        S: Vocabulary + ServerHandler,
    {
        let (config, stop) = stoppable();
        let app = multi_agent_router(store, handler, config);
        listener::spawn(app, self.addr, self.limits, stop).await
    }

    /// Serves many agents at [`MCP_PATH`] as an OAuth 2.1 resource server,
    /// with the Protected Resource Metadata: see [`oauth_router`].
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub async fn oauth<S>(
        self,
        store: &Arc<ProfileStore<S>>,
        handler: S,
        oauth: Arc<crate::oauth::OAuth<S>>,
    ) -> std::io::Result<HttpServer>
    where
        S: Vocabulary + ServerHandler,
    {
        let (config, stop) = stoppable();
        let app = oauth_router(store, handler, oauth, config);
        listener::spawn(app, self.addr, self.limits, stop).await
    }

    /// Serves any axum app.
    ///
    /// [`HttpServer::shutdown`] cannot end the MCP sessions of routers
    /// nested in it: give their `StreamableHttpServerConfig` a
    /// cancellation token and cancel it first, or their streams are cut at
    /// the drain timeout.
    pub async fn app(self, app: axum::Router) -> std::io::Result<HttpServer> {
        listener::spawn(app, self.addr, self.limits, CancellationToken::new()).await
    }
}

/// Binds `addr` (use `127.0.0.1:0` for any free port) and serves `server`
/// at `/mcp` in a background task, with the default [`Limits`]: short for
/// `Serve::on(addr).one(server)`.
#[deprecated(note = "use `Serve::on(addr).one(server)`: one builder for every listener")]
pub async fn serve<S>(server: ProfiledServer<S>, addr: SocketAddr) -> std::io::Result<HttpServer>
where
    S: Vocabulary + ServerHandler,
{
    Serve::on(addr).one(server).await
}

/// Like [`serve`], with `limits` on the listener's connections.
#[deprecated(note = "use `Serve::on(addr).limits(limits).one(server)`")]
pub async fn serve_with<S>(
    server: ProfiledServer<S>,
    addr: SocketAddr,
    limits: Limits,
) -> std::io::Result<HttpServer>
where
    S: Vocabulary + ServerHandler,
{
    Serve::on(addr).limits(limits).one(server).await
}

/// Like [`serve`], for many agents (see [`multi_agent_router`]): short for
/// `Serve::on(addr).agents(store, handler)`.
#[deprecated(note = "use `Serve::on(addr).agents(store, handler)`: one builder for every listener")]
pub async fn serve_multi_agent<S>(
    store: &Arc<ProfileStore<S>>,
    handler: S,
    addr: SocketAddr,
) -> std::io::Result<HttpServer>
where
    S: Vocabulary + ServerHandler,
{
    Serve::on(addr).agents(store, handler).await
}

/// Like [`serve_multi_agent`], with `limits` on the listener's connections.
#[deprecated(note = "use `Serve::on(addr).limits(limits).agents(store, handler)`")]
pub async fn serve_multi_agent_with<S>(
    store: &Arc<ProfileStore<S>>,
    handler: S,
    addr: SocketAddr,
    limits: Limits,
) -> std::io::Result<HttpServer>
where
    S: Vocabulary + ServerHandler,
{
    Serve::on(addr).limits(limits).agents(store, handler).await
}

/// Binds `addr` and serves any axum app in a background task, with `limits`
/// on its connections.
#[deprecated(note = "use `Serve::on(addr).limits(limits).app(app)`")]
pub async fn serve_router(
    app: axum::Router,
    addr: SocketAddr,
    limits: Limits,
) -> std::io::Result<HttpServer> {
    Serve::on(addr).limits(limits).app(app).await
}

/// rmcp's default configuration, with its sessions ended by the returned
/// token, which stops the server.
fn stoppable() -> (StreamableHttpServerConfig, CancellationToken) {
    let stop = CancellationToken::new();
    let config = StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    (config, stop)
}
