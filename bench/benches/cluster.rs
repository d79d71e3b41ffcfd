//! Timed harness (not criterion: rounds are seconds of real network, Redis
//! and fsync time): the Redis store on one `redis-server` against a Redis
//! Cluster of three primaries, each with one replica
//! (`mcp_profiles_tests::redis_cluster`), all on loopback, paired in one
//! process run. Three backends, each under a key prefix of its own so no
//! backend's instances hear another's changes:
//!
//! - **one Redis**: `RedisOptions` default (no `WAIT`: it has no replica);
//! - **cluster**: the cluster's default, each change acknowledged once one
//!   replica confirmed it (`WAIT 1`);
//! - **cluster, no WAIT**: `with_replica_acks(0)`, to show what `WAIT`
//!   costs.
//!
//! Each backend has three `RedisStore` instances (three connects, as three
//! gateways make), each serving Kandev over streamable HTTP to
//! `CLUSTER_BENCH_SESSIONS` (default 100) 2025-era rmcp sessions of one
//! principal, `agent-000000`, whose clients run in this process. For each
//! count of `CLUSTER_BENCH_PRINCIPALS` (default `1000,10000,100000`; e.g.
//! `1000,10000` for a quick run), every backend is first filled up to that
//! many agents through instance 0 (`put_agent`,
//! `CLUSTER_BENCH_FILL_CONCURRENCY` at once, default 64; timed), then:
//!
//! - **changes per second**: `CLUSTER_BENCH_WRITERS` (default 16) tasks
//!   `put_agent` through instance 0 on random stored principals (never the
//!   watched one), `CLUSTER_BENCH_CHANGES` (default 2,000) per round, each
//!   principal flipping between two Kandev contexts of different tool sets,
//!   so every put is a real change (checked); `CLUSTER_BENCH_ROUNDS`
//!   (default 7) rounds per backend.
//! - **change → last notification**: `put_agent` of the watched principal
//!   through instance 0, flipping its two contexts; the time to its answer,
//!   and from the call and from the answer to the last `list_changed`
//!   heard by the 3 × N sessions (negative when all heard it before the
//!   answer came back, as they do when the answer waits for a replica);
//!   `CLUSTER_BENCH_LATENCY_ROUNDS` (default 30) rounds per backend.
//!
//! Every node persists as the test harnesses start it (append-only file,
//! `appendfsync always`); `CLUSTER_BENCH_APPENDFSYNC=everysec` sets every
//! node's policy otherwise (`CONFIG SET`), to see what fsync costs.
//!
//! Rounds interleave the backends (A B C, C B A, A B C, ...) after one
//! unmeasured round of each; each round gives one sample per backend and
//! one ratio to one Redis. The harness fails if a put was not a change or
//! a session did not hear each of its principal's changes exactly once.
//! Redis commands time out after 10 s (`with_timeout`; 2 s by default) so
//! that a loaded machine slows a round rather than failing it.
//!
//! Writes `target/bench-results/cluster.json`: `{"sessions_per_instance",
//! "writers", "changes_per_round", "rounds", "latency_rounds",
//! "fill_concurrency", "appendfsync", "elapsed_s", "runs": [{"principals", "backend",
//! "filled", "fill_s", "changes_per_s": Spread, "changes_per_s_ratio":
//! Spread, "put_ms": Distribution, "answer_to_last_ms": Distribution,
//! "call_to_last_ms": Distribution, "call_to_last_ratio": Spread,
//! "resent": {"fill", "changes", "watched"}}]}`, where a ratio is the
//! backend's ÷ one Redis's per round pair (1 for one Redis itself),
//! `Spread` is `{"median", "min", "max"}`, `Distribution` the same with
//! `"p90"`, and `resent` counts the puts sent again after `STALESEQ` (see
//! `put`) while filling, in the changes/s rounds and in the latency ones.
//!
//! `cargo bench -p mcp-profiles-bench --bench cluster`

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use kandev_mcp::Kandev;
use mcp_profiles::ProfileContext;
use mcp_profiles_bench::gateways::{CountingClient, Heard, serve_kandev_agents};
use mcp_profiles_bench::kandev_contexts;
use mcp_profiles_bench::results::{Spread, env_list, env_usize, quantile, write};
use mcp_profiles_bench::sessions::{connect_clients, join_spawned};
use mcp_profiles_serve::http::HttpServer;
use mcp_profiles_serve::{
    AgentChange, AgentStore, Attribution, RedisOptions, RedisStore, StoreError,
};
use mcp_profiles_tests::client::http_transport;
use mcp_profiles_tests::redis::RedisServer;
use mcp_profiles_tests::redis_cluster::RedisCluster;
use rmcp::service::{RoleClient, RunningService};
use serde::Serialize;
use serde_json::json;

