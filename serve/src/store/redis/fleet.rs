//! The instances of one deployment, and how the instance that made a
//! change learns that it is in force on all of them.
//!
//! **Presence.** Each instance has a name ([`RedisOptions::with_instance_name`])
//! kept in a sorted set per shard (`P:instances` on one Redis; on a
//! cluster `P:{bN}:instances` in each shard's slot, so nothing outside a
//! change's slot is on its path), scored with when it lapses: Redis's clock
//! at its last renewal plus the grace period plus the command timeout. An
//! instance renews its name in every shard's set at every heartbeat, and
//! counts itself in contact with a shard only once that renewal is answered
//! and its feed of the shard is not lost (see `health`). So a name lapses
//! only after its instance's grace period for that shard has run out: an
//! instance that still serves a shard's principals is in the shard's set
//! (and one whose feed is lost there is too, so a change waits for it).
//!
//! **Confirmation.** After a change, the instance that made it publishes a
//! probe on the channel the change went on. Every instance handles its feed
//! in order, so when it handles the probe it has applied the change (or,
//! subscribed since it was made, loaded what Redis held after it), and it
//! answers with a confirmation on that channel. The maker waits for a
//! confirmation from every other name in the set as it was before the
//! probe, up to [`RedisOptions::with_propagation_wait`]. At each heartbeat
//! meanwhile it reads the set again, dropping the names that lapsed, and
//! probes again: an instance that lost its feed hears the first probe
//! never, but after subscribing again and reloading it answers the next
//! (and the maker, if it was the one off its feed, hears the answers).
//!
//! **Suspects.** A live instance that let a wait run out (frozen, its feed
//! stuck) becomes a suspect: later changes still probe it and name it
//! pending until it answers, but no longer wait for it, so one stuck
//! instance costs the writers one wait, not one per change. Any
//! confirmation from it, of any probe, clears it.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use redis::Script;
use tokio::sync::oneshot;

use super::scripts::{Change, Shard};
use super::{RedisOptions, RedisStore, within};
use crate::store::{Propagation, StoreError};
use mcp_profiles::Vocabulary;

/// Renews `ARGV[1]` in the set `KEYS[1]` until Redis's clock plus
/// `ARGV[2]` ms, dropping the names that lapsed.
static RENEW: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1
",
    )
});

/// The names in the set `KEYS[1]` that have not lapsed by Redis's clock.
static LIVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
",
    )
});

/// This instance's name, and the probes it is waiting on.
pub(super) struct Fleet {
    name: String,
    /// How long after a renewal the name lapses, in ms.
    lapse_ms: u64,
    /// How long a change waits for the other instances.
    wait: Duration,
    /// How often the set is read again while waiting.
    recheck: Duration,
    probes: AtomicU64,
    waiting: Mutex<HashMap<u64, Waiting>>,
    /// Live instances that let a wait run out and have not answered since.
    suspects: Mutex<HashSet<String>>,
}

/// One probe's confirmations so far.
struct Waiting {
    pending: HashSet<String>,
    /// The pending instances that were suspects when it was made: named if
    /// they do not answer, but not waited for.
    suspects: HashSet<String>,
    confirmed: usize,
    done: Option<oneshot::Sender<()>>,
}

impl Waiting {
    /// Says the wait is over once nobody but suspects is pending.
    fn settle(&mut self) {
        if self.pending.is_subset(&self.suspects)
            && let Some(done) = self.done.take()
        {
            let _ = done.send(());
        }
    }
}

