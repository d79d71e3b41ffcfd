//! `notifications/{tools,prompts,resources,groups}/list_changed` delivery
//! to every live session.
//!
//! A replacement never waits on a client: it bumps a counter per session and
//! per kind that changed and, if that session has no delivery running,
//! starts one; the delivery sends one notification per bump, tools before
//! prompts before resources within one pass, and ends when every counter is
//! drained. A slow or dead peer therefore delays only its own notifications,
//! an idle session costs a few words and no task, and memory per session
//! stays constant however far a client falls behind.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use rmcp::model::{CustomNotification, GetMeta, ServerNotification};
use rmcp::service::{Peer, RoleServer, SubscriptionSink};
use tokio::runtime::Handle;

use crate::grouping::GROUPS_LIST_CHANGED;
use crate::telemetry::{self, Era, List};

/// Which lists changed: a set of [`Kinds::TOOLS`], [`Kinds::PROMPTS`],
/// [`Kinds::RESOURCES`] and [`Kinds::GROUPS`]; the `*_MEMBERSHIP` kinds are
/// changes only a grouping session sees in its lists (see
/// [`crate::grouping`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kinds(u8);

impl Kinds {
    pub const NONE: Kinds = Kinds(0);
    pub const TOOLS: Kinds = Kinds(1);
    pub const PROMPTS: Kinds = Kinds(2);
    pub const RESOURCES: Kinds = Kinds(4);
    /// The enabled groups changed (`notifications/groups/list_changed`).
    pub const GROUPS: Kinds = Kinds(8);
    /// A listed tool's groups changed, its name did not: a grouping
    /// session hears it as its tools' `list_changed`, others not at all.
    pub const TOOL_MEMBERSHIP: Kinds = Kinds(16);
    /// [`TOOL_MEMBERSHIP`](Self::TOOL_MEMBERSHIP), of a listed prompt.
    pub const PROMPT_MEMBERSHIP: Kinds = Kinds(32);
    /// [`TOOL_MEMBERSHIP`](Self::TOOL_MEMBERSHIP), of a listed resource
    /// or resource template.
    pub const RESOURCE_MEMBERSHIP: Kinds = Kinds(64);
    /// What every session hears of, grouping or not.
    pub const LISTS: Kinds = Kinds(7);
    /// What a session served the grouping extension also hears of.
    pub const GROUPING: Kinds = Kinds(8 | 16 | 32 | 64);
    /// Each kind, in delivery order, with its counter's index.
    const EACH: [Kinds; KINDS] = [
        Kinds::TOOLS,
        Kinds::PROMPTS,
        Kinds::RESOURCES,
        Kinds::GROUPS,
    ];
    /// [`EACH`](Self::EACH) as counted.
    const COUNTED: [List; KINDS] = [List::Tools, List::Prompts, List::Resources, List::Groups];
    /// Each membership kind, with the list whose `list_changed` tells it.
    const MEMBERSHIPS: [(Kinds, Kinds); 3] = [
        (Kinds::TOOL_MEMBERSHIP, Kinds::TOOLS),
        (Kinds::PROMPT_MEMBERSHIP, Kinds::PROMPTS),
        (Kinds::RESOURCE_MEMBERSHIP, Kinds::RESOURCES),
    ];

    /// `self`, plus `kind` when `on`.
    pub fn with(self, kind: Kinds, on: bool) -> Kinds {
        if on { Kinds(self.0 | kind.0) } else { self }
    }

    pub fn contains(self, kind: Kinds) -> bool {
        self.0 & kind.0 == kind.0
    }

    pub fn intersect(self, other: Kinds) -> Kinds {
        Kinds(self.0 & other.0)
    }

    /// The membership kinds of the lists in `self`: what a grouping
    /// target hearing of those lists also hears of.
    pub fn memberships(self) -> Kinds {
        Self::MEMBERSHIPS
            .into_iter()
            .fold(Kinds::NONE, |kinds, (membership, list)| {
                kinds.with(membership, self.contains(list))
            })
    }

    /// What a target hearing of `self` is owed from a change of `change`:
    /// a membership change owes it its list's notification (one, with or
    /// without a change of that list).
    fn owed_of(self, change: Kinds) -> Kinds {
        let heard = self.intersect(change);
        Self::MEMBERSHIPS.into_iter().fold(
            heard.intersect(Kinds(Kinds::LISTS.0 | Kinds::GROUPS.0)),
            |owed, (membership, list)| owed.with(list, heard.contains(membership)),
        )
    }
}

/// How many kinds of list there are (with a counter each).
const KINDS: usize = 4;

