//! A whole deployment in a few lines: many agents over streamable HTTP, the
//! [control API](crate::control) on its own listener, the agents in memory
//! or shared through Redis or a Redis Cluster, OAuth if asked, the MCP
//! listener's connections fitted under the open-file limit, and a drain on
//! shutdown.
//!
//! ```no_run
//! # mod server {
//! #     #[derive(Clone)] pub struct Desk;
//! #     impl rmcp::ServerHandler for Desk {}
//! # }
//! # use server::Desk;
//! # mcp_profiles::vocabulary! {
//! #     server Desk;
//! #     #[surfaces] pub enum Surface { Triage }
//! #     #[capabilities] pub enum Capability {}
//! #     #[providers] pub enum Provider {}
//! # }
//! use mcp_profiles_serve::gateway::{Gateway, shutdown_signal};
//!
//! # async fn run() -> std::io::Result<()> {
//! let running = Gateway::new(Desk)
//!     .mcp_on("127.0.0.1:8080".parse().unwrap())
//!     .control_on("127.0.0.1:8081".parse().unwrap(), "control-secret")
//!     .store(std::env::var("STORE").ok()) // redis://..., redis+cluster://..., or memory
//!     .start()
//!     .await?;
//! eprintln!("mcp: http://{}/mcp", running.mcp_addr());
//! running.run_until(shutdown_signal()).await
//! # }
//! ```

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use mcp_profiles::Vocabulary;
use rmcp::ServerHandler;

use crate::control::ControlApi;
use crate::http::{HttpServer, Limits, Serve, fit_to_file_limit};
use crate::{AgentStore, ProfileStore};

/// How a control router is made from the store (an application's own
/// [`ControlApi`], with its routes and context form).
type ControlRouter<S> = Box<dyn FnOnce(Arc<dyn AgentStore<S>>) -> Router + Send>;

/// A deployment to start: see the [module docs](self).
pub struct Gateway<S: Vocabulary> {
    handler: S,
    mcp: SocketAddr,
    control: Option<(SocketAddr, ControlRouter<S>)>,
    store: Option<String>,
    profiles: ProfileStore<S>,
    #[cfg(feature = "redis")]
    redis: crate::RedisOptions,
    #[cfg(feature = "oauth")]
    oauth: Option<crate::oauth::OAuth<S>>,
    limits: Limits,
    fit_file_limit: bool,
    control_limits: Limits,
    drain: Duration,
}

impl<S: Vocabulary> std::fmt::Debug for Gateway<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("mcp", &self.mcp)
            .field("control", &self.control.as_ref().map(|(addr, _)| addr))
            .field("shared", &self.store.is_some())
            .finish_non_exhaustive()
    }
}

/// What the descriptor reserve holds besides MCP connections: the two
/// listeners, the one connection each accepts past its cap only to answer
/// 503, a shared store's connections while they reconnect, and spare.
const RESERVE: u64 = 16;

impl<S: Vocabulary + ServerHandler> Gateway<S> {
    /// A gateway serving `handler`'s tools to every agent, with its MCP
    /// endpoint on `127.0.0.1:8080`, agents in memory and no control
    /// listener until [`control_on`](Self::control_on).
    pub fn new(handler: S) -> Self {
        Gateway {
            handler,
            mcp: SocketAddr::from(([127, 0, 0, 1], 8080)),
            control: None,
            store: None,
            profiles: ProfileStore::default(),
            #[cfg(feature = "redis")]
            redis: crate::RedisOptions::default(),
            #[cfg(feature = "oauth")]
            oauth: None,
            limits: Limits::default(),
            fit_file_limit: true,
            control_limits: control_limits(),
            drain: Duration::from_secs(10),
        }
    }

    /// The MCP listener's address (`/mcp`; port 0 for any free one).
    pub fn mcp_on(mut self, addr: SocketAddr) -> Self {
        self.mcp = addr;
        self
    }

    /// The control API ([`ControlApi`] over the store, every route behind
    /// `token`; with the `prometheus` feature, `/metrics` too) on its own
    /// listener at `addr`, so a saturated MCP port cannot starve it.
    ///
    /// # Panics
    ///
    /// If `token` is empty.
    pub fn control_on(self, addr: SocketAddr, token: &str) -> Self {
        assert!(!token.is_empty(), "the control API needs a token");
        let token = token.to_owned();
        self.control_with(addr, move |store| {
            let api = ControlApi::new(store, &token);
            #[cfg(feature = "prometheus")]
            let api = api.with_metrics(false);
            api.router()
        })
    }