/// The token of the watched principal's sessions.
const WATCHED_TOKEN: &str = "watched-token";

/// The two contexts every principal flips between (42 and 38 tools at
/// this commit).
static CONTEXTS: LazyLock<[ProfileContext<Kandev>; 2]> = LazyLock::new(kandev_contexts);

static BY: LazyLock<Attribution> =
    LazyLock::new(|| Attribution::new("bench", "cluster-bench").expect("a valid attribution"));

/// The stored principal number `index`; number 0 is the watched one.
fn principal(index: usize) -> String {
    format!("agent-{index:06}")
}

/// The sizes and round counts, from the environment.
struct Config {
    principals: Vec<usize>,
    sessions: usize,
    writers: usize,
    changes: usize,
    rounds: usize,
    latency_rounds: usize,
    fill_concurrency: usize,
    /// `appendfsync` for every node, when not the harnesses' `always`.
    appendfsync: Option<String>,
}

impl Config {
    fn from_env() -> Self {
        let mut principals: Vec<usize> = env_list("CLUSTER_BENCH_PRINCIPALS", "1000,10000,100000")
            .iter()
            .map(|count| {
                count
                    .replace('_', "")
                    .parse()
                    .unwrap_or_else(|_| panic!("CLUSTER_BENCH_PRINCIPALS: `{count}`"))
            })
            .collect();
        // Each count adds to the last: smallest first.
        principals.sort_unstable();
        principals.dedup();
        let config = Config {
            principals,
            sessions: env_usize("CLUSTER_BENCH_SESSIONS", 100),
            writers: env_usize("CLUSTER_BENCH_WRITERS", 16).max(1),
            changes: env_usize("CLUSTER_BENCH_CHANGES", 2000),
            rounds: env_usize("CLUSTER_BENCH_ROUNDS", 7).max(1),
            latency_rounds: env_usize("CLUSTER_BENCH_LATENCY_ROUNDS", 30).max(1),
            fill_concurrency: env_usize("CLUSTER_BENCH_FILL_CONCURRENCY", 64).max(1),
            appendfsync: std::env::var("CLUSTER_BENCH_APPENDFSYNC").ok(),
        };
        let fewest = config.principals.iter().min().copied().unwrap_or(0);
        assert!(
            fewest > config.writers,
            "every writer needs principals of its own: more principals than writers"
        );
        config
    }
}

/// One store deployment: three instances on one Redis or on the cluster,
/// their MCP endpoints, and the watched principal's sessions on them.
struct Backend {
    label: &'static str,
    key: &'static str,
    /// Instance 0 makes every change; all three serve sessions.
    stores: Vec<Arc<RedisStore<Kandev>>>,
    _endpoints: Vec<HttpServer>,
    heard: Arc<Heard>,
    sessions: Vec<RunningService<RoleClient, CountingClient>>,
    /// Whether each principal holds the second context (else the first).
    holds_second: Arc<Vec<AtomicBool>>,
    /// Principals stored so far: numbers `0..stored`.
    stored: usize,
    /// Changes made to the watched principal so far.
    watched_changes: usize,
    /// Puts refused with `STALESEQ` and sent again (see [`put`]).
    refused: Arc<AtomicUsize>,
}