impl Fleet {
    pub fn new(options: &RedisOptions) -> Self {
        let lapse = options.grace + options.timeout;
        Fleet {
            name: options
                .instance
                .clone()
                .unwrap_or_else(default_instance_name),
            lapse_ms: u64::try_from(lapse.as_millis()).unwrap_or(u64::MAX),
            wait: options.propagation_wait(),
            recheck: options.heartbeat(),
            // Not from 0: an instance started again under the same name
            // never takes a late confirmation of its predecessor's probe.
            probes: AtomicU64::new(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |now| u64::try_from(now.as_nanos()).unwrap_or(0)),
            ),
            waiting: Mutex::default(),
            suspects: Mutex::default(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A probe number never used before by this instance.
    pub fn next_probe(&self) -> u64 {
        self.probes.fetch_add(1, Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Waiting>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn suspects(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.suspects.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new probe awaiting `pending`, and what says they all confirmed
    /// (at once when only suspects are pending).
    fn expect(&self, pending: HashSet<String>) -> (u64, oneshot::Receiver<()>) {
        let probe = self.next_probe();
        let (done, settled) = oneshot::channel();
        let suspects = pending.intersection(&self.suspects()).cloned().collect();
        let mut waiting = Waiting {
            pending,
            suspects,
            confirmed: 0,
            done: Some(done),
        };
        waiting.settle();
        self.lock().insert(probe, waiting);
        (probe, settled)
    }

    /// `instance` confirmed `probe`: it follows its feed again, whichever
    /// probe it answered.
    pub fn confirmed(&self, probe: u64, instance: &str) {
        self.suspects().remove(instance);
        if let Some(waiting) = self.lock().get_mut(&probe)
            && waiting.pending.remove(instance)
        {
            waiting.confirmed += 1;
            waiting.settle();
        }
    }

    /// Only the names in `live` are still awaited for `probe`: the others
    /// lapsed, so they serve nothing (nor are they suspects any more).
    fn lapsed(&self, probe: u64, live: &[String]) {
        self.suspects().retain(|name| live.contains(name));
        if let Some(waiting) = self.lock().get_mut(&probe) {
            waiting.pending.retain(|name| live.contains(name));
            waiting.settle();
        }
    }

    /// Stops waiting on `probe`: what it found. Whoever is still pending
    /// is a suspect from now on.
    fn finish(&self, probe: u64) -> Propagation {
        let waiting = self.lock().remove(&probe);
        let (confirmed, pending) =
            waiting.map_or((0, HashSet::new()), |w| (w.confirmed, w.pending));
        self.suspects().extend(pending.iter().cloned());
        Propagation::new(confirmed + 1, pending.into_iter().collect())
    }
}

/// `{host}-{pid}-{6 hex}`: unique enough that two processes never share it.
fn default_instance_name() -> String {
    use sha2::{Digest, Sha256};
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|host| host.trim().to_owned())
        .filter(|host| !host.is_empty())
        .unwrap_or_else(|| "instance".to_owned());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let seed = format!("{host}{}{now}{:p}", std::process::id(), &now);
    let salt: String = Sha256::digest(seed.as_bytes())[..3]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("{host}-{}-{salt}", std::process::id())
}

/// The command publishing `message` on `channel` with `publish`.
fn publishing(publish: &str, channel: &str, message: &Change) -> Result<redis::Cmd, StoreError> {
    let json = serde_json::to_string(message).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let mut command = redis::cmd(publish);
    command.arg(channel).arg(json);
    Ok(command)
}

impl<S: Vocabulary> RedisStore<S> {
    /// Keeps this instance's name in the set of live instances following
    /// `shard`.
    pub(super) async fn renew(&self, shard: Shard) -> Result<(), StoreError> {
        let mut connection = self.reads.clone();
        let mut renew = RENEW.prepare_invoke();
        renew
            .key(self.keys.instances(shard))
            .arg(self.fleet.name())
            .arg(self.fleet.lapse_ms);
        within(self.timeout, renew.invoke_async::<()>(&mut connection))
            .await?
            .map_err(|error| StoreError::Unavailable(error.to_string()))
    }

    /// The names of the live instances following `shard`.
    async fn live(&self, shard: Shard) -> Result<Vec<String>, StoreError> {
        let mut connection = self.reads.clone();
        let mut live = LIVE.prepare_invoke();
        live.key(self.keys.instances(shard));
        within(self.timeout, live.invoke_async(&mut connection))
            .await?
            .map_err(|error| StoreError::Unavailable(error.to_string()))
    }

    /// Publishes `message` on `channel` (straight to its shard's primary on
    /// a cluster: a probe never waits on another shard's failover).
    pub(super) async fn publish(&self, channel: &str, message: &Change) -> Result<(), StoreError> {
        self.read(&publishing(self.keys.publish(), channel, message)?)
            .await
    }

    /// `shard`'s channel, and this instance's `probe` to publish there.
    pub(super) fn probe(&self, shard: Shard, probe: u64) -> (String, Change) {
        let channel = self.keys.channel(shard);
        let asked = Change::Probe {
            origin: self.fleet.name().to_owned(),
            probe,
            channel: channel.clone(),
        };
        (channel, asked)
    }

    /// Answers `origin`'s probe on `channel` without holding up the feed
    /// (the message before it is handled already).
    pub(super) fn answer_probe(&self, origin: String, probe: u64, channel: &str) {
        if origin == self.fleet.name() {
            return;
        }
        let confirmed = Change::Confirmed {
            origin,
            probe,
            instance: self.fleet.name().to_owned(),
        };
        let Ok(command) = publishing(self.keys.publish(), channel, &confirmed) else {
            return;
        };
        let mut connection = self.reads.clone();
        let timeout = self.timeout;
        tokio::spawn(async move {
            let sent =
                tokio::time::timeout(timeout, command.query_async::<()>(&mut connection)).await;
            if !matches!(sent, Ok(Ok(()))) {
                tracing::warn!("could not confirm a change to the instance that made it");
            }
        });
    }

    /// Waits until every other live instance has handled `shard`'s
    /// channel up to now (so every change made here before the call), or
    /// the wait runs out.
    pub(super) async fn propagated(&self, shard: Shard) -> Result<Propagation, StoreError> {
        let others: HashSet<String> = self
            .live(shard)
            .await?
            .into_iter()
            .filter(|name| name != self.fleet.name())
            .collect();
        if others.is_empty() {
            return Ok(Propagation::here());
        }
        let (probe, mut settled) = self.fleet.expect(others);
        let (channel, asked) = self.probe(shard, probe);
        if let Err(error) = self.publish(&channel, &asked).await {
            self.fleet.finish(probe);
            return Err(error);
        }
        let deadline = tokio::time::Instant::now() + self.fleet.wait;
        let mut recheck = tokio::time::interval_at(
            tokio::time::Instant::now() + self.fleet.recheck,
            self.fleet.recheck,
        );
        loop {
            tokio::select! {
                _ = &mut settled => break,
                () = tokio::time::sleep_until(deadline) => break,
                _ = recheck.tick() => {
                    if let Ok(live) = self.live(shard).await {
                        self.fleet.lapsed(probe, &live);
                    }
                    // Asked again: an instance (or this one) that lost its
                    // feed and subscribed again since hears it now, after
                    // the reload that caught it up.
                    let _ = self.publish(&channel, &asked).await;
                }
            }
        }
        Ok(self.fleet.finish(probe))
    }

    /// Takes this instance's name out of every shard's set (it is leaving).
    pub(super) fn leave(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let leaving: Vec<redis::Cmd> = self
            .keys
            .shards()
            .into_iter()
            .map(|shard| {
                let mut leave = redis::cmd("ZREM");
                leave.arg(self.keys.instances(shard)).arg(self.fleet.name());
                leave
            })
            .collect();
        let connection = self.commands.clone();
        let timeout = self.timeout;
        runtime.spawn(async move {
            let each = leaving.into_iter().map(|leave| {
                let mut connection = connection.clone();
                async move { leave.query_async::<()>(&mut connection).await }
            });
            let _ = tokio::time::timeout(timeout, futures_util::future::join_all(each)).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fleet() -> Fleet {
        Fleet::new(&RedisOptions::default().with_instance_name("maker"))
    }

    fn names(names: &[&str]) -> HashSet<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn an_instance_that_let_a_wait_run_out_is_named_but_not_waited_for_until_it_answers() {
        let fleet = fleet();
        let (first, mut settled) = fleet.expect(names(&["stuck", "fine"]));
        fleet.confirmed(first, "fine");
        assert!(settled.try_recv().is_err(), "`stuck` is still awaited");
        let found = fleet.finish(first);
        assert_eq!(
            (found.applied, found.pending.clone()),
            (2, vec!["stuck".to_owned()])
        );

        // The next change does not wait for it, and still names it.
        let (second, mut settled) = fleet.expect(names(&["stuck", "fine"]));
        assert!(settled.try_recv().is_err(), "`fine` is awaited");
        fleet.confirmed(second, "fine");
        assert!(settled.try_recv().is_ok(), "only a suspect is pending");
        assert_eq!(fleet.finish(second).pending, ["stuck"]);

        // A late answer to the first probe clears it: awaited again.
        fleet.confirmed(first, "stuck");
        let (third, mut settled) = fleet.expect(names(&["stuck"]));
        assert!(settled.try_recv().is_err(), "`stuck` is awaited again");
        fleet.confirmed(third, "stuck");
        assert!(settled.try_recv().is_ok());
        assert!(fleet.finish(third).is_complete());
    }

    #[test]
    fn a_suspect_that_lapsed_is_forgotten() {
        let fleet = fleet();
        let (probe, _settled) = fleet.expect(names(&["gone"]));
        fleet.finish(probe);
        let (probe, _settled) = fleet.expect(names(&["other"]));
        fleet.lapsed(probe, &["other".to_owned()]);
        assert!(fleet.suspects().is_empty());
    }
}