    /// The control listener at `addr` serving what `make` builds from the
    /// store: an application's own [`ControlApi`] with its routes, context
    /// form and admin page.
    pub fn control_with(
        mut self,
        addr: SocketAddr,
        make: impl FnOnce(Arc<dyn AgentStore<S>>) -> Router + Send + 'static,
    ) -> Self {
        self.control = Some((addr, Box::new(make)));
        self
    }

    /// Where the agents live: `redis://HOST:PORT/DB`,
    /// `redis+cluster://HOST:PORT,HOST:PORT` (feature `redis`), or `None`
    /// (or `"memory"`) for this process's memory.
    pub fn store(mut self, url: Option<impl Into<String>>) -> Self {
        self.store = url.map(Into::into).filter(|url| url != "memory");
        self
    }

    /// The serving index the store keeps its agents in, configured (name
    /// presentation, tool search, runtime catalogs, principal metrics).
    pub fn profiles(mut self, profiles: ProfileStore<S>) -> Self {
        self.profiles = profiles;
        self
    }

    /// The Redis store's options (grace, instance name, propagation wait).
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub fn redis_options(mut self, options: crate::RedisOptions) -> Self {
        self.redis = options;
        self
    }

    /// Identifies agents by the access tokens of an identity provider
    /// instead of the control API's tokens.
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn oauth(mut self, oauth: crate::oauth::OAuth<S>) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Identifies agents by the access tokens of the identity provider
    /// the JSON file at `path` describes (see
    /// [`OAuth::from_json`](crate::oauth::OAuth::from_json)), if a path is
    /// given; else as before.
    ///
    /// # Errors
    ///
    /// When the file cannot be read or does not describe one, naming the
    /// file and what is wrong.
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn oauth_file(self, path: Option<&std::path::Path>) -> io::Result<Self> {
        let Some(path) = path else {
            return Ok(self);
        };
        let json = std::fs::read_to_string(path).map_err(|error| {
            io::Error::new(error.kind(), format!("{}: {error}", path.display()))
        })?;
        let oauth = crate::oauth::OAuth::from_json(&json).map_err(|error| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: {error}", path.display()),
            )
        })?;
        Ok(self.oauth(oauth))
    }

    /// Bounds on the MCP listener's connections (fitted under the
    /// open-file limit at start).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Whether [`start`](Self::start) raises the soft open-file limit to
    /// the hard one and lowers the MCP listener's cap so that, full, it
    /// leaves the control listener and the store their descriptors (yes
    /// unless told; an application that fits its own limits says no).
    pub fn fit_file_limit(mut self, fit: bool) -> Self {
        self.fit_file_limit = fit;
        self
    }

    /// The most time shutdown may take.
    pub fn drain(mut self, drain: Duration) -> Self {
        self.drain = drain;
        self
    }

    /// Connects the store, fits the MCP listener under the open-file limit,
    /// binds both listeners and serves them in the background. With the
    /// `prometheus` feature it first installs the Prometheus recorder (see
    /// `prometheus::install`).
    ///
    /// # Errors
    ///
    /// When the store cannot be connected (an unknown URL scheme is one
    /// naming it), the open-file limit leaves no room for a connection, or
    /// a listener cannot bind.
    pub async fn start(self) -> io::Result<RunningGateway<S>> {
        #[cfg(feature = "prometheus")]
        crate::prometheus::install();
        let limits = match self.fit_file_limit {
            true => {
                let reserve = RESERVE + self.control_limits.max_connections() as u64;
                let reserved_for = "the control listener, the store and slack";
                fit_to_file_limit(self.limits, reserve, reserved_for)?
            }
            false => self.limits,
        };
        let limits = limits.with_drain_timeout(self.drain);
        let store: Arc<dyn AgentStore<S>> = match self.store.as_deref() {
            None => Arc::new(crate::MemoryStore::new(self.profiles)),
            #[cfg(feature = "redis")]
            Some(url)
                if ["redis://", "rediss://", "redis+cluster://"]
                    .iter()
                    .any(|scheme| url.starts_with(scheme)) =>
            {
                crate::RedisStore::connect_with_profiles(url, self.redis, self.profiles)
                    .await
                    .map_err(io::Error::other)?
            }
            Some(url) => return Err(unknown_store(url)),
        };
        let serve = Serve::on(self.mcp).limits(limits);
        #[cfg(feature = "oauth")]
        let mcp = match self.oauth {
            Some(oauth) => {
                serve
                    .oauth(store.profiles(), self.handler, Arc::new(oauth))
                    .await?
            }
            None => serve.agents(store.profiles(), self.handler).await?,
        };
        #[cfg(not(feature = "oauth"))]
        let mcp = serve.agents(store.profiles(), self.handler).await?;
        let control = match self.control {
            Some((addr, make)) => {
                let limits = self.control_limits.with_drain_timeout(self.drain);
                let router = make(Arc::clone(&store));
                Some(Serve::on(addr).limits(limits).app(router).await?)
            }
            None => None,
        };
        Ok(RunningGateway {
            store,
            mcp,
            control,
            drain: self.drain,
        })
    }
}

