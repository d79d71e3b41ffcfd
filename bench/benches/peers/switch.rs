//! Profile switch → `list_changed` received → re-listed, with the same rmcp
//! client for every server: 2025-11-25 sessions over streamable HTTP, each
//! with its GET SSE stream, re-listing on every `tools/list_changed` as real
//! clients do.
//!
//! Unlike `relisting::Probe` (which fails unless each session hears exactly
//! one notification), this probe counts what each session hears per switch,
//! since some peers send several, and takes a session as re-listed at the
//! first re-list that returns exactly the new profile's tool names.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_profiles_bench::sessions::{connect_clients, join_spawned};
use mcp_profiles_tests::client::http_transport;
use rmcp::ClientHandler;
use rmcp::model::{ClientConfig, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient, RunningService};

use crate::servers::ServerProcess;

/// HTTP handshakes in flight at once while connecting.
const HANDSHAKES: usize = 20;
/// How long a switch may take to be re-listed by every session.
const LIMIT: Duration = Duration::from_secs(300);

/// What one server's sessions have seen.
pub struct Probe {
    base: Instant,
    heard: Vec<AtomicU32>,
    relisted: Vec<AtomicBool>,
    relisted_count: AtomicUsize,
    last_heard: AtomicU64,
    last_relisted: AtomicU64,
    expected: Mutex<Arc<Vec<String>>>,
    failed_lists: AtomicUsize,
}

impl Probe {
    fn new(sessions: usize) -> Arc<Self> {
        Arc::new(Probe {
            base: Instant::now(),
            heard: (0..sessions).map(|_| AtomicU32::new(0)).collect(),
            relisted: (0..sessions).map(|_| AtomicBool::new(true)).collect(),
            relisted_count: AtomicUsize::new(sessions),
            last_heard: AtomicU64::new(0),
            last_relisted: AtomicU64::new(0),
            expected: Mutex::new(Arc::new(Vec::new())),
            failed_lists: AtomicUsize::new(0),
        })
    }

    fn now(&self) -> u64 {
        u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn at(&self, nanos: &AtomicU64) -> Instant {
        self.base + Duration::from_nanos(nanos.load(Ordering::SeqCst))
    }

    fn heard_total(&self) -> u64 {
        self.heard
            .iter()
            .map(|n| u64::from(n.load(Ordering::SeqCst)))
            .sum()
    }

    /// Prepares for a switch after which a re-list names `expected`.
    fn arm(&self, expected: Arc<Vec<String>>) {
        *self.expected.lock().unwrap() = expected;
        for flag in &self.relisted {
            flag.store(false, Ordering::SeqCst);
        }
        self.relisted_count.store(0, Ordering::SeqCst);
        self.last_heard.store(0, Ordering::SeqCst);
        self.last_relisted.store(0, Ordering::SeqCst);
    }
}

/// One session's client.
pub struct Watcher {
    index: usize,
    probe: Arc<Probe>,
}

impl ClientHandler for Watcher {
    // A 2025-era session: the only kind the peers serve with a GET stream.
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let probe = &self.probe;
        probe.heard[self.index].fetch_add(1, Ordering::SeqCst);
        probe.last_heard.fetch_max(probe.now(), Ordering::SeqCst);
        let expected = Arc::clone(&probe.expected.lock().unwrap());
        match context.peer.list_all_tools().await {
            Ok(tools) => {
                let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
                names.sort();
                if names == *expected && !probe.relisted[self.index].swap(true, Ordering::SeqCst) {
                    probe.last_relisted.fetch_max(probe.now(), Ordering::SeqCst);
                    probe.relisted_count.fetch_add(1, Ordering::SeqCst);
                }
            }
            Err(_) => {
                probe.failed_lists.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
}

/// One switch, timed from the request written on the server's stdin.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// To the latest notification heard until every session re-listed.
    pub heard_us: f64,
    /// To the last session's re-list naming the new tools.
    pub relisted_us: f64,
    /// Notifications per session for this switch: fewest and most.
    pub min_notifications: u32,
    pub max_notifications: u32,
}

/// One server's connected sessions.
pub struct Side {
    probe: Arc<Probe>,
    clients: Vec<RunningService<RoleClient, Watcher>>,
    /// Tool names per profile, sorted; the sessions start on the first.
    names: [Arc<Vec<String>>; 2],
    switches: usize,
}

impl Side {
    /// Connects `sessions` sessions to `server`.
    pub async fn connect(server: &ServerProcess, sessions: usize, names: [Vec<String>; 2]) -> Side {
        let probe = Probe::new(sessions);
        let started = Instant::now();
        let clients = connect_clients(
            sessions,
            HANDSHAKES,
            |_| http_transport(&server.uri, None),
            |index| Watcher {
                index,
                probe: Arc::clone(&probe),
            },
        )
        .await;
        println!(
            "  {:<17} {sessions} sessions connected in {:.1} s",
            server.name,
            started.elapsed().as_secs_f64()
        );
        Side {
            probe,
            clients,
            names: names.map(Arc::new),
            switches: 0,
        }
    }

    /// Switches `server`'s sessions to the other profile and waits until
    /// every session re-listed the new tools, then for `settle` more to
    /// count late notifications.
    pub async fn switch(&mut self, server: &mut ServerProcess, settle: Duration) -> Sample {
        let next = (self.switches + 1) % 2;
        self.probe.arm(Arc::clone(&self.names[next]));
        let before: Vec<u32> = (self.probe.heard.iter())
            .map(|n| n.load(Ordering::SeqCst))
            .collect();
        let start = Instant::now();
        server.send_switch();
        let answer = server.switched().await;
        let deadline = start + LIMIT;
        let sessions = self.clients.len();
        while self.probe.relisted_count.load(Ordering::SeqCst) < sessions {
            assert!(
                Instant::now() < deadline,
                "{}: after {LIMIT:?} only {} of {sessions} sessions re-listed the new tools \
                 ({answer}; {} failed re-lists)",
                server.name,
                self.probe.relisted_count.load(Ordering::SeqCst),
                self.probe.failed_lists.load(Ordering::SeqCst)
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let (last_heard, last_relisted) = (
            self.probe.at(&self.probe.last_heard),
            self.probe.at(&self.probe.last_relisted),
        );
        // Late notifications (a peer sending several per switch) keep
        // coming; wait until none came for `settle`.
        let mut total = self.probe.heard_total();
        loop {
            tokio::time::sleep(settle).await;
            let now = self.probe.heard_total();
            if now == total {
                break;
            }
            total = now;
        }
        let counts: Vec<u32> = (self.probe.heard.iter().zip(before))
            .map(|(n, before)| n.load(Ordering::SeqCst) - before)
            .collect();
        self.switches += 1;
        let us = |to: Instant| to.saturating_duration_since(start).as_secs_f64() * 1e6;
        Sample {
            heard_us: us(last_heard),
            relisted_us: us(last_relisted),
            min_notifications: counts.iter().copied().min().unwrap_or(0),
            max_notifications: counts.iter().copied().max().unwrap_or(0),
        }
    }

    /// Ends every session.
    pub async fn close(self) {
        join_spawned(self.clients.into_iter().map(|client| async move {
            let _ = client.cancel().await;
        }))
        .await;
    }
}
