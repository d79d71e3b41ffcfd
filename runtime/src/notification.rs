//! `notifications/tools/list_changed` delivery to every live session.
//!
//! A replacement never waits on a client: it bumps a counter per session and
//! wakes that session's delivery task, which sends one notification per bump,
//! in order. A slow or dead peer therefore delays only its own notifications,
//! and memory per session stays constant however far it falls behind.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use rmcp::service::{Peer, RoleServer, SubscriptionSink};
use tokio::sync::Notify;

/// Where one session's list_changed notifications go.
pub(crate) enum Target {
    /// A 2025-era session: unsolicited, to the peer.
    Peer(Peer<RoleServer>),
    /// A 2026-07-28 `subscriptions/listen` stream that asked for
    /// `toolsListChanged`.
    Subscription(SubscriptionSink),
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

/// The sessions of one profile cell.
#[derive(Default)]
pub(crate) struct Sessions {
    next_id: AtomicU64,
    live: Mutex<HashMap<u64, Arc<Queue>>>,
}

/// One session's pending notifications.
#[derive(Default)]
struct Queue {
    pending: AtomicU64,
    wake: Notify,
    /// Set by `notifications/initialized`; nothing is sent before it.
    ready: AtomicBool,
    closed: AtomicBool,
}

impl Queue {
    fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }
}

/// Keeps a session registered; dropping it forgets the session.
pub(crate) struct SessionGuard {
    id: u64,
    queue: Arc<Queue>,
    sessions: Weak<Sessions>,
}

impl SessionGuard {
    /// The client sent `notifications/initialized`: start delivering,
    /// including anything queued since `initialize`.
    pub fn mark_ready(&self) {
        self.queue.ready.store(true, Ordering::SeqCst);
        self.queue.wake.notify_one();
    }
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        if let Some(sessions) = self.sessions.upgrade() {
            sessions.forget(self.id);
        }
    }
}

impl Sessions {
    /// Registers a session and starts its delivery task.
    ///
    /// A 2025-era session registers at `initialize`, so no replacement can
    /// fall between the client's first `tools/list` and the session being
    /// counted; delivery waits for [`SessionGuard::mark_ready`]. A
    /// subscription is acknowledged before it is registered, so it starts
    /// ready. Must be called inside a Tokio runtime (rmcp's handlers always
    /// are).
    pub fn register(self: &Arc<Self>, target: Target) -> SessionGuard {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let queue = Arc::new(Queue::default());
        if matches!(target, Target::Subscription(_)) {
            queue.ready.store(true, Ordering::SeqCst);
        }
        self.lock().insert(id, Arc::clone(&queue));
        tokio::spawn(deliver(Arc::clone(&queue), target));
        tracing::debug!(session = id, "session registered for tools/list_changed");
        SessionGuard {
            id,
            queue,
            sessions: Arc::downgrade(self),
        }
    }

    /// Queues one list_changed for every live session; returns how many.
    ///
    /// Sessions whose peer has gone are dropped here rather than notified.
    pub fn notify_all(&self) -> usize {
        let mut live = self.lock();
        live.retain(|_, queue| !queue.is_closed());
        for queue in live.values() {
            queue.pending.fetch_add(1, Ordering::SeqCst);
            queue.wake.notify_one();
        }
        live.len()
    }

    /// How many sessions are registered.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    fn forget(&self, id: u64) {
        if let Some(queue) = self.lock().remove(&id) {
            queue.close();
            tracing::debug!(session = id, "session forgotten");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Queue>>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sends one notification per pending bump until the session closes.
async fn deliver(queue: Arc<Queue>, target: Target) {
    loop {
        while !queue.is_closed() && queue.is_ready() && take_one(&queue.pending) {
            if let Err(error) = target.notify().await {
                tracing::debug!(%error, "peer gone; stopping tools/list_changed delivery");
                queue.close();
            }
        }
        if queue.is_closed() {
            return;
        }
        // A bump that raced the check above left a permit, so this returns.
        queue.wake.notified().await;
    }
}

/// Decrements `pending` if it is positive.
fn take_one(pending: &AtomicU64) -> bool {
    pending
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}
