//! The two sides of the fan-out comparison, each with its connected
//! sessions and their probe, and one measured change.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kandev_mcp::Kandev;
use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};
use mcp_profiles_bench::per_session::RouterSessions;
use mcp_profiles_bench::relisting::{Probe, Relister};
use mcp_profiles_bench::sessions::{connect_clients, connect_in_process, join_spawned};
use mcp_profiles_serve::http::{HttpServer, Limits};
use mcp_profiles_tests::client::http_transport;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

/// Bytes each way of an in-process pipe (a socket buffer's order).
const PIPE: usize = 64 * 1024;
/// HTTP handshakes in flight at once while connecting.
const HANDSHAKES: usize = 50;
/// How long a change may take to reach and be re-listed by every session.
const LIMIT: Duration = Duration::from_secs(300);

/// How the sessions are connected.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// `tokio::io::duplex` pipes.
    InProcess,
    /// Streamable HTTP on 127.0.0.1.
    Http,
}

impl Transport {
    /// The name in the table and the JSON.
    pub fn label(self) -> &'static str {
        match self {
            Transport::InProcess => "in-process",
            Transport::Http => "http",
        }
    }
}

/// One measured change, in microseconds.
pub struct Sample {
    round: usize,
    change: f64,
    heard: f64,
    relisted: f64,
    heard_after_return: f64,
    relisted_after_return: f64,
}

/// A measure of a sample.
pub type Measure = fn(&Sample) -> f64;

/// The measures, by their JSON names.
pub const MEASURES: [(&str, Measure); 5] = [
    ("change_us", |s| s.change),
    ("heard_us", |s| s.heard),
    ("relisted_us", |s| s.relisted),
    ("heard_after_return_us", |s| s.heard_after_return),
    ("relisted_after_return_us", |s| s.relisted_after_return),
];

impl Sample {
    /// The sample as a JSON object.
    pub fn to_json(&self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("round".to_owned(), json!(self.round));
        for (measure, get) in MEASURES {
            object.insert(measure.to_owned(), json!(get(self)));
        }
        Value::Object(object)
    }
}

/// What a change does on each side.
#[derive(Clone)]
enum Changer {
    /// `replace` on the controller all sessions share.
    Profiles(ProfileController<Kandev>),
    /// Rebuild and notify every session's router.
    Routers(Arc<RouterSessions<Kandev>>),
}

/// One side: its sessions, their clients and probe.
pub struct Side {
    changer: Changer,
    probe: Arc<Probe>,
    clients: Vec<RunningService<RoleClient, Relister>>,
    sessions: usize,
    contexts: [ProfileContext<Kandev>; 2],
    tools: [usize; 2],
    changes: u32,
    http: Option<HttpServer>,
}

fn limits() -> Limits {
    Limits::default()
        .with_max_connections(16_384)
        .with_drain_timeout(Duration::from_secs(1))
}

fn loopback() -> std::net::SocketAddr {
    "127.0.0.1:0".parse().expect("an address")
}

impl Side {
    /// mcp-profiles: `sessions` sessions of one controller, at `contexts[0]`.
    pub async fn profiles(
        transport: Transport,
        sessions: usize,
        contexts: [ProfileContext<Kandev>; 2],
        relist: bool,
    ) -> Side {
        let controller = ProfileController::<Kandev>::new(contexts[0]);
        let server = controller.server(Kandev::demo());
        let probe = Probe::new(sessions, relist);
        let started = Instant::now();
        let (clients, http) = match transport {
            Transport::InProcess => {
                let clients =
                    connect_in_process(sessions, PIPE, |_| server.clone(), |i| probe.client(i))
                        .await;
                (clients, None)
            }
            Transport::Http => {
                let http = mcp_profiles_serve::http::Serve::on(loopback())
                    .limits(limits())
                    .one(server)
                    .await
                    .expect("serving mcp-profiles over HTTP");
                let clients = http_clients(&http, sessions, &probe).await;
                (clients, Some(http))
            }
        };
        until("mcp-profiles sessions registered", || {
            controller.session_count() == sessions
        })
        .await;
        let side = Side::new(
            Changer::Profiles(controller),
            probe,
            clients,
            contexts,
            http,
        );
        side.connected(started).await;
        side
    }

