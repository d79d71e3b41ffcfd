//! `notifications/tools/list_changed` delivery to every live session.
//!
//! A replacement never waits on a client: it bumps a counter per session and,
//! if that session has no delivery running, starts one; the delivery sends one
//! notification per bump, in order, and ends when the counter is drained. A
//! slow or dead peer therefore delays only its own notifications, an idle
//! session costs a few words and no task, and memory per session stays
//! constant however far a client falls behind.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use rmcp::service::{Peer, RoleServer, SubscriptionSink};
use tokio::runtime::Handle;

/// Where one session's list_changed notifications go.
enum Target {
    /// A 2025-era session: unsolicited, to the peer.
    Peer(Peer<RoleServer>),
    /// A 2026-07-28 `subscriptions/listen` stream that asked for
    /// `toolsListChanged` (boxed: it is several times a peer's size, and
    /// every idle session pays for the larger variant).
    Subscription(Box<SubscriptionSink>),
}

impl Target {
    async fn notify(&self) -> Result<(), String> {
        match self {
            Target::Peer(peer) => peer
                .notify_tool_list_changed()
                .await
                .map_err(|e| e.to_string()),
            Target::Subscription(sink) => sink
                .notify_tool_list_changed()
                .await
                .map_err(|e| e.to_string()),
        }
    }
}

/// Numbers every effective change in the process (each [`Sessions::notify_all`]).
///
/// rmcp acknowledges a `subscriptions/listen` stream before the handler's
/// `listen` runs, so a change can land between the acknowledgement and the
/// stream's registration here. A stream notes this count before it is
/// acknowledged ([`changes_so_far`]) and, on registering, is owed one
/// notification if its cell changed since.
static CHANGES: AtomicU64 = AtomicU64::new(0);

/// The count of effective changes so far, across every cell.
pub(crate) fn changes_so_far() -> u64 {
    CHANGES.load(Ordering::SeqCst)
}

/// The sessions of one profile cell.
#[derive(Default)]
pub(crate) struct Sessions {
    live: Mutex<Live>,
    /// The runtime deliveries run on: the one the first session came from,
    /// so that a replacement made outside any runtime still delivers.
    runtime: OnceLock<Handle>,
}

#[derive(Default)]
struct Live {
    /// Keyed by the queue's address.
    queues: HashMap<usize, Arc<Queue>>,
    /// The [`CHANGES`] numbers of this cell's latest changes, oldest first;
    /// kept under the same lock as the queues, so a registering stream
    /// either is bumped by a change or counts it here, never both or neither.
    recent: VecDeque<u64>,
}

/// How many of a cell's changes a late stream can be owed. More than this
/// between one stream's acknowledgement and its registration would take a
/// stalled server; such a stream still hears that its list changed.
const RECENT_CHANGES: usize = 8;

impl Live {
    /// How many of this cell's changes came after change number `since`.
    fn changes_after(&self, since: u64) -> u64 {
        self.recent.iter().filter(|&&change| change > since).count() as u64
    }
}

/// One session's target and pending notifications.
struct Queue {
    target: Target,
    pending: AtomicU64,
    /// A delivery task is running for this session.
    draining: AtomicBool,
    /// Set by `notifications/initialized`; nothing is sent before it.
    ready: AtomicBool,
    closed: AtomicBool,
}

impl Queue {
    fn flag(flag: &AtomicBool) -> bool {
        flag.load(Ordering::SeqCst)
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }
}

/// Keeps a session registered; dropping it forgets the session.
pub(crate) struct SessionGuard {
    queue: Arc<Queue>,
    sessions: Weak<Sessions>,
}

impl SessionGuard {
    /// The client sent `notifications/initialized`: start delivering,
    /// including anything queued since `initialize`.
    pub fn mark_ready(&self) {
        self.queue.ready.store(true, Ordering::SeqCst);
        if let Some(sessions) = self.sessions.upgrade() {
            sessions.kick(&self.queue);
        }
    }
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        if let Some(sessions) = self.sessions.upgrade() {
            sessions.forget(key(&self.queue));
        }
    }
}

impl Sessions {
    /// Registers a session.
    ///
    /// A 2025-era session registers at `initialize`, so no replacement can
    /// fall between the client's first `tools/list` and the session being
    /// counted; delivery waits for [`SessionGuard::mark_ready`]. Called from
    /// rmcp's handlers, inside a Tokio runtime.
    pub fn register(self: &Arc<Self>, peer: Peer<RoleServer>) -> SessionGuard {
        self.enrol(Target::Peer(peer), None)
    }

