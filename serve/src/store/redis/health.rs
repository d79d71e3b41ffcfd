//! Whether an instance may still serve what it last applied of each
//! shard: when it last heard from that shard, against its grace period.
//! One Redis is one shard; on a cluster a shard whose primary is gone is
//! refused alone, the others served on.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::scripts::{Keys, Shard};

/// Milliseconds since some fixed start; never goes back.
type Clock = Box<dyn Fn() -> u64 + Send + Sync>;

/// When this instance last heard from each shard, and how long it may
/// serve a shard without hearing from it again.
pub(super) struct Health {
    clock: Clock,
    shards: Vec<ShardHealth>,
    /// How many shards are lost: the store counts as up at none.
    lost: AtomicUsize,
    grace: Duration,
}

/// One shard's contact.
struct ShardHealth {
    /// The clock's reading at the last contact that counted.
    last_ok: AtomicU64,
    /// Its feed may have missed something (a lost connection, a channel
    /// moved, one Redis's feed unanswered): contacts count again only once it
    /// is subscribed again and reloaded.
    lost: AtomicBool,
    /// The last heartbeat reached it: worth recovering now.
    answered: AtomicBool,
    /// The probe this instance published on the shard's channel once
    /// subscribed again (0: none): hearing it back proves the subscription
    /// is live on the shard's primary, and the reload follows.
    echo: AtomicU64,
}

impl Health {
    /// `shards` shards (see [`Keys::shards`]), each just heard from.
    pub fn new(grace: Duration, shards: usize) -> Self {
        let start = Instant::now();
        Self::with_clock(grace, shards, move || {
            u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
        })
    }

    fn with_clock(
        grace: Duration,
        shards: usize,
        clock: impl Fn() -> u64 + Send + Sync + 'static,
    ) -> Self {
        Health {
            clock: Box::new(clock),
            shards: (0..shards)
                .map(|_| ShardHealth {
                    last_ok: AtomicU64::new(0),
                    lost: AtomicBool::new(false),
                    answered: AtomicBool::new(true),
                    echo: AtomicU64::new(0),
                })
                .collect(),
            lost: AtomicUsize::new(0),
            grace,
        }
    }

    fn of(&self, shard: Shard) -> &ShardHealth {
        &self.shards[Keys::index(shard)]
    }

    /// A heartbeat reached `shard` (renewed this instance's name there):
    /// a contact, unless its feed is lost.
    pub fn answered(&self, shard: Shard) {
        let health = self.of(shard);
        health.answered.store(true, Ordering::SeqCst);
        if !health.lost.load(Ordering::SeqCst) {
            health.last_ok.fetch_max((self.clock)(), Ordering::SeqCst);
        }
    }

    /// `shard`'s feed may have missed something: no contact counts until
    /// it is [`recovered`](Self::recovered), nor is it worth recovering
    /// before a heartbeat reaches it again. Whether it was not lost
    /// already, and whether it is the first shard lost.
    pub fn lose(&self, shard: Shard) -> (bool, bool) {
        let health = self.of(shard);
        health.answered.store(false, Ordering::SeqCst);
        if health.lost.swap(true, Ordering::SeqCst) {
            return (false, false);
        }
        (true, self.lost.fetch_add(1, Ordering::SeqCst) == 0)
    }

    /// Whether `shard`'s feed is lost.
    pub fn is_lost(&self, shard: Shard) -> bool {
        self.of(shard).lost.load(Ordering::SeqCst)
    }

    /// The lost shards a heartbeat reached since they were lost: worth
    /// subscribing to and reloading now.
    pub fn recoverable(&self, keys: &Keys) -> Vec<Shard> {
        keys.shards()
            .into_iter()
            .filter(|shard| {
                let health = self.of(*shard);
                health.lost.load(Ordering::SeqCst) && health.answered.load(Ordering::SeqCst)
            })
            .collect()
    }

    /// `shard` was subscribed to again, and `probe` published on its
    /// channel to hear back.
    pub fn await_echo(&self, shard: Shard, probe: u64) {
        self.of(shard).echo.store(probe, Ordering::SeqCst);
    }

    /// Whether `probe` heard on `shard`'s channel is the echo a lost shard
    /// awaits.
    pub fn is_echo(&self, shard: Shard, probe: u64) -> bool {
        let health = self.of(shard);
        health.lost.load(Ordering::SeqCst)
            && probe != 0
            && health.echo.load(Ordering::SeqCst) == probe
    }

