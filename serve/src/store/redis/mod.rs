//! [`RedisStore`]: principals' profiles, versions and token digests in
//! Redis, shared by every gateway instance, each change published on a
//! pub/sub feed that every instance follows.
//!
//! Failure policy (see [`RedisOptions::with_grace`]): an instance that
//! loses Redis keeps serving the profiles it last applied for at most the
//! grace period, counted from its last successful contact; after that every
//! request is refused with an error saying why, until it is back. On
//! reconnecting it subscribes again, then reloads every principal and token
//! it serves and applies what changed (one `list_changed` per affected
//! session), so a change published while it was away is never lost. A
//! feed message that skips versions makes it reload that principal.
//!
//! The operator's kill switch is one list for every instance, kept beside
//! the agents with a version of its own: each instance loads it before it
//! serves, applies each newer one the feed carries, and loads it again on
//! reconnecting (on a cluster, from each shard's copy: see `kill`).
//!
//! The same store runs on a Redis Cluster (`redis+cluster://…`): see
//! [`cluster`] for its key layout, its token grants and its feed.

mod audit;
mod cluster;
mod connection;
mod decisions;
mod feed;
mod fleet;
mod health;
mod kill;
mod primaries;
mod scripts;
mod shard_feed;
mod slot;
mod streams;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use self::connection::{Call, Connection};
use self::fleet::Fleet;
use self::health::Health;
use self::scripts::{DELETE, GRANT, Keys, PUT, PUT_CATALOG, REVOKE, Shard, UNCONFIRMED, digest};
use mcp_profiles::{Catalog, CatalogDecoder, ProfileContext, Vocabulary};

use super::{
    AgentChange, AgentStore, CatalogChange, Changed, Propagation, Replication, StoreError,
    StoreFuture, StoredAgent, StoredCatalog, StoredKillSwitch, Written, decode_catalog,
    listed_change, presentable, stored,
};
use crate::agents::{AgentUpdate, Apply, Unreachable};
use crate::audit::decisions::DecisionRecord;
use crate::audit::states::{CatalogSummary, compiled_tools, fingerprint};
use crate::audit::{Attribution, AuditQuery, AuditRecord};
use crate::{ProfileStore, ServingFuture, UnknownPrincipal};

/// How a [`RedisStore`] connects and when it stops serving.
#[derive(Clone, Debug)]
pub struct RedisOptions {
    grace: Duration,
    prefix: String,
    timeout: Duration,
    audit_capacity: usize,
    decision_capacity: usize,
    shards: u16,
    replicas: Option<usize>,
    instance: Option<String>,
    propagation: Option<Duration>,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            grace: Duration::from_secs(5),
            prefix: "mcp-profiles".to_owned(),
            timeout: Duration::from_secs(2),
            audit_capacity: crate::audit::DEFAULT_CAPACITY,
            decision_capacity: Self::DEFAULT_DECISION_CAPACITY,
            shards: Self::DEFAULT_SHARDS,
            replicas: None,
            instance: None,
            propagation: None,
        }
    }
}

impl RedisOptions {
    /// The shortest grace period: a few heartbeats must fit in it.
    pub const MIN_GRACE: Duration = Duration::from_millis(100);