/// Where one session's list_changed notifications go.
enum Target {
    /// A 2025-era session: unsolicited, to the peer, of every kind it
    /// hears of ([`Kinds::LISTS`], and [`Kinds::GROUPING`] when it is
    /// served the grouping extension).
    Peer(Peer<RoleServer>, Kinds),
    /// A 2026-07-28 `subscriptions/listen` stream, of the kinds it asked for
    /// and this server accepted (boxed: it is several times a peer's size,
    /// and every idle session pays for the larger variant).
    Subscription(Box<Stream>, Kinds),
}

/// A `subscriptions/listen` stream's sink, and the peer its request came
/// from.
pub(crate) struct Stream {
    pub sink: SubscriptionSink,
    /// rmcp 3.11's sink sends the core notifications only (it refuses a
    /// custom one), so `groups/list_changed` goes to the peer, marked with
    /// the stream's id as the sink marks its own: the transport routes it
    /// onto the same stream.
    pub peer: Peer<RoleServer>,
}

impl Stream {
    async fn notify(&self, kind: Kinds) -> Result<(), String> {
        match kind {
            Kinds::TOOLS => self.sink.notify_tool_list_changed().await,
            Kinds::PROMPTS => self.sink.notify_prompt_list_changed().await,
            Kinds::GROUPS => {
                let mut changed = groups_list_changed();
                changed
                    .get_meta_mut()
                    .set_subscription_id(self.sink.id().clone());
                return self
                    .peer
                    .send_notification(changed)
                    .await
                    .map_err(|e| e.to_string());
            }
            _ => self.sink.notify_resource_list_changed().await,
        }
        .map_err(|e| e.to_string())
    }
}

/// `notifications/groups/list_changed`.
fn groups_list_changed() -> ServerNotification {
    ServerNotification::CustomNotification(CustomNotification::new(GROUPS_LIST_CHANGED, None))
}

impl Target {
    /// Which era of client this target serves, as counted.
    fn era(&self) -> Era {
        match self {
            Target::Peer(..) => Era::Session,
            Target::Subscription(..) => Era::Listen,
        }
    }

    /// The kinds this target hears of.
    fn kinds(&self) -> Kinds {
        match self {
            Target::Peer(_, kinds) | Target::Subscription(_, kinds) => *kinds,
        }
    }