    /// rmcp: `sessions` sessions, each with its own router for `contexts[0]`.
    pub async fn routers(
        transport: Transport,
        sessions: usize,
        contexts: [ProfileContext<Kandev>; 2],
        relist: bool,
    ) -> Side {
        let routers = Arc::new(RouterSessions::<Kandev>::default());
        let handler = Kandev::demo();
        let probe = Probe::new(sessions, relist);
        let started = Instant::now();
        let (clients, http) = match transport {
            Transport::InProcess => {
                let make = |_| routers.server(handler.clone(), &contexts[0]);
                let clients = connect_in_process(sessions, PIPE, make, |i| probe.client(i)).await;
                (clients, None)
            }
            Transport::Http => {
                let (routers, handler) = (Arc::clone(&routers), handler.clone());
                let service = StreamableHttpService::new(
                    move || Ok(routers.server(handler.clone(), &contexts[0])),
                    Arc::new(LocalSessionManager::default()),
                    StreamableHttpServerConfig::default(),
                );
                let app =
                    axum::Router::new().nest_service(mcp_profiles_serve::http::MCP_PATH, service);
                let http = mcp_profiles_serve::http::Serve::on(loopback())
                    .limits(limits())
                    .app(app)
                    .await
                    .expect("serving the rmcp routers over HTTP");
                let clients = http_clients(&http, sessions, &probe).await;
                (clients, Some(http))
            }
        };
        until("rmcp sessions registered", || routers.len() == sessions).await;
        let side = Side::new(Changer::Routers(routers), probe, clients, contexts, http);
        side.connected(started).await;
        side
    }

    fn new(
        changer: Changer,
        probe: Arc<Probe>,
        clients: Vec<RunningService<RoleClient, Relister>>,
        contexts: [ProfileContext<Kandev>; 2],
        http: Option<HttpServer>,
    ) -> Side {
        let tools =
            contexts.map(|context| Kandev::registry().assemble(&context).tool_names().len());
        Side {
            changer,
            probe,
            sessions: clients.len(),
            clients,
            contexts,
            tools,
            changes: 0,
            http,
        }
    }

    async fn connected(&self, started: Instant) {
        println!(
            "  {:<13} {} sessions connected in {:.1} s",
            self.name(),
            self.sessions,
            started.elapsed().as_secs_f64()
        );
        if self.http.is_some() {
            // Let every session's standalone SSE stream open.
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    }

    /// "mcp-profiles" or "rmcp".
    pub fn name(&self) -> &'static str {
        match self.changer {
            Changer::Profiles(_) => "mcp-profiles",
            Changer::Routers(_) => "rmcp",
        }
    }

    /// One unmeasured change, then `settle`.
    pub async fn warm_up(&mut self, settle: Duration) {
        self.change().await;
        tokio::time::sleep(settle).await;
    }

    /// Changes to the other context and waits until every session heard it
    /// and re-listed; panics unless each heard exactly one notification and
    /// listed the new tools.
    pub async fn change(&mut self) -> Sample {
        let next = (self.changes as usize + 1) % 2;
        let context = self.contexts[next];
        self.probe.arm(self.tools[next]);
        // Made from a runtime worker, as a control API's handler makes it.
        let changer = self.changer.clone();
        let (start, notified, returned) = tokio::spawn(async move {
            let start = Instant::now();
            let notified = match &changer {
                Changer::Profiles(controller) => controller.replace(context).notified_sessions,
                Changer::Routers(routers) => routers.change(&context),
            };
            (start, notified, Instant::now())
        })
        .await
        .expect("the change completes");
        let name = self.name();
        assert_eq!(
            notified, self.sessions,
            "{name}: a change notified {notified} of {} sessions",
            self.sessions
        );
        self.changes += 1;
        let total = self.sessions * self.changes as usize;
        let arrival = (self.probe.wait(total, LIMIT).await)
            .unwrap_or_else(|error| panic!("{name}, change {}: {error}", self.changes));
        self.probe
            .check(self.changes)
            .unwrap_or_else(|error| panic!("{name}, change {}: {error}", self.changes));
        let us =
            |from: Instant, to: Instant| to.saturating_duration_since(from).as_secs_f64() * 1e6;
        Sample {
            // The warm-up change is not a round.
            round: self.changes as usize - 2,
            change: us(start, returned),
            heard: us(start, arrival.last_heard),
            relisted: us(start, arrival.last_relisted),
            heard_after_return: us(returned, arrival.last_heard),
            relisted_after_return: us(returned, arrival.last_relisted),
        }
    }

    /// Panics unless every session heard exactly one notification per
    /// change, late ones included.
    pub fn check_final(&self) {
        if let Err(error) = self.probe.check(self.changes) {
            panic!("{}, after all changes: {error}", self.name());
        }
        println!(
            "  {:<13} every session heard exactly one list_changed per change ({} changes)",
            self.name(),
            self.changes
        );
    }

    /// Ends every session and stops the HTTP server, if any.
    pub async fn close(self) {
        join_spawned(self.clients.into_iter().map(|client| async move {
            let _ = client.cancel().await;
        }))
        .await;
        if let Some(http) = self.http {
            let _ = http.shutdown().await;
        }
    }
}

async fn http_clients(
    http: &HttpServer,
    sessions: usize,
    probe: &Arc<Probe>,
) -> Vec<RunningService<RoleClient, Relister>> {
    let url = format!(
        "http://{}{}",
        http.local_addr(),
        mcp_profiles_serve::http::MCP_PATH
    );
    connect_clients(
        sessions,
        HANDSHAKES,
        |_| http_transport(&url, None),
        |i| probe.client(i),
    )
    .await
}

/// Polls `done` until it holds; panics after a minute.
async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: timed out");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