    /// How long an instance that lost Redis keeps serving the profiles it
    /// last applied, counted from its last successful contact (default
    /// 5 s; at least [`MIN_GRACE`](Self::MIN_GRACE)). Past it, requests are
    /// refused: a profile narrowed meanwhile must never be served wide.
    /// Instances ping Redis every quarter of it (at most every second).
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace.max(Self::MIN_GRACE);
        self
    }

    /// The prefix of every key and of the feed channel (default
    /// `mcp-profiles`), so several deployments can share one Redis.
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        self.prefix = prefix.to_owned();
        self
    }

    /// How long one command to Redis may take (default 2 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// About how many records the audit trail's stream keeps (default
    /// [`audit::DEFAULT_CAPACITY`](crate::audit::DEFAULT_CAPACITY); at
    /// least 1): each change's `XADD` trims it with `MAXLEN ~ N`, which
    /// drops the oldest entries a whole node at a time, so a few more may
    /// stay. On a cluster each shard's stream keeps about this many, so
    /// the newest `capacity` records are always kept. Set every instance of
    /// a deployment alike.
    pub fn with_audit_capacity(mut self, capacity: usize) -> Self {
        self.audit_capacity = capacity.max(1);
        self
    }

    /// About how many call decisions the decision log's stream keeps
    /// (default [`DEFAULT_DECISION_CAPACITY`](Self::DEFAULT_DECISION_CAPACITY);
    /// at least 1), trimmed as the audit trail's is; on a cluster, each
    /// shard's stream. Decisions are shipped only by an instance whose
    /// local copy has a log attached
    /// ([`ProfileStore::with_decision_log`]).
    pub fn with_decision_capacity(mut self, capacity: usize) -> Self {
        self.decision_capacity = capacity.max(1);
        self
    }

    /// The decision log's stream's capacity when none is set.
    pub const DEFAULT_DECISION_CAPACITY: usize = 100_000;

    /// The shards a cluster's principals and tokens spread over (default
    /// [`DEFAULT_SHARDS`](Self::DEFAULT_SHARDS); 1 to 1023): each is one
    /// hash slot, so up to this many primaries share the load. Every change
    /// touches one shard; the feed and the audit trail span them all. Set
    /// every instance of a deployment alike, and never change it for stored
    /// data (it decides where each key lives). One Redis ignores it.
    pub fn with_shards(mut self, shards: u16) -> Self {
        self.shards = shards.clamp(1, 1023);
        self
    }

    /// How many replicas must confirm each change (Redis `WAIT`) before it
    /// is acknowledged: default 1 on a cluster, 0 on one Redis. A change
    /// too few confirm within a quarter of the [timeout](Self::with_timeout) is
    /// made, recorded and published, and answered as such, its
    /// [`Written::replication`] unconfirmed (the control API: 202 with
    /// `Mcp-Profiles-Unconfirmed`): a failover before the replicas catch up
    /// may lose it. With 0, a failover may lose an acknowledged change (and
    /// re-widen a profile it narrowed).
    pub fn with_replica_acks(mut self, replicas: usize) -> Self {
        self.replicas = Some(replicas);
        self
    }

    /// This instance's name among the instances sharing the store, as
    /// [`Propagation::pending`] names the ones that have not confirmed a
    /// change (default `{HOSTNAME}-{pid}-{6 random hex digits}`). Every
    /// instance of a deployment must have a name of its own.
    pub fn with_instance_name(mut self, name: &str) -> Self {
        self.instance = Some(name.to_owned());
        self
    }

    /// How long [`AgentStore::propagated`] waits for the other instances to
    /// confirm a change (default: the command timeout plus one heartbeat,
    /// 3 s by default). A live instance that has not confirmed by then is
    /// named pending (the answer the control API gives is 202), and later
    /// changes name it without waiting for it again until it answers a
    /// probe; one that lapses meanwhile (its grace period ran out, so it
    /// serves nothing) is dropped from the wait, not named.
    pub fn with_propagation_wait(mut self, wait: Duration) -> Self {
        self.propagation = Some(wait);
        self
    }

    /// How long a change waits for the other instances.
    pub fn propagation_wait(&self) -> Duration {
        self.propagation.unwrap_or(self.timeout + self.heartbeat())
    }

    /// The grace period.
    pub fn grace(&self) -> Duration {
        self.grace
    }

    /// About how many records the audit trail keeps.
    pub fn audit_capacity(&self) -> usize {
        self.audit_capacity
    }

    /// The shards of a cluster when none is set.
    pub const DEFAULT_SHARDS: u16 = 64;

    fn heartbeat(&self) -> Duration {
        (self.grace / 4).clamp(Duration::from_millis(20), Duration::from_secs(1))
    }
}

/// A store shared by several gateway instances through Redis.
///
/// Each instance keeps [`profiles`](AgentStore::profiles), a
/// [`ProfileStore`] holding the principals its requests named, and serves
/// it with [`crate::http::multi_agent_router`]. A token unknown there is
/// looked up in Redis (by its SHA-256 digest) on first use. Changes through
/// any instance's [`AgentStore`] methods reach every instance through the
/// feed, applied in version order.
///
/// Connected in an `Arc` (an `Arc` of a store is a store): its local copy
/// holds a weak reference back to it, to ask it for tokens it does not
/// know ([`AgentStore::resolve`]) and whether it may still serve
/// ([`AgentStore::serving`]); dropping the last `Arc` stops its feed and
/// heartbeat.
pub struct RedisStore<S: Vocabulary> {
    local: Arc<ProfileStore<S>>,
    commands: Connection,
    /// What the heartbeat renews on, a reload reads through and probes and
    /// confirmations are published on: on a cluster, straight to each
    /// primary, so none waits on another shard's failover (see
    /// `primaries`).
    reads: Connection,
    /// The connections changes are made on, in turn: `WAIT` holds the
    /// connection it is sent on until the replicas answer, so on a cluster
    /// several let that many changes wait at once.
    writers: Vec<Connection>,
    next_writer: AtomicUsize,
    keys: Keys,
    timeout: Duration,
    /// The replicas that must confirm each change.
    replicas: usize,
    audit_capacity: usize,
    decision_capacity: usize,
    /// Held while decisions are shipped (see `decisions`).
    shipping: tokio::sync::Mutex<()>,
    health: Health,
    /// Token digest → token, for the tokens granted locally.
    known: Mutex<HashMap<String, String>>,
    /// Feed messages handled so far: a token resolution that saw it move
    /// checks again what it loaded.
    seen: AtomicU64,
    /// This instance's name, and the changes made here awaiting the others.
    fleet: Fleet,
    /// The feed and heartbeat tasks, and the decisions' shipping.
    tasks: OnceLock<Vec<tokio::task::AbortHandle>>,
}