/// The control listener's bounds: one backend talks to it, so a few
/// connections and short timeouts.
pub fn control_limits() -> Limits {
    Limits::default()
        .with_max_connections(32)
        .with_header_read_timeout(Duration::from_secs(5))
        .with_idle_timeout(Duration::from_secs(30))
}

/// The refusal of a store URL of no known kind, naming it.
fn unknown_store(url: &str) -> io::Error {
    let known = if cfg!(feature = "redis") {
        ", `redis://HOST:PORT/DB` or `redis+cluster://HOST:PORT,...`"
    } else {
        " (Redis needs the `redis` feature)"
    };
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("unknown store `{url}`: expected `memory`{known}"),
    )
}

/// A started gateway: its listeners' addresses, its store, and a drain.
pub struct RunningGateway<S: Vocabulary> {
    store: Arc<dyn AgentStore<S>>,
    mcp: HttpServer,
    control: Option<HttpServer>,
    drain: Duration,
}

impl<S: Vocabulary> std::fmt::Debug for RunningGateway<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningGateway")
            .field("mcp", &self.mcp.local_addr())
            .field(
                "control",
                &self.control.as_ref().map(HttpServer::local_addr),
            )
            .finish_non_exhaustive()
    }
}

impl<S: Vocabulary> RunningGateway<S> {
    /// Where MCP is served (at [`MCP_PATH`](crate::http::MCP_PATH)).
    pub fn mcp_addr(&self) -> SocketAddr {
        self.mcp.local_addr()
    }

    /// Where the control listener is, if there is one.
    pub fn control_addr(&self) -> Option<SocketAddr> {
        self.control.as_ref().map(HttpServer::local_addr)
    }

    /// The store the agents live in.
    pub fn store(&self) -> &Arc<dyn AgentStore<S>> {
        &self.store
    }

    /// Writes where it listens to stderr, a line each: `mcp:
    /// http://ADDR/mcp`, then (with a control listener) `control:
    /// http://ADDR`. A stable form, for the scripts and test harnesses
    /// that start a gateway on port 0 and read its addresses.
    pub fn announce(&self) {
        eprintln!("mcp: http://{}{}", self.mcp_addr(), crate::http::MCP_PATH);
        if let Some(control) = self.control_addr() {
            eprintln!("control: http://{control}");
        }
    }

    /// Serves until `stop` resolves, then drains both listeners within the
    /// drain time (a listener that does not is logged and left).
    ///
    /// # Errors
    ///
    /// When a listener fails while draining.
    pub async fn run_until(self, stop: impl Future<Output = ()>) -> io::Result<()> {
        stop.await;
        self.shutdown().await
    }

    /// Drains both listeners within the drain time, then ships the call
    /// decisions this instance heard and has not shipped yet (see
    /// [`AgentStore::decisions_written`]; one that cannot is logged).
    ///
    /// # Errors
    ///
    /// When a listener fails while draining.
    pub async fn shutdown(self) -> io::Result<()> {
        let deadline = tokio::time::Instant::now() + self.drain;
        let control = async {
            match self.control {
                Some(control) => Some(tokio::time::timeout_at(deadline, control.shutdown()).await),
                None => None,
            }
        };
        let (mcp, control) = tokio::join!(
            tokio::time::timeout_at(deadline, self.mcp.shutdown()),
            control
        );
        for (what, outcome) in [("MCP", Some(mcp)), ("control", control)] {
            match outcome {
                Some(Ok(result)) => result?,
                Some(Err(_)) => {
                    tracing::warn!("the {what} listener did not drain in time; exiting anyway");
                }
                None => {}
            }
        }
        let shipped = tokio::time::timeout_at(deadline, self.store.decisions_written()).await;
        if !matches!(shipped, Ok(Ok(()))) {
            tracing::warn!("call decisions heard here could not all be shipped before exiting");
        }
        Ok(())
    }
}

/// Resolves on Ctrl-C or, on Unix, `SIGTERM` (what a container runtime
/// sends to stop a process).
pub async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}
