//! Whether an instance may still serve what it last applied: when it last
//! heard from Redis, against its grace period.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Milliseconds since some fixed start; never goes back.
type Clock = Box<dyn Fn() -> u64 + Send + Sync>;

/// When this instance last heard from Redis, and how long it may serve
/// without hearing again.
pub(super) struct Health {
    clock: Clock,
    /// The clock's reading at the last successful contact.
    last_ok: AtomicU64,
    grace: Duration,
}

impl Health {
    pub fn new(grace: Duration) -> Self {
        let start = Instant::now();
        Self::with_clock(grace, move || {
            u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
        })
    }

    fn with_clock(grace: Duration, clock: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        Health {
            clock: Box::new(clock),
            last_ok: AtomicU64::new(0),
            grace,
        }
    }

    /// Redis answered, and everything it said has been applied.
    pub fn ok(&self) {
        self.last_ok.fetch_max((self.clock)(), Ordering::SeqCst);
    }

    /// `Err` naming the outage once it has lasted past the grace period.
    pub fn serving(&self) -> Result<(), String> {
        // Another task may record a contact between the two reads, later
        // than the `now` read here: that is no silence at all, not a
        // negative one.
        let now = (self.clock)();
        let silent = now.saturating_sub(self.last_ok.load(Ordering::SeqCst));
        let silent = Duration::from_millis(silent);
        if silent <= self.grace {
            return Ok(());
        }
        Err(format!(
            "the profile store (Redis) has not been reachable for {:.1} s, longer than this \
             gateway's grace period of {:.1} s: requests are refused until it is back, since \
             the profile may have been narrowed meanwhile",
            silent.as_secs_f64(),
            self.grace.as_secs_f64()
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use super::Health;

    /// A clock the test sets by hand.
    fn manual() -> (Arc<AtomicU64>, impl Fn() -> u64 + Send + Sync + 'static) {
        let now = Arc::new(AtomicU64::new(0));
        let read = Arc::clone(&now);
        (now, move || read.load(Ordering::SeqCst))
    }

    #[test]
    fn a_contact_recorded_after_the_clock_was_read_is_no_outage() {
        // `serving` reads the clock at 100 ms; before it reads the last
        // contact, another task records one at 150 ms. The clock the test
        // injects returns the two readings in that order.
        let readings = Arc::new(std::sync::Mutex::new(vec![100, 150]));
        let next = Arc::clone(&readings);
        let health = Health::with_clock(Duration::from_secs(1), move || {
            next.lock().unwrap().pop().expect("no more readings")
        });
        health.ok(); // at 150
        assert_eq!(health.serving(), Ok(())); // "now" is 100
    }

    #[test]
    fn silence_past_the_grace_period_is_refused_and_a_contact_ends_it() {
        let (now, clock) = manual();
        let health = Health::with_clock(Duration::from_millis(500), clock);
        health.ok();
        now.store(500, Ordering::SeqCst);
        assert_eq!(health.serving(), Ok(()));
        now.store(2_001, Ordering::SeqCst);
        let refusal = health.serving().unwrap_err();
        assert!(
            refusal.contains("not been reachable for 2.0 s"),
            "{refusal}"
        );
        assert!(refusal.contains("grace period of 0.5 s"), "{refusal}");
        health.ok();
        assert_eq!(health.serving(), Ok(()));
    }
}