impl<S: Vocabulary> std::fmt::Debug for RedisStore<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("keys", &self.keys)
            .field("local", &self.local)
            .finish_non_exhaustive()
    }
}

impl<S: Vocabulary> Drop for RedisStore<S> {
    fn drop(&mut self) {
        for task in self.tasks.get().into_iter().flatten() {
            task.abort();
        }
        self.leave();
    }
}

impl<S: Vocabulary> RedisStore<S> {
    /// Connects to Redis at `url` (`redis://HOST:PORT/DB`), or to a Redis
    /// Cluster (`redis+cluster://HOST:PORT,HOST:PORT,…`, any of its nodes:
    /// see the `cluster` module's layout and failover), subscribes to its
    /// change feed and loads the operator's kill switch; fails if Redis
    /// cannot be reached now (or holds a kill switch it cannot read). On a
    /// cluster it fails only if no shard can be reached: a shard whose
    /// primary is out of reach starts lost (its principals refused until a
    /// heartbeat reaches it and it is loaded), and with the kill switch's
    /// own shard out of reach the newest copy the others hold is loaded.
    /// Its agents
    /// have no runtime catalogs here (see
    /// [`connect_with_catalogs`](Self::connect_with_catalogs)).
    pub async fn connect(url: &str, options: RedisOptions) -> Result<Arc<Self>, StoreError> {
        Self::connect_with_profiles(url, options, ProfileStore::default()).await
    }

    /// [`connect`](Self::connect), for agents that also have runtime
    /// catalogs: `decoder` turns each stored catalog into the [`Catalog`]
    /// this instance installs (see [`CatalogDecoder`](mcp_profiles::CatalogDecoder)). Every instance of a
    /// deployment should decode alike; one that cannot decode a stored
    /// catalog serves the agent without it, and logs why.
    pub async fn connect_with_catalogs(
        url: &str,
        options: RedisOptions,
        decoder: CatalogDecoder<S>,
    ) -> Result<Arc<Self>, StoreError> {
        Self::connect_with_profiles(url, options, ProfileStore::default().with_catalogs(decoder))
            .await
    }

    /// [`connect`](Self::connect), with `profiles` as this instance's local
    /// copy ([`profiles`](AgentStore::profiles)), built with the settings
    /// it serves under: its catalog decoder
    /// ([`ProfileStore::with_catalogs`], as in
    /// [`connect_with_catalogs`](Self::connect_with_catalogs)) and its name
    /// presentation ([`ProfileStore::with_presentation`]).
    ///
    /// Every instance of a deployment should present names alike. A
    /// catalog put through this instance is refused before it is stored
    /// if its tools would collide under the presentation
    /// ([`StoreError::InvalidCatalog`] naming both tools); an instance whose
    /// presentation refuses a catalog stored by another serves the agent
    /// without it, and logs why.
    ///
    /// # Panics
    ///
    /// If `profiles` already holds an agent or a token, or mirrors another
    /// shared store: the local copy holds what Redis says, and only that.
    pub async fn connect_with_profiles(
        url: &str,
        options: RedisOptions,
        profiles: ProfileStore<S>,
    ) -> Result<Arc<Self>, StoreError> {
        assert!(
            profiles.is_new(),
            "the local copy of a Redis store must start empty: {profiles:?}"
        );
        Self::connect_serving(url, options, Arc::new(profiles)).await
    }

    /// Connects, with `local` (empty) as this instance's copy.
    async fn connect_serving(
        url: &str,
        options: RedisOptions,
        local: Arc<ProfileStore<S>>,
    ) -> Result<Arc<Self>, StoreError> {
        let unreachable = |error: redis::RedisError| {
            StoreError::Unavailable(format!("cannot connect to `{url}`: {error}"))
        };
        if let Some(seeds) = cluster::seeds(url)? {
            return cluster::connect(&seeds, options, local).await;
        }
        let client = redis::Client::open(url).map_err(|error| {
            StoreError::Unavailable(format!("`{url}` is not a Redis URL: {error}"))
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.timeout))
            .set_response_timeout(Some(options.timeout))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let connect = || {
            within(
                options.timeout,
                ConnectionManager::new_with_config(client.clone(), config.clone()),
            )
        };
        let commands = connect().await?.map_err(unreachable)?;
        // A change's `WAIT` blocks the connection it is sent on: with
        // replicas to wait for, changes go on connections of their own, so
        // that reads, heartbeats and other changes never queue behind one.
        let mut writers = Vec::new();
        if options.replicas.unwrap_or(0) > 0 {
            for _ in 0..WRITERS {
                writers.push(Connection::Single(connect().await?.map_err(unreachable)?));
            }
        }
        let keys = Keys::new(&options.prefix);
        let channel = keys.channel(keys.kill_shard());
        let feed = within(options.timeout, feed::Channel::subscribe(client, channel))
            .await?
            .map_err(unreachable)?;
        let inner = RedisStore::start(
            local,
            (Connection::Single(commands), writers, None),
            keys,
            &options,
            0,
            (feed, Vec::new()),
        )
        .await?;
        tracing::info!(url, grace = ?options.grace, "profile store on Redis");
        Ok(inner)
    }
}

