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

pub mod control;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use mcp_profiles::Presentation;
use mcp_profiles_serve::gateway::Gateway;
use mcp_profiles_serve::http::Limits;
use mcp_profiles_serve::oauth::OAuth;
use mcp_profiles_serve::{ProfileStore, RedisOptions};

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
    /// Lists carry their revision and digest in `_meta`.
    pub stamp_exposure: bool,
    /// MCP's grouping extension served to the clients that declare it.
    pub grouping: bool,
    /// Every call decision shipped to the store's decision log.
    pub log_decisions: bool,
}

/// The serving index `config` asks for: its agents' plugin-tool snapshots
/// installed as runtime catalogs whose calls go to `config.plugin_backend`,
/// their sessions listing tool names under `config.presentation`, with
/// tool search where it applies. One that collides over Kandev's tools is
/// an error naming both, and nothing is served.
fn profiles(config: &Config) -> io::Result<ProfileStore<Kandev>> {
    let decoder = catalog_decoder(config.plugin_backend.clone());
    let mut profiles = ProfileStore::<Kandev>::default().with_catalogs(decoder);
    if config.principal_metrics {
        profiles = profiles.with_principal_metrics();
    }
    if config.stamp_exposure {
        profiles = profiles.with_exposure_stamp();
    }
    if config.grouping {
        profiles = profiles.with_grouping();
    }
    if config.log_decisions {
        let log = mcp_profiles_serve::audit::decisions::DecisionLog::new(100_000);
        profiles = profiles.with_decision_log(std::sync::Arc::new(log));
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
    Ok(profiles)
}

/// Serves MCP and the control API until `stop` resolves, then drains both
/// within `config.drain`: the library's [`Gateway`] with Kandev's tools,
/// control API and serving index. Announces `mcp: URL` and `control: URL`
/// on stderr.
pub async fn run(config: Config, stop: impl Future<Output = ()>) -> io::Result<()> {
    // Before the store makes any controller.
    crate::prometheus::install();
    let mut options = RedisOptions::default().with_grace(config.grace);
    if let Some(name) = &config.instance_name {
        options = options.with_instance_name(name);
    }
    if let Some(wait) = config.propagation_wait {
        options = options.with_propagation_wait(wait);
    }
    let scrape = (!config.metrics_public).then(|| config.control_token.clone());
    let (token, name) = (
        config.control_token.clone(),
        config.control_token_name.clone(),
    );
    let mut gateway = Gateway::new(Kandev::demo())
        .mcp_on(config.http)
        .store(config.store.clone())
        .profiles(profiles(&config)?)
        .redis_options(options)
        .limits(config.limits)
        // `main` fitted them, refusing a limit too low with its own exit code.
        .fit_file_limit(false)
        .drain(config.drain)
        .control_with(config.control, move |store| {
            control::router_with_name(store, &token, &name)
                .merge(crate::prometheus::router(scrape.as_deref()))
        });
    if let Some(oauth) = config.oauth {
        tracing::info!(
            issuer = oauth.config().issuer(),
            "agents identified by OAuth access tokens"
        );
        gateway = gateway.oauth(oauth);
    }
    let running = gateway.start().await?;
    running.announce();
    match &config.store {
        Some(_) => tracing::info!("gateway serving agents from the shared store"),
        None => tracing::info!("gateway serving agents from memory"),
    }
    running.run_until(stop).await
}
