//! What the harnesses of gateway instances on Redis (`gateway`,
//! `gateway_load`, `cluster`) share: one count of `list_changed`
//! notifications that many sessions report to, the 2025-era client that
//! reports them, an instance's MCP endpoint serving its store's agents
//! (Kandev) over streamable HTTP, and a whole instance with its control API.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kandev_mcp::Kandev;
use mcp_profiles_serve::http::HttpServer as Listener;
use mcp_profiles_serve::http::{HttpServer, Limits, Serve};
use mcp_profiles_serve::{AgentStore, ProfileStore, RedisOptions, RedisStore};
use rmcp::ClientHandler;
use rmcp::model::{ClientConfig, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient};
use tokio::sync::Notify;

/// Counts every session's `list_changed` in one place, and notes when the
/// last one was heard.
#[derive(Debug, Default)]
pub struct Heard {
    count: AtomicUsize,
    last: Mutex<Option<Instant>>,
    changed: Notify,
}

impl Heard {
    /// The notifications heard so far.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// When the latest notification was heard (`None` before the first).
    pub fn last_heard(&self) -> Option<Instant> {
        *self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Returns once at least `target` notifications were heard in all.
    pub async fn wait_for(&self, target: usize) {
        loop {
            let notified = self.changed.notified();
            if self.count() >= target {
                return;
            }
            notified.await;
        }
    }

    fn hear(&self) {
        let now = Instant::now();
        {
            let mut last = self
                .last
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            *last = Some(last.map_or(now, |last| last.max(now)));
        }
        self.count.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_waiters();
    }
}

/// A 2025-era client (`list_changed` by notification) that reports each
/// one to its [`Heard`].
#[derive(Debug)]
pub struct CountingClient(pub Arc<Heard>);

impl ClientHandler for CountingClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.hear();
    }
}

/// Serves `profiles`' agents (each request with its bearer token's
/// principal's profile) as Kandev over streamable HTTP on a free loopback
/// port, taking up to 8,192 connections, as a gateway instance's MCP
/// endpoint does; its URL is `http://{local_addr}/mcp`.
pub async fn serve_kandev_agents(profiles: &Arc<ProfileStore<Kandev>>) -> HttpServer {
    let any: std::net::SocketAddr = "127.0.0.1:0".parse().expect("a socket address");
    Serve::on(any)
        .limits(Limits::default().with_max_connections(8192))
        .agents(profiles, Kandev::demo())
        .await
        .expect("127.0.0.1 binds")
}

/// A gateway instance as `kandev-mcp gateway --store redis://...` runs one,
/// in this process: a [`RedisStore`] (grace 30 s, so a loaded machine's
/// slow heartbeat never stops it serving), its agents' MCP endpoint
/// ([`serve_kandev_agents`]) and the gateway's control API on a port of
/// its own.
pub struct Gateway {
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub mcp: String,
    /// The control API's base URL, `http://127.0.0.1:PORT`.
    pub control: String,
    /// The instance's store (its [`ProfileStore`] is what it serves).
    pub store: Arc<RedisStore<Kandev>>,
    _listeners: (Listener, Listener),
}

impl Gateway {
    /// An instance on the Redis at `url`, its control API taking `token`.
    pub async fn start(url: &str, token: &str) -> Gateway {
        Self::start_with(url, token, ProfileStore::default()).await
    }

    /// [`start`](Self::start), serving from `profiles` (empty, built with
    /// the settings it serves under, such as a decision log).
    pub async fn start_with(url: &str, token: &str, profiles: ProfileStore<Kandev>) -> Gateway {
        // Room for every decision of a load run (shipped only by an
        // instance whose `profiles` has a decision log).
        let options = RedisOptions::default()
            .with_grace(std::time::Duration::from_secs(30))
            .with_decision_capacity(1_000_000);
        let store = RedisStore::<Kandev>::connect_with_profiles(url, options, profiles)
            .await
            .expect("the store connects");
        let mcp = serve_kandev_agents(store.profiles()).await;
        let any: std::net::SocketAddr = "127.0.0.1:0".parse().expect("a socket address");
        let app = kandev_mcp::gateway::control::router(Arc::clone(&store) as Arc<_>, token);
        let control = Serve::on(any)
            .limits(kandev_mcp::control::limits())
            .app(app)
            .await
            .expect("127.0.0.1 binds");
        Gateway {
            mcp: format!("http://{}/mcp", mcp.local_addr()),
            control: format!("http://{}", control.local_addr()),
            store,
            _listeners: (mcp, control),
        }
    }

    /// What this instance serves: its agents as it has applied them.
    pub fn profiles(&self) -> &Arc<ProfileStore<Kandev>> {
        self.store.profiles()
    }
}