/// A script's failure: raised by the script itself (a command in it
/// failed), Redis was reached, and the script's first write, the audit
/// record's, had not been made or was its own; anything else, Redis was not.
fn refused_or_unavailable(error: redis::RedisError) -> StoreError {
    match error.kind() {
        redis::ErrorKind::Extension
        | redis::ErrorKind::Server(redis::ServerErrorKind::ResponseError) => {
            StoreError::Refused(error.to_string())
        }
        _ => StoreError::Unavailable(error.to_string()),
    }
}

/// How many connections changes are made on when replicas must confirm
/// them, each one change's `WAIT` at a time (see `BENCHMARKS.md`, "Redis
/// Cluster").
const WRITERS: usize = 8;

/// `future`, or an error once `limit` has passed.
async fn within<T>(limit: Duration, future: impl Future<Output = T>) -> Result<T, StoreError> {
    tokio::time::timeout(limit, future)
        .await
        .map_err(|_| StoreError::Unavailable(format!("no answer within {limit:?}")))
}

/// The version, context and catalog an agent has in Redis (`None`: no
/// agent; no catalog).
pub(super) struct Fetched {
    version: u64,
    context: Option<String>,
    catalog: Option<String>,
}

impl<S: Vocabulary> RedisStore<S> {
    /// This instance's side of the store over connections and a feed
    /// subscribed already: loads the kill switch (after subscribing, so one
    /// put meanwhile is on the feed), joins the live instances and starts
    /// the feed task. One Redis and a cluster start alike.
    async fn start(
        local: Arc<ProfileStore<S>>,
        connections: (Connection, Vec<Connection>, Option<Connection>),
        keys: Keys,
        options: &RedisOptions,
        default_replicas: usize,
        (feed, unsubscribed): (impl feed::Subscription, Vec<Shard>),
    ) -> Result<Arc<Self>, StoreError> {
        let inner = RedisStore::new(local, connections, keys, options, default_replicas);
        // A shard out of reach at start (on a cluster) starts lost: its
        // principals are refused until a heartbeat reaches it and it is
        // subscribed to and loaded, as after any loss.
        inner.lose(&unsubscribed, "its primary was out of reach at start");
        inner.load_kill_switch_at_start().await?;
        // All at once, as the heartbeat does: a node out of reach costs
        // the start one timeout, not one per shard.
        let shards = inner.keys.shards();
        let renewals = futures_util::future::join_all(shards.iter().map(|s| inner.renew(*s))).await;
        let mut renewed = false;
        for (shard, renewal) in shards.iter().zip(renewals) {
            match renewal {
                Ok(()) => renewed = true,
                Err(error) if inner.keys.is_sharded() => inner.lose(&[*shard], &error.to_string()),
                Err(error) => return Err(error),
            }
        }
        if !renewed {
            return Err(StoreError::Unavailable(
                "no shard of the profile store answered".to_owned(),
            ));
        }
        let heartbeat = options.heartbeat();
        let feed = tokio::spawn(feed::run(Arc::downgrade(&inner), feed, heartbeat));
        let beat = tokio::spawn(feed::beat(Arc::downgrade(&inner), heartbeat));
        let mut tasks = vec![feed.abort_handle(), beat.abort_handle()];
        if inner.local.decision_log().is_some() {
            let ship = tokio::spawn(decisions::ship(Arc::downgrade(&inner)));
            tasks.push(ship.abort_handle());
        }
        let _ = inner.tasks.set(tasks);
        crate::telemetry::store_up(
            inner
                .keys
                .shards()
                .iter()
                .all(|s| !inner.health.is_lost(*s)),
        );
        Ok(inner)
    }

    /// This instance's side of the store, backing `local`; `default_replicas`
    /// when the options name none.
    fn new(
        local: Arc<ProfileStore<S>>,
        (commands, writers, reads): (Connection, Vec<Connection>, Option<Connection>),
        keys: Keys,
        options: &RedisOptions,
        default_replicas: usize,
    ) -> Arc<Self> {
        let writers = if writers.is_empty() {
            vec![commands.clone()]
        } else {
            writers
        };
        let shards = keys.shards().len();
        let inner = Arc::new(RedisStore {
            local: Arc::clone(&local),
            reads: reads.unwrap_or_else(|| commands.clone()),
            commands,
            writers,
            next_writer: AtomicUsize::new(0),
            keys,
            timeout: options.timeout,
            replicas: options.replicas.unwrap_or(default_replicas),
            audit_capacity: options.audit_capacity,
            decision_capacity: options.decision_capacity,
            shipping: tokio::sync::Mutex::new(()),
            health: Health::new(options.grace, shards),
            known: Mutex::default(),
            seen: AtomicU64::new(0),
            fleet: Fleet::new(options),
            tasks: OnceLock::new(),
        });
        local.back_with(&inner);
        inner
    }