impl Backend {
    async fn connect(
        label: &'static str,
        key: &'static str,
        url: &str,
        options: RedisOptions,
        config: &Config,
    ) -> Backend {
        let options = options
            .with_prefix(&format!("bench-{key}"))
            .with_grace(Duration::from_secs(30))
            .with_timeout(Duration::from_secs(10));
        let mut stores = Vec::new();
        for _ in 0..3 {
            let store = RedisStore::<Kandev>::connect(url, options.clone())
                .await
                .unwrap_or_else(|error| panic!("{label}: {error}"));
            stores.push(store);
        }
        stores[0]
            .put_agent(&principal(0), CONTEXTS[0], &BY)
            .await
            .expect("the watched agent is stored");
        stores[0]
            .grant_token(WATCHED_TOKEN, &principal(0), &BY)
            .await
            .expect("its token is granted");
        let mut endpoints = Vec::new();
        for store in &stores {
            endpoints.push(serve_kandev_agents(store.profiles()).await);
        }
        let heard = Arc::new(Heard::default());
        let mut sessions = Vec::new();
        for endpoint in &endpoints {
            let url = format!("http://{}/mcp", endpoint.local_addr());
            sessions.extend(
                connect_clients(
                    config.sessions,
                    50,
                    |_| http_transport(&url, Some(WATCHED_TOKEN)),
                    |_| CountingClient(Arc::clone(&heard)),
                )
                .await,
            );
        }
        let most = config.principals.iter().max().copied().unwrap_or(1);
        Backend {
            label,
            key,
            stores,
            _endpoints: endpoints,
            heard,
            sessions,
            holds_second: Arc::new((0..most.max(1)).map(|_| AtomicBool::new(false)).collect()),
            stored: 1,
            watched_changes: 0,
            refused: Arc::default(),
        }
    }

    /// Puts sent again after `STALESEQ` so far.
    fn resent(&self) -> usize {
        self.refused.load(Ordering::Relaxed)
    }

    /// Stores agents `stored..upto` (the first context), `concurrency` puts
    /// at once through instance 0; how long that took.
    async fn fill(&mut self, upto: usize, concurrency: usize) -> Duration {
        let next = Arc::new(AtomicUsize::new(self.stored));
        let started = Instant::now();
        let workers = (0..concurrency).map(|_| {
            let store = Arc::clone(&self.stores[0]);
            let next = Arc::clone(&next);
            let refused = Arc::clone(&self.refused);
            async move {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= upto {
                        return;
                    }
                    put(&store, &principal(index), CONTEXTS[0], &refused).await;
                }
            }
        });
        join_spawned(workers).await;
        self.stored = self.stored.max(upto);
        started.elapsed()
    }

    /// `writers` tasks make `changes` changes between them through instance
    /// 0, each on random principals of its own (so that no two race on one
    /// principal); changes per second.
    async fn change_round(&self, writers: usize, changes: usize, seed: u64) -> f64 {
        let per_writer = changes.div_ceil(writers);
        let stored = self.stored;
        let started = Instant::now();
        let tasks = (0..writers).map(|writer| {
            let store = Arc::clone(&self.stores[0]);
            let holds_second = Arc::clone(&self.holds_second);
            let refused = Arc::clone(&self.refused);
            let mut random = XorShift::new(seed, writer);
            async move {
                for _ in 0..per_writer {
                    let index = random.owned_by(writer, writers, stored);
                    let second = !holds_second[index].load(Ordering::Relaxed);
                    let context = CONTEXTS[usize::from(second)];
                    let change = put(&store, &principal(index), context, &refused).await;
                    assert!(change.changed, "{} did not change", principal(index));
                    holds_second[index].store(second, Ordering::Relaxed);
                }
            }
        });
        join_spawned(tasks).await;
        (per_writer * writers) as f64 / started.elapsed().as_secs_f64()
    }

    /// One change of the watched principal through instance 0: the time
    /// until its answer, and from the call to the last session hearing it.
    async fn notify_round(&mut self) -> (Duration, Duration) {
        self.watched_changes += 1;
        let context = CONTEXTS[self.watched_changes % 2];
        let target = self.sessions.len() * self.watched_changes;
        let asked = Instant::now();
        let change = put(&self.stores[0], &principal(0), context, &self.refused).await;
        let answered = Instant::now();
        assert!(change.changed, "the watched agent did not change");
        tokio::time::timeout(Duration::from_secs(60), self.heard.wait_for(target))
            .await
            .unwrap_or_else(|_| panic!("{}: every session hears the change", self.label));
        let last = self.heard.last_heard().expect("a notification was heard");
        (answered - asked, last - asked)
    }
}