    async fn notify(&self, kind: Kinds) -> Result<(), String> {
        match self {
            Target::Peer(peer, _) => match kind {
                Kinds::TOOLS => peer.notify_tool_list_changed().await,
                Kinds::PROMPTS => peer.notify_prompt_list_changed().await,
                Kinds::GROUPS => peer.send_notification(groups_list_changed()).await,
                _ => peer.notify_resource_list_changed().await,
            }
            .map_err(|e| e.to_string()),
            Target::Subscription(stream, _) => stream.notify(kind).await,
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
    /// The [`CHANGES`] numbers of this cell's latest changes, oldest first,
    /// with the kinds each changed; kept under the same lock as the queues,
    /// so a registering stream either is bumped by a change or counts it
    /// here, never both or neither.
    recent: VecDeque<(u64, Kinds)>,
}

/// How many of a cell's changes a late stream can be owed. More than this
/// between one stream's acknowledgement and its registration would take a
/// stalled server; such a stream still hears that its list changed.
const RECENT_CHANGES: usize = 8;

impl Live {
    /// How many of this cell's changes after change number `since` owe a
    /// target hearing of `heard` a notification of `kind`.
    fn changes_after(&self, since: u64, heard: Kinds, kind: Kinds) -> u64 {
        self.recent
            .iter()
            .filter(|&&(change, kinds)| change > since && heard.owed_of(kinds).contains(kind))
            .count() as u64
    }
}

/// One session's target and pending notifications.
struct Queue {
    target: Target,
    /// Per kind, in [`Kinds::EACH`] order: one counter each, so a change of
    /// tools and prompts owes one of each and never two of either.
    pending: [AtomicU64; KINDS],
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

    /// Whether any counter is positive.
    fn owed(&self) -> bool {
        self.pending
            .iter()
            .any(|pending| pending.load(Ordering::SeqCst) > 0)
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }

    /// Counts what is still owed as dropped and owes nothing more: the
    /// session has closed. Each owed notification is taken exactly once,
    /// here or by a delivery, so none is counted twice.
    fn drop_owed(&self) {
        for (pending, list) in self.pending.iter().zip(Kinds::COUNTED) {
            telemetry::list_changed(list, false, pending.swap(0, Ordering::SeqCst));
        }
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
        self.queue.close();
        self.queue.drop_owed();
        telemetry::session(self.queue.target.era(), false);
    }
}

impl Sessions {
    /// Registers a session.
    ///
    /// A 2025-era session registers at `initialize`, so no replacement can
    /// fall between the client's first `tools/list` and the session being
    /// counted; delivery waits for [`SessionGuard::mark_ready`]. Called from
    /// rmcp's handlers, inside a Tokio runtime.
    /// `grouping`: the session is served the grouping extension, so it
    /// hears of group and membership changes too.
    pub fn register(self: &Arc<Self>, peer: Peer<RoleServer>, grouping: bool) -> SessionGuard {
        let kinds = Kinds::LISTS.with(Kinds::GROUPING, grouping);
        self.enrol(Target::Peer(peer, kinds), None)
    }

    /// Registers a `subscriptions/listen` stream for the `kinds` it asked
    /// for and this server accepted, ready at once: it has been
    /// acknowledged. `since` is [`changes_so_far`] from before the
    /// acknowledgement; the changes of this cell after it that the stream
    /// registered too late for are sent now, one per kind each, so none
    /// falls in the gap.
    pub fn register_subscription(
        self: &Arc<Self>,
        stream: Stream,
        kinds: Kinds,
        since: u64,
    ) -> SessionGuard {
        self.enrol(Target::Subscription(Box::new(stream), kinds), Some(since))
    }

    fn enrol(self: &Arc<Self>, target: Target, since: Option<u64>) -> SessionGuard {
        if let Ok(handle) = Handle::try_current() {
            let _ = self.runtime.get_or_init(|| handle);
        }
        let kinds = target.kinds();
        telemetry::session(target.era(), true);
        let queue = Arc::new(Queue {
            target,
            pending: Default::default(),
            draining: AtomicBool::new(false),
            ready: AtomicBool::new(since.is_some()),
            closed: AtomicBool::new(false),
        });
        let id = key(&queue);
        let missed = {
            let mut live = self.lock();
            live.queues.insert(id, Arc::clone(&queue));
            since.map(|since| Kinds::EACH.map(|kind| live.changes_after(since, kinds, kind)))
        };
        tracing::debug!(session = id, "session registered for list_changed");
        if let Some(missed) = missed.filter(|missed| missed.iter().any(|&n| n > 0)) {
            for (pending, missed) in queue.pending.iter().zip(missed) {
                pending.store(missed, Ordering::SeqCst);
            }
            self.kick(&queue);
        }
        SessionGuard {
            queue,
            sessions: Arc::downgrade(self),
        }
    }

    /// Queues one list_changed of each of `kinds` for every live session
    /// that hears of it; returns how many sessions hear of one.
    ///
    /// Sessions whose peer has gone are dropped here rather than notified.
    pub fn notify_all(&self, kinds: Kinds) -> usize {
        let (notified, to_start) = {
            let mut live = self.lock();
            let change = CHANGES.fetch_add(1, Ordering::SeqCst) + 1;
            if live.recent.len() == RECENT_CHANGES {
                live.recent.pop_front();
            }
            live.recent.push_back((change, kinds));
            live.queues.retain(|_, queue| !Queue::flag(&queue.closed));
            // Counted under the lock, so the change is ordered against
            // registrations; the deliveries are claimed here and started
            // after it, so sessions opening or closing meanwhile wait for
            // the counting only, not for a task spawn per session.
            let mut notified = 0;
            let to_start: Vec<Arc<Queue>> = live
                .queues
                .values()
                .filter(|queue| {
                    let heard = queue.target.kinds().owed_of(kinds);
                    if heard == Kinds::NONE {
                        return false;
                    }
                    notified += 1;
                    for (index, kind) in Kinds::EACH.into_iter().enumerate() {
                        if heard.contains(kind) {
                            queue.pending[index].fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    self.claim(queue)
                })
                .cloned()
                .collect();
            (notified, to_start)
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
        let sendable = Queue::flag(&queue.ready) && !Queue::flag(&queue.closed) && queue.owed();
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

/// Sends one notification per pending bump, then ends; whoever bumps a
/// counter afterwards starts the next delivery. Each pass takes one of each
/// kind owed, tools first, so one replacement's notifications go out
/// together and in a fixed order.
async fn drain(queue: Arc<Queue>) {
    loop {
        let mut sent = true;
        while sent && !Queue::flag(&queue.closed) {
            sent = false;
            for (index, pending) in queue.pending.iter().enumerate() {
                if Queue::flag(&queue.closed) || !take_one(pending) {
                    continue;
                }
                sent = true;
                let delivered = queue.target.notify(Kinds::EACH[index]).await;
                telemetry::list_changed(Kinds::COUNTED[index], delivered.is_ok(), 1);
                if let Err(error) = delivered {
                    tracing::debug!(%error, "peer gone; stopping list_changed delivery");
                    queue.close();
                }
            }
        }
        if Queue::flag(&queue.closed) {
            queue.drop_owed();
        }
        queue.draining.store(false, Ordering::SeqCst);
        // A bump that landed after the loop saw zero found `draining` set and
        // left the work to us: take it back unless someone else already did.
        let more = queue.owed() && !Queue::flag(&queue.closed);
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