    /// Runs `call` of a script on the next change connection, waiting for
    /// the replicas to confirm it: its answer, and how many did.
    ///
    /// Too few confirmations are no error: the script ran, so whatever it
    /// changed is made, recorded and published; the caller says so
    /// ([`made`](Self::made)).
    async fn run<T: redis::FromRedisValue>(
        &self,
        call: &Call<'_>,
    ) -> Result<(T, Replication), StoreError> {
        let (answer, confirmed) = self.run_waiting(call, self.replicas).await?;
        Ok((answer, Replication::new(confirmed, self.replicas)))
    }

    /// `value`, what `call` changed, as answered: with its replication,
    /// and, when its replicas did not confirm it, said so in the trail too,
    /// in a `replication-unconfirmed` record after the change's.
    async fn made<T>(&self, call: &Call<'_>, value: T, replication: Replication) -> Written<T> {
        if !replication.is_confirmed() {
            tracing::warn!(
                confirmed = replication.confirmed,
                required = replication.required,
                "a change is made, but too few replicas confirmed it: a failover now may undo it"
            );
            self.record_unconfirmed(call, replication).await;
        }
        Written::new(value, replication)
    }

    /// Records that the change `call` made was not confirmed: best effort,
    /// waiting for no replica (the change stands either way, and the answer
    /// says so).
    async fn record_unconfirmed(&self, call: &Call<'_>, replication: Replication) {
        let said = serde_json::json!({
            "confirmed": replication.confirmed,
            "required": replication.required,
        });
        let mut record = call.following(&UNCONFIRMED);
        record.arg(said.to_string());
        if let Err(error) = self.run_waiting::<i64>(&record, 0).await {
            tracing::warn!(%error, "the unconfirmed change's record could not be appended");
        }
    }

    /// [`run`](Self::run), waiting for `replicas`: the answer and how many
    /// confirmed.
    async fn run_waiting<T: redis::FromRedisValue>(
        &self,
        call: &Call<'_>,
        replicas: usize,
    ) -> Result<(T, usize), StoreError> {
        let wait_ms = self.wait_ms();
        within(self.timeout, self.writer().call(call, replicas, wait_ms))
            .await?
            .map_err(refused_or_unavailable)
    }

    /// The connection the next change is made on.
    fn writer(&self) -> &Connection {
        let next = self
            .next_writer
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        &self.writers[next % self.writers.len()]
    }

    /// How long a change waits for its replicas: a quarter of the command
    /// timeout, so a call sent again (to a node that had not loaded the
    /// script) still fits in it.
    fn wait_ms(&self) -> u64 {
        u64::try_from((self.timeout / 4).as_millis()).unwrap_or(u64::MAX)
    }

