//! Where a session's `subscriptions/listen` streams start counting changes.
//!
//! rmcp acknowledges a stream before the handler's `listen` runs, so a
//! change can land between the two; a stream therefore notes the change
//! count before it is acknowledged and, on registering, is owed the
//! changes after it (see `notification`). One server may establish several
//! streams at once (one session, one server, over a duplex or stdio), each
//! acknowledged and registered in its own request: a registration cannot
//! tell which acknowledgement was its own. So every stream registered
//! while any of the session's streams awaits registration takes the mark
//! of the earliest of them: never later than its own (no change missed),
//! at worst earlier (a change made while another stream of the session was
//! being established is sent to it too).
//!
//! The mark is reset only when no stream is pending. Before, the first
//! registration reset it while a second stream was still pending, which
//! then counted from its own registration and missed a change made in
//! between (found in CI: a 2026 stream waiting for a `list_changed` that
//! never came).

use std::sync::Mutex;

/// The streams of one session acknowledged but not registered yet.
#[derive(Debug, Default)]
pub(crate) struct Listening(Mutex<Pending>);

#[derive(Debug, Default)]
struct Pending {
    /// Streams acknowledged and not registered yet.
    streams: usize,
    /// The change count noted before the earliest of them was acknowledged.
    since: u64,
}

impl Listening {
    /// A stream is about to be acknowledged, `now` changes so far.
    pub fn acknowledging(&self, now: u64) {
        let mut pending = self.lock();
        if pending.streams == 0 {
            pending.since = now;
        }
        pending.streams += 1;
    }

    /// A stream registers, `now` changes so far: the count it is owed the
    /// changes after (`now` for one that was never acknowledged here).
    pub fn registering(&self, now: u64) -> u64 {
        let mut pending = self.lock();
        if pending.streams == 0 {
            return now;
        }
        pending.streams -= 1;
        pending.since
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::Listening;

    #[test]
    fn a_stream_counts_from_its_acknowledgement() {
        let listening = Listening::default();
        listening.acknowledging(3);
        assert_eq!(listening.registering(5), 3);
        // Nothing pending: a stream counts from its registration.
        assert_eq!(listening.registering(7), 7);
    }

    #[test]
    fn a_stream_registering_after_another_keeps_the_earliest_mark() {
        // Two streams acknowledged at change 4; the first registers, a
        // change is made (5), then the second registers: it is owed
        // change 5, so it counts from 4, not from 5.
        let listening = Listening::default();
        listening.acknowledging(4);
        listening.acknowledging(4);
        assert_eq!(listening.registering(4), 4);
        assert_eq!(listening.registering(5), 4);
        // Both registered: the next stream starts afresh.
        listening.acknowledging(9);
        assert_eq!(listening.registering(9), 9);
    }

    #[test]
    fn streams_registering_in_either_order_never_count_from_after_their_own_mark() {
        let listening = Listening::default();
        listening.acknowledging(2);
        listening.acknowledging(6);
        for now in [8, 10] {
            assert!(listening.registering(now) <= 2);
        }
    }
}
