//! `kandev-mcp gateway`: many agents behind one MCP endpoint, each request
//! served with the profile of the principal its bearer token names.
//!
//! Without a store URL the agents live in this process
//! ([`mcp_profiles_serve::ProfileStore`]); with `redis://HOST:PORT/DB` they live
//! in Redis ([`mcp_profiles_serve::RedisStore`]; on a Redis Cluster with
//! `redis+cluster://HOST:PORT,HOST:PORT`), so several gateways behind a load
//! balancer serve the same agents and a change through any one's control
//! API reaches every session of that principal on all of them, once. The
//! operator's kill switch (`/api/v1/kill-switch`) is one deny list over
//! every agent, shared the same way. With a name presentation
//! (`--present-without-suffix`) every agent's sessions list Kandev's tools
//! without `_kandev`; every gateway sharing a store should be started alike.
//!
//! With `--oauth CONFIG` the gateway is an OAuth 2.1 resource server: each
//! request's access token from the organisation's identity provider names
//! its principal and may narrow that principal's stored profile (see
//! [`mcp_profiles_serve::oauth::OAuth`]); the control API still manages the
//! stored profiles, and its token routes serve no MCP request then.

mod admin;
pub mod control;
mod plugins;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_profiles::Presentation;
use mcp_profiles_serve::http::Limits;
use mcp_profiles_serve::oauth::OAuth;
use mcp_profiles_serve::{AgentStore, ProfileStore, RedisOptions, RedisStore};

use crate::plugins::{Backend, catalog_decoder};
use crate::server::Kandev;

/// What `kandev-mcp gateway` was asked to run.
pub struct Config {
    /// The MCP listener (`/mcp`).
    pub http: SocketAddr,
    /// `redis://HOST:PORT/DB`, `redis+cluster://HOST:PORT,HOST:PORT`, or
    /// `None` for the in-memory store.
    pub store: Option<String>,
    /// The control API's listener.
    pub control: SocketAddr,
    /// The control API's bearer token (non-empty).
    pub control_token: String,
    /// The name the control API's changes are recorded under in the audit
    /// trail (never the token; see
    /// [`token_name`](crate::control::attribution::token_name)).
    pub control_token_name: String,
    /// How long to serve without Redis before refusing (see
    /// [`RedisOptions::with_grace`]).
    pub grace: Duration,
    /// With Redis: this gateway's name among those sharing the store, as a
    /// change's answer names the ones that did not confirm it (see
    /// [`RedisOptions::with_instance_name`]); `None`: host, pid and a
    /// random suffix.
    pub instance_name: Option<String>,
    /// With Redis: how long a change's answer waits for every gateway to
    /// confirm it (see [`RedisOptions::with_propagation_wait`]); `None`:
    /// the store's default.
    pub propagation_wait: Option<Duration>,
    /// Where every agent's plugin-tool calls go.
    pub plugin_backend: Backend,
    /// Bounds on the MCP listener's connections.
    pub limits: Limits,
    /// The most time shutdown may take.
    pub drain: Duration,
    /// How every agent's sessions see tool names (see
    /// [`crate::naming`]); `None`: Kandev's own names.
    pub presentation: Option<Presentation>,
    /// Tool search on every agent's sessions where it applies (see
    /// [`crate::search`]); `None`: every tool listed.
    pub tool_search: Option<mcp_profiles::ToolSearch<Kandev>>,
    /// Access tokens of an identity provider instead of the control API's
    /// bearer tokens; `None`: the control API's tokens.
    pub oauth: Option<OAuth<Kandev>>,
    /// `GET /metrics` without the control token.
    pub metrics_public: bool,
    /// Requests counted per principal (a `principal` label).
    pub principal_metrics: bool,
}

/// The store `config` names, connected. Its agents' plugin-tool snapshots
/// are installed as runtime catalogs whose calls go to
/// `config.plugin_backend`, and their sessions list tool names under
/// `config.presentation`; one that collides over Kandev's tools is an error
/// naming both, and nothing is served.
pub async fn store(config: &Config) -> io::Result<Arc<dyn AgentStore<Kandev>>> {
    let decoder = catalog_decoder(config.plugin_backend.clone());
    let mut profiles = ProfileStore::<Kandev>::default().with_catalogs(decoder);
    if config.principal_metrics {
        profiles = profiles.with_principal_metrics();
    }
    if let Some(presentation) = &config.presentation {
        profiles = profiles
            .with_presentation(presentation.clone())
            .map_err(io::Error::other)?;
    }
    if let Some(search) = &config.tool_search {
        profiles = profiles
            .with_tool_search(search.clone())
            .map_err(io::Error::other)?;
    }
    Ok(match &config.store {
        None => Arc::new(Arc::new(profiles)),
        Some(url) => {
            let mut options = RedisOptions::default().with_grace(config.grace);
            if let Some(name) = &config.instance_name {
                options = options.with_instance_name(name);
            }
            if let Some(wait) = config.propagation_wait {
                options = options.with_propagation_wait(wait);
            }
            let store = RedisStore::connect_with_profiles(url, options, profiles)
                .await
                .map_err(io::Error::other)?;
            Arc::new(store)
        }
    })
}

/// Serves MCP and the control API until `stop` resolves, then drains both
/// within `config.drain`. Announces `mcp: URL` and `control: URL` on stderr.
pub async fn run(mut config: Config, stop: impl Future<Output = ()>) -> io::Result<()> {
    // Before the store makes any controller.
    crate::prometheus::install();
    let store = store(&config).await?;
    let serve = mcp_profiles_serve::http::Serve::on(config.http)
        .limits(config.limits.with_drain_timeout(config.drain));
    let mcp = match config.oauth.take() {
        Some(oauth) => {
            tracing::info!(
                issuer = oauth.config().issuer(),
                "agents identified by OAuth access tokens"
            );
            serve
                .oauth(store.profiles(), Kandev::demo(), Arc::new(oauth))
                .await?
        }
        None => serve.agents(store.profiles(), Kandev::demo()).await?,
    };
    eprintln!("mcp: http://{}/mcp", mcp.local_addr());
    let scrape = (!config.metrics_public).then_some(config.control_token.as_str());
    let app = control::router_with_name(
        Arc::clone(&store),
        &config.control_token,
        &config.control_token_name,
    )
    .merge(crate::prometheus::router(scrape));
    let limits = crate::control::limits().with_drain_timeout(config.drain);
    let control = mcp_profiles_serve::http::Serve::on(config.control)
        .limits(limits)
        .app(app)
        .await?;
    eprintln!("control: http://{}", control.local_addr());
    match &config.store {
        Some(_) => tracing::info!("gateway serving agents from the shared store"),
        None => tracing::info!("gateway serving agents from memory"),
    }
    stop.await;
    let deadline = tokio::time::Instant::now() + config.drain;
    let (mcp, control) = tokio::join!(
        tokio::time::timeout_at(deadline, mcp.shutdown()),
        tokio::time::timeout_at(deadline, control.shutdown()),
    );
    for (what, outcome) in [("MCP", mcp), ("control", control)] {
        match outcome {
            Ok(result) => result?,
            Err(_) => tracing::warn!("the {what} listener did not drain in time; exiting anyway"),
        }
    }
    Ok(())
}