    /// `shard` was subscribed to again and reloaded: a contact. Whether it
    /// was the last shard lost.
    pub fn recovered(&self, shard: Shard) -> bool {
        let health = self.of(shard);
        health.last_ok.fetch_max((self.clock)(), Ordering::SeqCst);
        health.lost.swap(false, Ordering::SeqCst) && self.lost.fetch_sub(1, Ordering::SeqCst) == 1
    }

    /// `Err` naming the outage once `shard` has been silent past the grace
    /// period. The text names no node or slot: only that part of the store
    /// is out of reach.
    pub fn serving(&self, shard: Shard) -> Result<(), String> {
        self.heard_within_grace(self.of(shard))
    }

    /// `Err` as [`serving`](Self::serving) once every shard has been
    /// silent past the grace period: what each shard holds a copy of (the
    /// kill switch) is current here while any one is heard.
    pub fn serving_any(&self) -> Result<(), String> {
        let mut refusal = String::new();
        for health in &self.shards {
            match self.heard_within_grace(health) {
                Ok(()) => return Ok(()),
                Err(why) => refusal = why,
            }
        }
        Err(refusal)
    }

    fn heard_within_grace(&self, health: &ShardHealth) -> Result<(), String> {
        // Another task may record a contact between the two reads, later
        // than the `now` read here: that is no silence at all, not a
        // negative one.
        let now = (self.clock)();
        let silent = now.saturating_sub(health.last_ok.load(Ordering::SeqCst));
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
    use crate::store::redis::scripts::{Keys, Shard};

    const ONE: Shard = Shard::ALONE;

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
        let health = Health::with_clock(Duration::from_secs(1), 1, move || {
            next.lock().unwrap().pop().expect("no more readings")
        });
        health.answered(ONE); // at 150
        assert_eq!(health.serving(ONE), Ok(())); // "now" is 100
    }

    #[test]
    fn silence_past_the_grace_period_is_refused_and_a_contact_ends_it() {
        let (now, clock) = manual();
        let health = Health::with_clock(Duration::from_millis(500), 1, clock);
        health.answered(ONE);
        now.store(500, Ordering::SeqCst);
        assert_eq!(health.serving(ONE), Ok(()));
        now.store(2_001, Ordering::SeqCst);
        let refusal = health.serving(ONE).unwrap_err();
        assert!(
            refusal.contains("not been reachable for 2.0 s"),
            "{refusal}"
        );
        assert!(refusal.contains("grace period of 0.5 s"), "{refusal}");
        health.answered(ONE);
        assert_eq!(health.serving(ONE), Ok(()));
    }

    #[test]
    fn a_silent_shard_is_refused_alone_and_a_lost_one_counts_again_once_recovered() {
        let (now, clock) = manual();
        let keys = Keys::sharded("p", 2);
        let [first, second, kill] = keys.shards()[..] else {
            panic!("two shards and the kill switch's")
        };
        let health = Health::with_clock(Duration::from_millis(500), 3, clock);
        now.store(400, Ordering::SeqCst);
        health.answered(first);
        health.answered(kill);
        assert_eq!(health.lose(second), (true, true), "the first shard lost");
        assert_eq!(health.lose(second), (false, false), "already lost");
        now.store(800, Ordering::SeqCst);
        assert_eq!(health.serving(first), Ok(()));
        assert!(health.serving(second).is_err());
        assert_eq!(health.recoverable(&keys), [] as [Shard; 0]);

        // Reached again, but its feed may have missed changes: no contact
        // until it is reloaded.
        health.answered(second);
        assert!(health.serving(second).is_err());
        assert_eq!(health.recoverable(&keys), [second]);
        assert!(health.recovered(second), "the last shard lost");
        assert_eq!(health.serving(second), Ok(()));
        assert!(!health.is_lost(second));
    }

    #[test]
    fn what_every_shard_holds_is_served_while_any_shard_is_heard() {
        let (now, clock) = manual();
        let keys = Keys::sharded("p", 1);
        let [first, kill] = keys.shards()[..] else {
            panic!("one shard and the kill switch's")
        };
        let health = Health::with_clock(Duration::from_millis(500), 2, clock);
        now.store(400, Ordering::SeqCst);
        health.answered(first);
        now.store(800, Ordering::SeqCst);
        assert!(health.serving(kill).is_err());
        assert_eq!(health.serving_any(), Ok(()));
        now.store(1_000, Ordering::SeqCst);
        let refusal = health.serving_any().unwrap_err();
        assert!(refusal.contains("grace period of 0.5 s"), "{refusal}");
    }
}