    /// Registers a `subscriptions/listen` stream, ready at once: it has been
    /// acknowledged. `since` is [`changes_so_far`] from before the
    /// acknowledgement; the changes of this cell after it that the stream
    /// registered too late for are sent now, one each, so none falls in the
    /// gap.
    pub fn register_subscription(
        self: &Arc<Self>,
        sink: SubscriptionSink,
        since: u64,
    ) -> SessionGuard {
        self.enrol(Target::Subscription(Box::new(sink)), Some(since))
    }

    fn enrol(self: &Arc<Self>, target: Target, since: Option<u64>) -> SessionGuard {
        if let Ok(handle) = Handle::try_current() {
            let _ = self.runtime.get_or_init(|| handle);
        }
        let queue = Arc::new(Queue {
            target,
            pending: AtomicU64::new(0),
            draining: AtomicBool::new(false),
            ready: AtomicBool::new(since.is_some()),
            closed: AtomicBool::new(false),
        });
        let id = key(&queue);
        let missed = {
            let mut live = self.lock();
            live.queues.insert(id, Arc::clone(&queue));
            since.map_or(0, |since| live.changes_after(since))
        };
        tracing::debug!(session = id, "session registered for tools/list_changed");
        if missed > 0 {
            queue.pending.store(missed, Ordering::SeqCst);
            self.kick(&queue);
        }
        SessionGuard {
            queue,
            sessions: Arc::downgrade(self),
        }
    }

    /// Queues one list_changed for every live session; returns how many.
    ///
    /// Sessions whose peer has gone are dropped here rather than notified.
    pub fn notify_all(&self) -> usize {
        let (notified, to_start) = {
            let mut live = self.lock();
            let change = CHANGES.fetch_add(1, Ordering::SeqCst) + 1;
            if live.recent.len() == RECENT_CHANGES {
                live.recent.pop_front();
            }
            live.recent.push_back(change);
            live.queues.retain(|_, queue| !Queue::flag(&queue.closed));
            // Counted under the lock, so the change is ordered against
            // registrations; the deliveries are claimed here and started
            // after it, so sessions opening or closing meanwhile wait for
            // the counting only, not for a task spawn per session.
            let to_start: Vec<Arc<Queue>> = live
                .queues
                .values()
                .filter(|queue| {
                    queue.pending.fetch_add(1, Ordering::SeqCst);
                    self.claim(queue)
                })
                .cloned()
                .collect();
            (live.queues.len(), to_start)
        };
        for queue in to_start {
            self.start(queue);
        }
        notified
    }

    /// How many sessions are registered.
    pub fn len(&self) -> usize {
        self.lock().queues.len()
    }

    /// Starts a delivery for `queue` unless one is running or there is
    /// nothing (yet) to send.
    fn kick(&self, queue: &Arc<Queue>) {
        if self.claim(queue) {
            self.start(Arc::clone(queue));
        }
    }

    /// Whether `queue` has something to send and no delivery: then this
    /// caller owns starting one.
    fn claim(&self, queue: &Queue) -> bool {
        let sendable = Queue::flag(&queue.ready)
            && !Queue::flag(&queue.closed)
            && queue.pending.load(Ordering::SeqCst) > 0;
        sendable && !queue.draining.swap(true, Ordering::SeqCst)
    }

    /// Starts the delivery a [`claim`](Self::claim) won.
    fn start(&self, queue: Arc<Queue>) {
        match self.runtime.get() {
            Some(runtime) => {
                runtime.spawn(drain(queue));
            }
            // Unreachable through rmcp (sessions register inside a runtime);
            // if it happens, the notification cannot be sent.
            None => queue.draining.store(false, Ordering::SeqCst),
        }
    }

    fn forget(&self, id: usize) {
        if let Some(queue) = self.lock().queues.remove(&id) {
            queue.close();
            tracing::debug!(session = id, "session forgotten");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sends one notification per pending bump, then ends; whoever bumps the
/// counter afterwards starts the next delivery.
async fn drain(queue: Arc<Queue>) {
    loop {
        while !Queue::flag(&queue.closed) && take_one(&queue.pending) {
            if let Err(error) = queue.target.notify().await {
                tracing::debug!(%error, "peer gone; stopping tools/list_changed delivery");
                queue.close();
            }
        }
        queue.draining.store(false, Ordering::SeqCst);
        // A bump that landed after the loop saw zero found `draining` set and
        // left the work to us: take it back unless someone else already did.
        let more = queue.pending.load(Ordering::SeqCst) > 0 && !Queue::flag(&queue.closed);
        if !more || queue.draining.swap(true, Ordering::SeqCst) {
            return;
        }
    }
}

/// A session's key: its queue's address, unique while the queue lives.
fn key(queue: &Arc<Queue>) -> usize {
    Arc::as_ptr(queue) as usize
}

/// Decrements `pending` if it is positive.
fn take_one(pending: &AtomicU64) -> bool {
    pending
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}