/// `put_agent` through `store`, sent again each time a cluster refuses it
/// with `STALESEQ` (its audit number was overtaken by a concurrent change
/// of the same shard: the script wrote nothing). The store means to take a
/// new number and retry by itself, but does not recognise the error as
/// redis-rs 1.x words it (`"STALESEQ": N`), so the bench does; the change
/// and how many refusals it took.
async fn put(
    store: &RedisStore<Kandev>,
    principal: &str,
    context: ProfileContext<Kandev>,
    refused: &AtomicUsize,
) -> AgentChange<Kandev> {
    for _ in 0..1000 {
        match store.put_agent(principal, context, &BY).await {
            Ok(change) => return change.into_value(),
            Err(StoreError::Refused(error)) if error.contains("STALESEQ") => {
                refused.fetch_add(1, Ordering::Relaxed);
            }
            Err(error) => panic!("put_agent({principal}): {error}"),
        }
    }
    panic!("put_agent({principal}): refused with STALESEQ 1,000 times");
}

/// xorshift64*: random principals without a dependency.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64, stream: usize) -> Self {
        let mixed = (seed ^ (stream as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1;
        XorShift(mixed)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A random principal of `writer`'s own among `1..stored`: the numbers
    /// equal to `writer` modulo `writers` (0 is the watched one).
    fn owned_by(&mut self, writer: usize, writers: usize, stored: usize) -> usize {
        let first = if writer == 0 { writers } else { writer };
        assert!(first < stored, "writer {writer} owns no principal");
        let owned = (stored - 1 - first) / writers + 1;
        first + writers * (self.next() % owned as u64) as usize
    }
}

/// One backend's samples at one principal count.
#[derive(Default)]
struct Samples {
    /// Agents stored to reach this principal count, and how long it took.
    filled: usize,
    fill: Duration,
    /// Puts sent again after `STALESEQ`: filling, changes/s rounds, and
    /// the watched principal's changes.
    resent: [usize; 3],
    changes_per_s: Vec<f64>,
    put_ms: Vec<f64>,
    /// From the put's answer to the last session hearing it: negative when
    /// every session heard it before the answer came back.
    answer_to_last_ms: Vec<f64>,
    call_to_last_ms: Vec<f64>,
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Median, p90, min and max of a set of measurements.
#[derive(Serialize)]
struct Distribution {
    median: f64,
    p90: f64,
    min: f64,
    max: f64,
}

impl Distribution {
    fn of(values: &[f64]) -> Self {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let spread = Spread::of(&sorted);
        Distribution {
            median: spread.median,
            p90: quantile(&sorted, 0.9),
            min: spread.min,
            max: spread.max,
        }
    }
}

/// Each round's `values[i] / base[i]`.
fn ratios(values: &[f64], base: &[f64]) -> Spread {
    let each: Vec<f64> = values.iter().zip(base).map(|(v, b)| v / b).collect();
    Spread::of(&each)
}

/// The order of the backends in round `round`: A B C, C B A, ...
fn order(round: usize, backends: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..backends).collect();
    if round % 2 == 1 {
        order.reverse();
    }
    order
}

fn main() {
    let config = Config::from_env();
    let Some(single) = RedisServer::start() else {
        return;
    };
    let started = Instant::now();
    let Some(cluster) = RedisCluster::start_persisting() else {
        return;
    };
    println!(
        "one redis-server and a six-node cluster (3 primaries + 3 replicas) started in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if let Some(policy) = &config.appendfsync {
        // Every node: one Redis, then the cluster's six.
        let mut answers = vec![single.command(&["CONFIG", "SET", "appendfsync", policy])];
        answers.extend(
            (0..6).map(|node| cluster.command(node, &["CONFIG", "SET", "appendfsync", policy])),
        );
        assert!(
            answers
                .iter()
                .all(|answer| answer.trim_start_matches('+') == "OK"),
            "CONFIG SET appendfsync {policy}: {answers:?}"
        );
        println!("appendfsync {policy} on every node");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run(&config, &single, &cluster));
    // The servers are killed (and their directories removed) when dropped.
    drop(runtime);
    drop(cluster);
    drop(single);
}

async fn run(config: &Config, single: &RedisServer, cluster: &RedisCluster) {
    let run_started = Instant::now();
    let mut backends = vec![
        Backend::connect(
            "one Redis",
            "single",
            &single.url(),
            RedisOptions::default(),
            config,
        )
        .await,
        Backend::connect(
            "cluster (WAIT 1)",
            "cluster",
            &cluster.store_url(),
            RedisOptions::default(),
            config,
        )
        .await,
        Backend::connect(
            "cluster, no WAIT",
            "cluster-no-wait",
            &cluster.store_url(),
            RedisOptions::default().with_replica_acks(0),
            config,
        )
        .await,
    ];
    let per_backend = backends[0].sessions.len();
    println!(
        "3 backends × 3 instances × {} sessions ({} in all) connected in {:.1} s",
        config.sessions,
        per_backend * backends.len(),
        run_started.elapsed().as_secs_f64()
    );
    // Let every session's standalone stream open before measuring.
    tokio::time::sleep(Duration::from_secs(2)).await;

    let mut runs = Vec::new();
    let mut seed = 0x5EED_u64;
    for &principals in &config.principals {
        let mut samples: Vec<Samples> = backends.iter().map(|_| Samples::default()).collect();
        for (backend, samples) in backends.iter_mut().zip(&mut samples) {
            let before = backend.stored;
            let resent = backend.resent();
            samples.fill = backend.fill(principals, config.fill_concurrency).await;
            samples.filled = backend.stored - before;
            samples.resent[0] = backend.resent() - resent;
            println!(
                "{}: {} agents stored in {:.1} s ({:.0}/s, {} at once), {} in all",
                backend.label,
                samples.filled,
                samples.fill.as_secs_f64(),
                samples.filled as f64 / samples.fill.as_secs_f64(),
                config.fill_concurrency,
                backend.stored
            );
        }
        // One unmeasured round of each.
        for backend in &mut backends {
            seed += 1;
            backend
                .change_round(config.writers, config.changes / 4, seed)
                .await;
            backend.notify_round().await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;

        for round in 0..config.rounds {
            seed += 1;
            for index in order(round, backends.len()) {
                let resent = backends[index].resent();
                let rate = backends[index]
                    .change_round(config.writers, config.changes, seed)
                    .await;
                samples[index].changes_per_s.push(rate);
                samples[index].resent[1] += backends[index].resent() - resent;
                // Let the instances drain the feed before the next round.
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
        for round in 0..config.latency_rounds {
            for index in order(round, backends.len()) {
                let resent = backends[index].resent();
                let (put, last) = backends[index].notify_round().await;
                samples[index].resent[2] += backends[index].resent() - resent;
                samples[index].put_ms.push(ms(put));
                samples[index].answer_to_last_ms.push(ms(last) - ms(put));
                samples[index].call_to_last_ms.push(ms(last));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }

        report(principals, per_backend, &backends, &samples, &mut runs);
    }

    // Every session heard each of its principal's changes exactly once.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for backend in &backends {
        assert_eq!(
            backend.heard.count(),
            backend.sessions.len() * backend.watched_changes,
            "{}: a session heard a change twice, or a change it should not have",
            backend.label
        );
    }
    let elapsed = run_started.elapsed();
    println!(
        "every session heard every change of its principal exactly once; measured in {:.0} s",
        elapsed.as_secs_f64()
    );
    let results = json!({
        "sessions_per_instance": config.sessions,
        "writers": config.writers,
        "changes_per_round": config.changes,
        "rounds": config.rounds,
        "latency_rounds": config.latency_rounds,
        "fill_concurrency": config.fill_concurrency,
        "appendfsync": config.appendfsync.as_deref().unwrap_or("always"),
        "elapsed_s": elapsed.as_secs_f64(),
        "runs": runs,
    });
    match write("cluster", &results) {
        Ok(path) => println!("results: {}", path.display()),
        Err(error) => eprintln!("cannot write the results: {error}"),
    }
    for backend in backends {
        drop(backend.sessions);
    }
}

/// Prints one principal count's table and adds its runs to `runs`.
fn report(
    principals: usize,
    sessions: usize,
    backends: &[Backend],
    samples: &[Samples],
    runs: &mut Vec<serde_json::Value>,
) {
    println!(
        "\n{principals} principals stored. changes/s: median (min..max) of {} rounds; \
         the watched principal's put (through instance 0) to its answer, from its answer \
         and from the call to the last of {sessions} list_changed: median (p90) ms of {} \
         rounds; ratios: ÷ one Redis per round pair",
        samples[0].changes_per_s.len(),
        samples[0].call_to_last_ms.len(),
    );
    println!(
        "| backend | agents stored | changes/s | ÷ one Redis | put answer | answer → last | call → last (min..max) | ÷ one Redis | STALESEQ resent |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let base = &samples[0];
    for (backend, samples) in backends.iter().zip(samples) {
        let rate = Spread::of(&samples.changes_per_s);
        let rate_ratio = ratios(&samples.changes_per_s, &base.changes_per_s);
        let put = Distribution::of(&samples.put_ms);
        let answer = Distribution::of(&samples.answer_to_last_ms);
        let call = Distribution::of(&samples.call_to_last_ms);
        let call_ratio = ratios(&samples.call_to_last_ms, &base.call_to_last_ms);
        println!(
            "| {} | +{} in {:.1} s | {:.0} ({:.0}..{:.0}) | {:.2}× ({:.2}..{:.2}) | {:.1} ({:.1}) | {:.1} ({:.1}) | {:.1} ({:.1}; {:.1}..{:.1}) | {:.2}× ({:.2}..{:.2}) | {} / {} / {} |",
            backend.label,
            samples.filled,
            samples.fill.as_secs_f64(),
            rate.median,
            rate.min,
            rate.max,
            rate_ratio.median,
            rate_ratio.min,
            rate_ratio.max,
            put.median,
            put.p90,
            answer.median,
            answer.p90,
            call.median,
            call.p90,
            call.min,
            call.max,
            call_ratio.median,
            call_ratio.min,
            call_ratio.max,
            samples.resent[0],
            samples.resent[1],
            samples.resent[2],
        );
        runs.push(json!({
            "principals": principals,
            "backend": backend.key,
            "filled": samples.filled,
            "fill_s": samples.fill.as_secs_f64(),
            "changes_per_s": rate,
            "changes_per_s_ratio": rate_ratio,
            "put_ms": put,
            "answer_to_last_ms": answer,
            "call_to_last_ms": call,
            "call_to_last_ratio": call_ratio,
            "resent": {
                "fill": samples.resent[0],
                "changes": samples.resent[1],
                "watched": samples.resent[2],
            },
        }));
    }
    println!();
}