    /// A call of `script`, recording its change as `by` made it in
    /// `shard`'s audit trail: with the trail's keys and arguments first, as
    /// every script that changes something takes them (see
    /// `scripts::AUDIT`).
    fn audited<'s>(&self, script: &'s redis::Script, by: &Attribution, shard: Shard) -> Call<'s> {
        let mut call = Call::new(script);
        call.key(self.keys.audit(shard))
            .key(self.keys.audit_seq(shard))
            .arg(self.audit_capacity)
            .arg(by.actor())
            .arg(by.request_id())
            .arg(self.keys.publish())
            .arg(self.keys.numbering(shard));
        call
    }

    /// Runs one command on the command connection.
    async fn query<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> Result<T, StoreError> {
        let mut connection = self.commands.clone();
        within(self.timeout, command.query_async(&mut connection))
            .await?
            .map_err(|error| StoreError::Unavailable(error.to_string()))
    }

    /// [`query`](Self::query) through `reads`: for a command on one
    /// shard's key (or channel) that must not wait on another shard's
    /// failover.
    async fn read<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> Result<T, StoreError> {
        let mut connection = self.reads.clone();
        within(self.timeout, command.query_async(&mut connection))
            .await?
            .map_err(|error| StoreError::Unavailable(error.to_string()))
    }

    /// `principal`'s agent as Redis holds it now.
    pub(super) async fn fetch(&self, principal: &str) -> Result<Fetched, StoreError> {
        let mut pipe = redis::pipe();
        pipe.cmd("HMGET")
            .arg(self.keys.agent(principal))
            .arg("context")
            .arg("catalog")
            .cmd("GET")
            .arg(self.keys.version(principal));
        let mut connection = self.reads.clone();
        let ((context, catalog), version): ((Option<String>, Option<String>), Option<u64>) =
            within(self.timeout, pipe.query_async(&mut connection))
                .await?
                .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        Ok(Fetched {
            version: version.unwrap_or(0),
            context,
            catalog,
        })
    }

    /// Applies a fetched agent locally as `how` allows; an agent whose
    /// profile this build cannot read is removed here, and a catalog it
    /// cannot read is not served (fail closed), each reported.
    pub(super) fn apply_fetched(&self, principal: &str, fetched: Fetched, how: Apply) {
        let update = fetched
            .context
            .and_then(|json| decode(principal, &json).ok())
            .map(|context| {
                let catalog = fetched
                    .catalog
                    .and_then(|wire| self.decode_stored_catalog(principal, &wire).ok());
                AgentUpdate::Whole(context, catalog)
            });
        self.local.apply(principal, fetched.version, update, how);
    }

    /// A catalog as Redis holds it (JSON text), decoded for this instance.
    fn decode_stored_catalog(&self, principal: &str, wire: &str) -> Result<Catalog<S>, StoreError> {
        serde_json::from_str(wire)
            .map_err(|error| StoreError::Corrupt(format!("the catalog of `{principal}`: {error}")))
            .and_then(|wire| decode_catalog(self.local.catalog_decoder(), principal, &wire))
            .inspect_err(|error| {
                tracing::error!(principal, %error, "unreadable catalog in the store; not serving it");
            })
    }

    /// Ends, here, what was opened with the token of `digest`.
    pub(super) fn revoke_local(&self, digest: &str) {
        let token = self.lock_known().remove(digest);
        if let Some(token) = token {
            self.local.revoke(&token);
        }
    }

    fn lock_known(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Loads `principal`'s agent if it is stored and not yet here.
    async fn load_principal(&self, principal: &str) -> Result<(), StoreError> {
        if self.local.version(principal).is_some() {
            return Ok(());
        }
        let seen = self.seen.load(std::sync::atomic::Ordering::SeqCst);
        let fetched = self.fetch(principal).await?;
        self.apply_fetched(principal, fetched, Apply::Load);
        // The feed may have passed over a change while this principal was
        // not yet here: read it again.
        if self.seen.load(std::sync::atomic::Ordering::SeqCst) != seen {
            let fetched = self.fetch(principal).await?;
            self.apply_fetched(principal, fetched, Apply::IfServed);
        }
        Ok(())
    }

    async fn resolve_token(&self, token: &str) -> Result<(), StoreError> {
        let digest = digest(token);
        let seen = self.seen.load(std::sync::atomic::Ordering::SeqCst);
        let Some(principal) = self.token_principal(&digest).await? else {
            return Ok(());
        };
        if self.local.version(&principal).is_none() {
            let fetched = self.fetch(&principal).await?;
            self.apply_fetched(&principal, fetched, Apply::Load);
        }
        self.lock_known().insert(digest.clone(), token.to_owned());
        if self.local.grant(token, &principal).is_err() {
            self.lock_known().remove(&digest);
            return Ok(());
        }
        // The feed may have passed over a change while this principal or
        // token was not yet here: read both again.
        if self.seen.load(std::sync::atomic::Ordering::SeqCst) != seen {
            let named = self.token_principal(&digest).await?;
            if named.as_deref() != Some(principal.as_str()) {
                self.revoke_local(&digest);
            }
            let fetched = self.fetch(&principal).await?;
            self.apply_fetched(&principal, fetched, Apply::IfServed);
        }
        Ok(())
    }
}

/// `names` as a JSON array, as the scripts take lists.
pub(super) fn json_array(names: &[String]) -> Result<String, StoreError> {
    serde_json::to_string(names).map_err(|error| StoreError::Corrupt(error.to_string()))
}

/// A stored profile, decoded strictly.
fn decode<S: Vocabulary>(principal: &str, json: &str) -> Result<ProfileContext<S>, StoreError> {
    ProfileContext::from_json(json).map_err(|error| {
        tracing::error!(principal, %error, "unreadable profile in the store; not serving it");
        StoreError::Corrupt(format!("the profile of `{principal}`: {error}"))
    })
}

/// A store failure as a request is refused for it: logged in full here,
/// answered without Redis's own text, which can name the cluster's nodes
/// and slots (`MOVED 1234 10.0.0.7:6379`, `CLUSTERDOWN`).
fn out_of_reach(error: StoreError) -> Unreachable {
    tracing::warn!(%error, "a request is refused: the profile store could not be asked");
    Unreachable::new("the profile store could not be reached; try again shortly")
}

