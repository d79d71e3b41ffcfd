//! A lean 2025-era client that does what a real client does on
//! `notifications/tools/list_changed` — list the tools again — and nothing
//! else, with a probe shared by all of one configuration's clients that
//! records when the last notification and the last re-list arrived and how
//! many each session heard.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ClientHandler;
use rmcp::model::{ClientConfig, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient};

/// What the clients of one configuration have seen.
pub struct Probe {
    base: Instant,
    /// Notifications heard, per session.
    heard: Vec<AtomicU32>,
    heard_total: AtomicUsize,
    relisted_total: AtomicUsize,
    /// Nanoseconds after `base`: the latest notification and re-list since
    /// [`arm`](Self::arm).
    last_heard: AtomicU64,
    last_relisted: AtomicU64,
    /// How many tools a re-list must return (the new profile's).
    expected_tools: AtomicUsize,
    wrong_lists: AtomicUsize,
    failed_lists: AtomicUsize,
    /// Whether clients re-list; without, a re-list counts as done when the
    /// notification is heard (to time delivery alone).
    relist: bool,
}

/// When the last of a change's notifications and re-lists completed.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    /// The last session's `on_tool_list_changed` began.
    pub last_heard: Instant,
    /// The last session's re-list after it returned.
    pub last_relisted: Instant,
}

impl Probe {
    /// A probe for `sessions` clients; they re-list on each notification
    /// if `relist`.
    pub fn new(sessions: usize, relist: bool) -> Arc<Self> {
        Arc::new(Probe {
            base: Instant::now(),
            heard: (0..sessions).map(|_| AtomicU32::new(0)).collect(),
            heard_total: AtomicUsize::new(0),
            relisted_total: AtomicUsize::new(0),
            last_heard: AtomicU64::new(0),
            last_relisted: AtomicU64::new(0),
            expected_tools: AtomicUsize::new(0),
            wrong_lists: AtomicUsize::new(0),
            failed_lists: AtomicUsize::new(0),
            relist,
        })
    }

    /// The client of session `index`.
    pub fn client(self: &Arc<Self>, index: usize) -> Relister {
        assert!(index < self.heard.len(), "session {index} has no slot");
        Relister {
            index,
            probe: Arc::clone(self),
        }
    }

    /// Prepares for a change after which a re-list returns `expected_tools`.
    pub fn arm(&self, expected_tools: usize) {
        self.expected_tools.store(expected_tools, Ordering::SeqCst);
        self.last_heard.store(0, Ordering::SeqCst);
        self.last_relisted.store(0, Ordering::SeqCst);
    }

    /// Waits until `total` notifications have been heard and as many
    /// re-lists completed (counted since the probe was made), polling; the
    /// times come from the clients, not from this wait.
    pub async fn wait(&self, total: usize, limit: Duration) -> Result<Arrival, String> {
        let deadline = Instant::now() + limit;
        loop {
            let heard = self.heard_total.load(Ordering::SeqCst);
            let relisted = self.relisted_total.load(Ordering::SeqCst);
            if heard >= total && relisted >= total {
                return Ok(Arrival {
                    last_heard: self.at(&self.last_heard),
                    last_relisted: self.at(&self.last_relisted),
                });
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "after {limit:?}: {heard} notifications heard and {relisted} re-lists done, \
                     {total} expected"
                ));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// Every session heard exactly `changes` notifications, and every
    /// re-list succeeded with the tools of the profile then in force.
    pub fn check(&self, changes: u32) -> Result<(), String> {
        let off: Vec<(usize, u32)> = self
            .heard
            .iter()
            .map(|count| count.load(Ordering::SeqCst))
            .enumerate()
            .filter(|&(_, count)| count != changes)
            .collect();
        if let Some(&(first, count)) = off.first() {
            return Err(format!(
                "{} of {} sessions did not hear exactly {changes} list_changed \
                 (session {first} heard {count})",
                off.len(),
                self.heard.len()
            ));
        }
        let wrong = self.wrong_lists.load(Ordering::SeqCst);
        let failed = self.failed_lists.load(Ordering::SeqCst);
        if wrong + failed > 0 {
            return Err(format!(
                "{failed} re-lists failed and {wrong} returned another profile's tools"
            ));
        }
        Ok(())
    }

    fn now(&self) -> u64 {
        u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn at(&self, nanos: &AtomicU64) -> Instant {
        self.base + Duration::from_nanos(nanos.load(Ordering::SeqCst))
    }
}

/// One session's client: counts each list_changed, then lists the tools.
pub struct Relister {
    index: usize,
    probe: Arc<Probe>,
}

impl ClientHandler for Relister {
    // A 2025-era session: `initialize` handshake, unsolicited notifications.
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let probe = &self.probe;
        probe.heard[self.index].fetch_add(1, Ordering::SeqCst);
        probe.last_heard.fetch_max(probe.now(), Ordering::SeqCst);
        probe.heard_total.fetch_add(1, Ordering::SeqCst);
        if !probe.relist {
            probe.last_relisted.fetch_max(probe.now(), Ordering::SeqCst);
            probe.relisted_total.fetch_add(1, Ordering::SeqCst);
            return;
        }
        match context.peer.list_tools(None).await {
            Ok(result) if result.tools.len() == probe.expected_tools.load(Ordering::SeqCst) => {}
            Ok(_) => {
                probe.wrong_lists.fetch_add(1, Ordering::SeqCst);
            }
            Err(_) => {
                probe.failed_lists.fetch_add(1, Ordering::SeqCst);
            }
        }
        probe.last_relisted.fetch_max(probe.now(), Ordering::SeqCst);
        probe.relisted_total.fetch_add(1, Ordering::SeqCst);
    }
}