impl<S: Vocabulary> AgentStore<S> for RedisStore<S> {
    fn put_agent_if<'a>(
        &'a self,
        principal: &'a str,
        context: ProfileContext<S>,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<AgentChange<S>>> {
        Box::pin(async move {
            let inner = self;
            let keys = &inner.keys;
            let expected = expected
                .map(|version| version.to_string())
                .unwrap_or_default();
            let tools = json_array(&compiled_tools(&context))?;
            let shard = keys.principal(principal);
            let mut put = inner.audited(&PUT, by, shard);
            put.of(principal);
            put.key(keys.agent(principal))
                .key(keys.version(principal))
                .arg(context.to_json())
                .arg(keys.channel(shard))
                .arg(principal)
                .arg(expected)
                .arg(tools);
            let ((version, previous), replication): ((i64, String), _) = inner.run(&put).await?;
            let Ok(version) = u64::try_from(version) else {
                return Err(StoreError::Conflict {
                    principal: principal.to_owned(),
                    current: previous.parse().unwrap_or_default(),
                });
            };
            inner.local.apply(
                principal,
                version,
                Some(AgentUpdate::Context(context)),
                Apply::IfServed,
            );
            let agent = stored(principal, context, version);
            // A new agent, or one this build could not read, changed.
            let changed = previous.is_empty()
                || decode::<S>(principal, &previous).is_ok_and(|previous| {
                    S::registry().assemble(&previous).tool_names() != agent.profile.tool_names()
                });
            Ok(inner
                .made(&put, AgentChange { agent, changed }, replication)
                .await)
        })
    }

    fn agent<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredAgent<S>>> {
        Box::pin(async move {
            let fetched = self.fetch(principal).await?;
            let Some(json) = fetched.context else {
                return Ok(None);
            };
            let context = decode(principal, &json)?;
            Ok(Some(stored(principal, context, fetched.version)))
        })
    }

    fn delete_agent<'a>(
        &'a self,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>> {
        Box::pin(async move {
            let inner = self;
            let keys = &inner.keys;
            let shard = keys.principal(principal);
            let mut delete = inner.audited(&DELETE, by, shard);
            delete.of(principal);
            delete
                .key(keys.agent(principal))
                .key(keys.version(principal))
                .key(keys.tokens(principal))
                .arg(keys.channel(shard))
                .arg(principal)
                .arg(if keys.is_sharded() {
                    String::new()
                } else {
                    keys.token_prefix()
                });
            let ((version, created, digests), replication): ((u64, u64, Vec<String>), _) =
                inner.run(&delete).await?;
            if version > 0 {
                inner.local.apply(principal, version, None, Apply::IfServed);
                if keys.is_sharded() {
                    inner.forget_tokens(principal, created, &digests).await;
                }
            }
            Ok(if version > 0 {
                inner.made(&delete, true, replication).await
            } else {
                Written::unreplicated(false)
            })
        })
    }

    fn grant_token<'a>(
        &'a self,
        token: &'a str,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<()>> {
        Box::pin(async move {
            let inner = self;
            let keys = &inner.keys;
            if keys.is_sharded() {
                return inner.grant_sharded(token, principal, by).await;
            }
            let digest = digest(token);
            let shard = keys.principal(principal);
            let mut grant = inner.audited(&GRANT, by, shard);
            grant.of(principal);
            grant
                .key(keys.token(&digest))
                .key(keys.agent(principal))
                .key(keys.tokens(principal))
                .arg(principal)
                .arg(&digest)
                .arg(keys.channel(shard))
                .arg(keys.tokens_prefix())
                .arg(fingerprint(token));
            let (outcome, replication): (i64, _) = inner.run(&grant).await?;
            match outcome {
                -1 => Err(UnknownPrincipal::new(principal).into()),
                // Named another principal before: what it opened ends.
                1 => {
                    let moved = inner
                        .local
                        .principal(token)
                        .is_some_and(|named| named.name() != principal);
                    if moved {
                        inner.revoke_local(&digest);
                    }
                    Ok(inner.made(&grant, (), replication).await)
                }
                // Already granted to it: nothing changed.
                0 => Ok(Written::unreplicated(())),
                _ => Ok(inner.made(&grant, (), replication).await),
            }
        })
    }

    fn revoke_token<'a>(
        &'a self,
        token: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>> {
        Box::pin(async move {
            let inner = self;
            let keys = &inner.keys;
            if keys.is_sharded() {
                return inner.revoke_sharded(token, by).await;
            }
            let digest = digest(token);
            let shard = keys.token_shard(&digest);
            let mut revoke = inner.audited(&REVOKE, by, shard);
            revoke
                .key(keys.token(&digest))
                .arg(&digest)
                .arg(keys.channel(shard))
                .arg(keys.tokens_prefix())
                .arg(fingerprint(token));
            let (revoked, replication): (i64, _) = inner.run(&revoke).await?;
            inner.revoke_local(&digest);
            Ok(if revoked == 1 {
                inner.made(&revoke, true, replication).await
            } else {
                Written::unreplicated(false)
            })
        })
    }

    fn put_catalog_if<'a>(
        &'a self,
        principal: &'a str,
        wire: serde_json::Value,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<CatalogChange>> {
        Box::pin(async move {
            let inner = self;
            let keys = &inner.keys;
            let catalog = decode_catalog(inner.local.catalog_decoder(), principal, &wire)?;
            // Refused before it is stored: every instance serving the agent
            // would refuse it alike (a deployment presents names one way).
            presentable(&inner.local, &catalog)?;
            let summary = CatalogSummary::of(&catalog);
            let shard = keys.principal(principal);
            let mut put = inner.audited(&PUT_CATALOG, by, shard);
            put.of(principal);
            put.key(keys.agent(principal))
                .key(keys.version(principal))
                .arg(wire.to_string())
                .arg(keys.channel(shard))
                .arg(principal)
                .arg(expected.map(|v| v.to_string()).unwrap_or_default())
                .arg(summary.to_json().to_string())
                .arg(json_array(&summary.tools)?);
            let ((version, previous, context), replication): ((i64, String, String), _) =
                inner.run(&put).await?;
            let version = match version {
                -2 => return Err(UnknownPrincipal::new(principal).into()),
                -1 => {
                    return Err(StoreError::Conflict {
                        principal: principal.to_owned(),
                        current: previous.parse().unwrap_or_default(),
                    });
                }
                version => u64::try_from(version).unwrap_or_default(),
            };
            let context = decode::<S>(principal, &context)?;
            let before = (!previous.is_empty())
                .then(|| inner.decode_stored_catalog(principal, &previous).ok())
                .flatten();
            inner.local.apply(
                principal,
                version,
                Some(AgentUpdate::Whole(context, Some(catalog.clone()))),
                Apply::IfServed,
            );
            let (tools, changed) = listed_change(
                context,
                inner.local.killed(),
                (inner.local.presentation(), inner.local.tool_search()),
                before.as_ref(),
                Some(&catalog),
            );
            let change = CatalogChange {
                principal: principal.to_owned(),
                version,
                tools,
                changed,
            };
            Ok(inner.made(&put, change, replication).await)
        })
    }

    fn catalog<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredCatalog>> {
        Box::pin(async move {
            let fetched = self.fetch(principal).await?;
            if fetched.context.is_none() {
                return Ok(None);
            }
            let wire = fetched
                .catalog
                .map(|wire| serde_json::from_str(&wire))
                .transpose()
                .map_err(|error| {
                    StoreError::Corrupt(format!("the catalog of `{principal}`: {error}"))
                })?;
            Ok(Some(StoredCatalog {
                principal: principal.to_owned(),
                wire,
                version: fetched.version,
            }))
        })
    }

    fn put_kill_switch_if<'a>(
        &'a self,
        names: &'a [String],
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<StoredKillSwitch>> {
        Box::pin(self.put_kill_switch(names, expected, by))
    }

    fn kill_switch(&self) -> StoreFuture<'_, Option<StoredKillSwitch>> {
        Box::pin(self.fetch_kill_switch())
    }

    fn audit<'a>(&'a self, query: &'a AuditQuery) -> StoreFuture<'a, Vec<AuditRecord>> {
        Box::pin(self.read_audit(query))
    }

    fn decisions<'a>(&'a self, query: &'a AuditQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        Box::pin(self.read_decisions(query))
    }

    fn decisions_written(&self) -> StoreFuture<'_, ()> {
        Box::pin(self.ship_decisions())
    }

    /// The principal's shard must have been heard within the grace period:
    /// it holds the principal's agent and a copy of the kill switch, so one
    /// shard's outage refuses only its own principals. A profile no stored
    /// agent holds depends on the kill switch alone, which every shard
    /// holds: it is served while any shard is heard.
    fn serving(&self, principal: Option<&str>) -> Result<(), Unreachable> {
        match principal {
            Some(principal) => self.health.serving(self.keys.principal(principal)),
            None => self.health.serving_any(),
        }
        .map_err(Unreachable::new)
    }

    fn resolve<'a>(&'a self, token: &'a str) -> ServingFuture<'a> {
        Box::pin(async move { self.resolve_token(token).await.map_err(out_of_reach) })
    }

    fn load<'a>(&'a self, principal: &'a str) -> ServingFuture<'a> {
        Box::pin(async move { self.load_principal(principal).await.map_err(out_of_reach) })
    }

    fn profiles(&self) -> &Arc<ProfileStore<S>> {
        &self.local
    }

    fn propagated<'a>(&'a self, changed: Changed<'a>) -> StoreFuture<'a, Propagation> {
        let keys = &self.keys;
        let shard = match changed {
            Changed::Agent(principal) => keys.principal(principal),
            Changed::Token(token) => keys.token_shard(&digest(token)),
            Changed::KillSwitch => keys.kill_shard(),
        };
        Box::pin(self.propagated(shard))
    }
}
