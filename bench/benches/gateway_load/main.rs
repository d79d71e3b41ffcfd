//! Timed harness (not criterion: one run is a minute of real network and
//! process time): the gateway under a steady load with profile churn.
//!
//! Three gateway instances ([`Gateway`]: a `RedisStore`, Kandev over
//! streamable HTTP and the gateway's control API) on one real
//! `redis-server`, all in this process with their clients. `P` principals,
//! each with a bearer token of its own, and `N` 2025-era sessions per
//! instance (the lean client of `load_client`, one keep-alive connection
//! each); session `i` is on instance `i % 3` as principal `(i / 3) % P`, so
//! every principal has sessions on all three instances.
//!
//! - **load**: every session calls `list_related_tasks_kandev` on a fixed
//!   clock (`RATE` calls/s over all sessions, evenly phased) for `SECONDS`:
//!   a call whose tick passed while its session waited for the previous
//!   answer is sent at once and timed from its tick (no coordinated
//!   omission; the timer itself starts a call up to 1 ms after its tick),
//!   and counted *late* if it started over 2 ms after it,
//!   while a churn driver changes `CHANGES` profiles a second through the
//!   control APIs (`PUT /api/v1/agents/{principal}`; principals in turn,
//!   instances in turn), each principal alternating between a profile with
//!   the tool (`kanban-task` + `user-question`) and one without
//!   (`configuration`). Call latency (p50, p99; from the send and from the
//!   tick) and calls per second.
//! - **consistency**: per principal, its changes' request-sent and
//!   acknowledged (control API answered 200) times. A call *sent after*
//!   change k was acknowledged and *answered before* change k+1 was sent
//!   must be answered under change k's profile: served (a JSON-RPC result)
//!   if the tool is in it, JSON-RPC error -32602 if not. Such a call is
//!   *right* or *wrong*; wrong answers are split by whether the call went
//!   to the instance that made change k (which applies it before
//!   answering) or to another one (which learns it from Redis pub/sub and
//!   confirms it before the answer). A
//!   call overlapping a change is *in flight* (either answer is right); a
//!   call with no JSON-RPC answer within 10 s is *lost*; a change answered
//!   202 (not confirmed everywhere) is never in force for the judge. Judged
//!   calls sent within 1 ms and 10 ms of their change's acknowledgement are
//!   counted: only those could catch an instance behind.
//! - **probes**: after every acknowledgement, a probe session of the
//!   principal on each other instance calls the tool at once (its answer
//!   depends on the change), judged by the same rules.
//! - **faults**: at `STALL_AT` s instance 2's link to Redis stalls for
//!   `STALL_MS` (a proxy holds every byte, `bench/src/stall.rs`), and at
//!   `RESTART_AT` s Redis is killed and started again (its append-only file
//!   brings the data back). For each, the calls scheduled from its start
//!   until 2 s after its end (right, wrong, in flight, lost, other errors,
//!   late, latency from the tick) and the changes sent then
//!   (acknowledged, 202, failed).
//! - **decisions** (`DECISIONS`): every instance keeps a decision log
//!   (`mcp_profiles_serve::audit::decisions`), and after the load every
//!   decision is verified against the audit trail the instances share
//!   (`exposure::verify`): judged, unjudged, mismatches. Run with `0` for
//!   the same load without the log, to see what it costs.
//! - **lag**: for every acknowledged change, whether each instance held its
//!   version when the control API answered (the making one, and the others:
//!   the answer waits for their confirmations, `AgentStore::propagated`),
//!   and the time until each other instance's `ProfileStore` holds it
//!   (polled every 200 µs by a thread of its own); a change some instance
//!   never applies is counted.
//! - **memory**: after the load, its sessions are closed and `MEMORY`
//!   2025-era sessions are opened on instance 0 (initialised, one call
//!   each, spread over the same principals, over a shared connection
//!   pool); live heap bytes (the counting allocator of `counting`, the whole
//!   process) before and after, less the session ids the bench keeps,
//!   per session. The process's RSS growth per session is printed beside
//!   it (it also holds allocator slack).
//!
//! Variables (defaults are issue 28's sizes):
//!
//! | variable | default | meaning |
//! |---|---:|---|
//! | `GWLOAD_BENCH_SESSIONS` | 2000 | sessions per instance (`N`) |
//! | `GWLOAD_BENCH_PRINCIPALS` | 300 | principals (`P`) |
//! | `GWLOAD_BENCH_RATE` | 3000 | calls per second over all sessions |
//! | `GWLOAD_BENCH_CHANGES` | 100 | profile changes per second |
//! | `GWLOAD_BENCH_SECONDS` | 30 | length of the load |
//! | `GWLOAD_BENCH_MEMORY` | 10000 | sessions of the memory step (0: skip it) |
//! | `GWLOAD_BENCH_STALL_AT` / `_STALL_MS` | 10 / 2000 | when instance 2's Redis link stalls, how long (0 ms: never) |
//! | `GWLOAD_BENCH_RESTART_AT` | 20 | when Redis is killed and started again (0: never) |
//! | `GWLOAD_BENCH_DECISIONS` | 1 | decision logs on every instance, verified after the load (0: none) |
//!
//! Writes `target/bench-results/gateway_load.json`:
//!
//! ```text
//! { "config": { "sessions_per_instance", "principals", "rate", "changes_per_s", "seconds",
//!               "stall_at_s", "stall_ms", "restart_at_s", "decision_log" },
//!   "calls": { "sent", "answered", "per_s", "p50_ms", "p99_ms", "max_ms", "late",
//!              "from_schedule_ms": { "p50", "p99", "max", "n" },
//!              "process_cores", "load_average" },
//!   "consistency": { "right", "right_same_instance", "wrong_same_instance", "wrong_other_instance",
//!                    "in_flight", "lost", "other_errors",
//!                    "wrong_other_after_ack_ms": [..],
//!                    "judged_within_1ms_of_ack", "judged_within_10ms_of_ack" },
//!   "probes": { "sent", "right", "wrong_same_instance", "wrong_other_instance", "in_flight",
//!               "lost", "other_errors", "within_1ms_of_ack", "within_10ms_of_ack" },
//!   "faults": [ { "what", "at_s", "lasted_s", "counted_after_s", "calls", "right",
//!                 "wrong_same_instance", "wrong_other_instance", "in_flight", "lost",
//!                 "other_errors", "late", "from_schedule_ms", "changes": { "acked", "pending", "failed" } } ],
//!   "decisions": null | { "trail_whole", "judged", "mismatches", "instances": [..] },
//!   "changes": { "made", "per_s", "failed", "pending", "skipped", "ack_p50_ms", "ack_p99_ms",
//!                "not_applied_at_ack", "behind_at_ack", "never_applied",
//!                "lag_ms": { "p50", "p99", "max", "n" } },
//!   "memory": { "sessions", "bytes_per_session", "rss_bytes_per_session" } }
//! ```
//!
//! `cargo bench -p mcp-profiles-bench --bench gateway_load` (needs
//! redis-server; skipped, saying so, without one)

mod judge;
mod process;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kandev_mcp::Kandev;
use mcp_profiles::{ProfileContext, Vocabulary};
use mcp_profiles_bench::counting::{Counting, live};
use mcp_profiles_bench::gateways::Gateway;
use mcp_profiles_bench::load_client::{Answer, Calls, Client, Era};
use mcp_profiles_bench::results::{env_usize, write};
use mcp_profiles_bench::sessions::join_spawned;
use mcp_profiles_bench::stall::StallProxy;
use mcp_profiles_serve::AgentStore;
use mcp_profiles_serve::ProfileStore;
use mcp_profiles_serve::audit::decisions::DecisionLog;
use mcp_profiles_serve::exposure::past::Trail;
use mcp_profiles_serve::exposure::verify::{read_decisions, verify};
use mcp_profiles_tests::redis::RedisServer;
use serde_json::json;

use judge::{Call, Change, Kind, judge};
use process::{cpu_time, load_average, ms, percentiles, rss};

#[global_allocator]
static GLOBAL: Counting = Counting;

const TOKEN: &str = "bench-control-token";
/// The two profiles every principal alternates between: the tool is in the
/// first and not in the second.
const PROFILES: [&str; 2] = [
    r#"{"surface":"kanban-task","capabilities":["user-question"]}"#,
    r#"{"surface":"configuration"}"#,
];
/// A read of the demo board that takes no arguments: related tasks of the
/// session's own task (kanban-task and office-task only).
const TOOL: &str = "list_related_tasks_kandev";
/// A call not answered within this is lost.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// At most this many control API requests per instance at once (its
/// listener takes 32 connections and answers 503 past them).
const CONTROL_CONNECTIONS: usize = 24;
/// Decisions each instance's log keeps (a run makes about 32,000 each).
const DECISIONS_KEPT: usize = 200_000;
/// A change an instance has not applied this long after the load is never
/// applied.
const APPLY_DEADLINE: Duration = Duration::from_secs(5);

struct Config {
    sessions: usize,
    principals: usize,
    rate: usize,
    changes: usize,
    seconds: usize,
    memory: usize,
    /// Seconds into the load when instance 2's link to Redis stalls, and
    /// for how long (0 ms: no stall).
    stall_at: usize,
    stall_ms: usize,
    /// Seconds into the load when Redis is killed and started again (0: no
    /// restart).
    restart_at: usize,
    /// Whether every instance keeps a decision log, verified against the
    /// audit trail after the load.
    decisions: bool,
}

impl Config {
    fn from_env() -> Config {
        Config {
            sessions: env_usize("GWLOAD_BENCH_SESSIONS", 2000).max(1),
            principals: env_usize("GWLOAD_BENCH_PRINCIPALS", 300).max(1),
            rate: env_usize("GWLOAD_BENCH_RATE", 3000).max(1),
            changes: env_usize("GWLOAD_BENCH_CHANGES", 100),
            seconds: env_usize("GWLOAD_BENCH_SECONDS", 30).max(1),
            memory: env_usize("GWLOAD_BENCH_MEMORY", 10_000),
            stall_at: env_usize("GWLOAD_BENCH_STALL_AT", 10),
            stall_ms: env_usize("GWLOAD_BENCH_STALL_MS", 2000),
            restart_at: env_usize("GWLOAD_BENCH_RESTART_AT", 20),
            decisions: env_usize("GWLOAD_BENCH_DECISIONS", 1) != 0,
        }
    }
}

fn principal(index: usize) -> String {
    format!("agent-{index}")
}

fn token(index: usize) -> String {
    format!("agent-token-{index}")
}

/// What the control API answered a change.
enum Put {
    /// 200: made, and every live instance confirmed it applies it.
    Acked(u64),
    /// 202: made, not confirmed by every instance within the store's wait.
    Pending,
}

/// `PUT /api/v1/agents/{principal}` through `gateway`: what it answered,
/// or why it refused.
async fn put(
    http: &reqwest::Client,
    gateway: &Gateway,
    principal: &str,
    profile: &str,
) -> Result<Put, String> {
    let profile: serde_json::Value = serde_json::from_str(profile).expect("a profile");
    let response = http
        .put(format!("{}/api/v1/agents/{principal}", gateway.control))
        .bearer_auth(TOKEN)
        .json(&json!({ "profile": profile }))
        .send()
        .await
        .map_err(|error| error.to_string())?;
    let status = response.status().as_u16();
    let body = response.text().await.map_err(|error| error.to_string())?;
    if status != 200 && status != 202 {
        return Err(format!("HTTP {status}: {body}"));
    }
    let body: serde_json::Value = serde_json::from_str(&body).map_err(|error| error.to_string())?;
    let version = body["version"]
        .as_u64()
        .ok_or_else(|| format!("no version in {body}"))?;
    Ok(if status == 200 {
        Put::Acked(version)
    } else {
        Put::Pending
    })
}

async fn grant(http: &reqwest::Client, gateway: &Gateway, index: usize) {
    let response = http
        .post(format!("{}/api/v1/tokens", gateway.control))
        .bearer_auth(TOKEN)
        .json(&json!({"token": token(index), "principal": principal(index)}))
        .send()
        .await
        .expect("POST /api/v1/tokens");
    assert_eq!(response.status().as_u16(), 200, "grant");
}

/// A 2025-era session of principal `index` on `uri`, calling [`TOOL`].
async fn session(http: Option<reqwest::Client>, uri: String, index: usize) -> Client {
    let bearer = token(index);
    let calls = Calls {
        tool: TOOL,
        arguments: "{}",
        bearer: Some(&bearer),
    };
    match http {
        Some(http) => Client::connect_on(http, &uri, Era::Legacy, calls).await,
        None => Client::connect_with(&uri, Era::Legacy, calls).await,
    }
}

/// An acknowledged change some instance must apply: principal, version,
/// when it was acknowledged.
type Pending = (usize, String, u64, Instant);

/// How a change of the churn ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Acked,
    Pending,
    Failed,
}

/// One injected fault: what, and from when until it was over (the stall
/// lifted; Redis answering again).
struct Fault {
    what: &'static str,
    begin: Instant,
    end: Instant,
}

/// How long after a fault is over its effects are still counted as its.
const AFTERMATH: Duration = Duration::from_secs(2);

/// One `tools/call` of `client`'s tool, classified; when it was sent and
/// answered. Why a lost one was lost goes to `lost`.
async fn timed_call(client: &mut Client, lost: &mut Vec<String>) -> (Kind, Instant, Instant) {
    let sent = Instant::now();
    let answer = tokio::time::timeout(CALL_TIMEOUT, client.call()).await;
    let answered = Instant::now();
    let kind = match answer {
        Ok(Answer::Result { .. }) => Kind::Served,
        Ok(Answer::Error(-32602)) => Kind::Refused,
        Ok(Answer::Error(code)) => Kind::OtherError(code),
        Ok(Answer::Lost(why)) => {
            lost.push(why);
            Kind::Lost
        }
        Err(_) => {
            lost.push("no answer within 10 s".to_owned());
            Kind::Lost
        }
    };
    (kind, sent, answered)
}

/// Stalls instance 2's link to Redis at `stall_at` for `stall_ms`, then
/// kills Redis and starts it again at `restart_at` (if any); when each was.
async fn inject_faults(
    stall_ms: usize,
    stall_at: Instant,
    proxy: StallProxy,
    restart_at: Option<Instant>,
    redis: Arc<Mutex<RedisServer>>,
) -> (Vec<Fault>, StallProxy) {
    let mut faults = Vec::new();
    if stall_ms > 0 {
        tokio::time::sleep_until(stall_at.into()).await;
        let begin = Instant::now();
        proxy.stall(Duration::from_millis(stall_ms as u64)).await;
        faults.push(Fault {
            what: "instance 2's link to Redis stalled",
            begin,
            end: Instant::now(),
        });
    }
    if let Some(at) = restart_at {
        tokio::time::sleep_until(at.into()).await;
        let begin = Instant::now();
        tokio::task::spawn_blocking(move || redis.lock().unwrap().restart())
            .await
            .expect("the restart");
        faults.push(Fault {
            what: "Redis killed (SIGKILL) and started again",
            begin,
            end: Instant::now(),
        });
    }
    // The proxy stays up: instance 2 reconnects through it after a restart.
    (faults, proxy)
}

/// Polls the instances' stores until each applies each change sent to it;
/// the lags, and how many were not applied by the deadline.
fn watch_applies(
    gateways: Arc<[Gateway; 3]>,
    changes: std::sync::mpsc::Receiver<Pending>,
    done: Arc<AtomicBool>,
) -> (Vec<Duration>, usize) {
    let mut pending: Vec<Pending> = Vec::new();
    let mut lags = Vec::new();
    let mut deadline = None;
    loop {
        pending.extend(changes.try_iter());
        let now = Instant::now();
        pending.retain(|(instance, principal, version, acked)| {
            let applied = gateways[*instance]
                .profiles()
                .version(principal)
                .is_some_and(|at| at >= *version);
            if applied {
                lags.push(now.saturating_duration_since(*acked));
            }
            !applied
        });
        if done.load(Ordering::SeqCst) {
            let deadline = *deadline.get_or_insert(now + APPLY_DEADLINE);
            if pending.is_empty() || now >= deadline {
                return (lags, pending.len());
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run());
}

async fn run() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let config = Config::from_env();
    for (name, at) in [
        ("STALL_AT", config.stall_at),
        ("RESTART_AT", config.restart_at),
    ] {
        assert!(
            at < config.seconds,
            "GWLOAD_BENCH_{name}={at} is past the load's {} s",
            config.seconds
        );
    }
    let with: ProfileContext<Kandev> = ProfileContext::from_json(PROFILES[0]).expect("profile");
    let without: ProfileContext<Kandev> = ProfileContext::from_json(PROFILES[1]).expect("profile");
    assert!(
        Kandev::registry()
            .assemble(&with)
            .tool_names()
            .contains(&TOOL)
    );
    assert!(
        !Kandev::registry()
            .assemble(&without)
            .tool_names()
            .contains(&TOOL)
    );

    let url = redis.url();
    // Instance 2 reaches Redis through a proxy that can stall.
    let proxy = StallProxy::start(([127, 0, 0, 1], redis.port()).into()).await;
    let stalled_url = format!("redis://{}/0", proxy.addr());
    let logs_kept: Vec<Option<Arc<DecisionLog>>> = (0..3)
        .map(|_| {
            config
                .decisions
                .then(|| Arc::new(DecisionLog::new(DECISIONS_KEPT)))
        })
        .collect();
    let profiles = |instance: usize| match &logs_kept[instance] {
        Some(log) => ProfileStore::default().with_decision_log(Arc::clone(log)),
        None => ProfileStore::default(),
    };
    let gateways = Arc::new([
        Gateway::start_with(&url, TOKEN, profiles(0)).await,
        Gateway::start_with(&url, TOKEN, profiles(1)).await,
        Gateway::start_with(&stalled_url, TOKEN, profiles(2)).await,
    ]);
    let redis = Arc::new(Mutex::new(redis));
    let control = reqwest::Client::new();
    let principals = config.principals;
    // Every principal starts on alternating profiles, set and acknowledged
    // before the load: its change 0.
    let mut initial = Vec::with_capacity(principals);
    for index in 0..principals {
        let profile = index % 2;
        let gateway = &gateways[index % 3];
        let sent = Instant::now();
        let answer = put(&control, gateway, &principal(index), PROFILES[profile]).await;
        assert!(
            matches!(answer, Ok(Put::Acked(_))),
            "the initial profile was not acknowledged"
        );
        let acked = Some(Instant::now());
        grant(&control, gateway, index).await;
        initial.push(vec![Change {
            sent,
            acked,
            profile,
            instance: index % 3,
        }]);
    }
    let logs: Arc<Vec<Mutex<Vec<Change>>>> =
        Arc::new(initial.into_iter().map(Mutex::new).collect());

    let total = config.sessions * 3;
    let started = Instant::now();
    let mut clients = Vec::with_capacity(total);
    for batch in (0..total).collect::<Vec<_>>().chunks(200) {
        let gateways = &gateways;
        clients.extend(
            join_spawned(
                batch
                    .iter()
                    .map(|&i| session(None, gateways[i % 3].mcp.clone(), (i / 3) % principals)),
            )
            .await,
        );
    }
    println!(
        "{total} sessions of {principals} principals on 3 instances connected in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // A probe session per principal and instance, kept apart from the
    // scheduled ones: after each acknowledgement, each other instance is
    // asked at once.
    let mut probes = Vec::with_capacity(principals);
    for index in 0..principals {
        let gateways = &gateways;
        let clients = join_spawned(
            (0..3).map(|instance| session(None, gateways[instance].mcp.clone(), index)),
        )
        .await;
        let [a, b, c] = <[Client; 3]>::try_from(clients).ok().expect("three probes");
        probes.push([a, b, c].map(tokio::sync::Mutex::new));
    }
    let probes = Arc::new(probes);
    let probe_calls: Arc<Mutex<Vec<Call>>> = Arc::default();

    // The load: every session at its phase of the common period.
    let period = Duration::from_secs_f64(total as f64 / config.rate as f64);
    let start = tokio::time::Instant::now() + Duration::from_secs(1);
    let end = start + Duration::from_secs(config.seconds as u64);
    let callers = clients.into_iter().enumerate().map(|(i, mut client)| {
        let phase = period.mul_f64(i as f64 / total as f64);
        async move {
            // A fixed clock: a tick missed while the previous call was
            // unanswered fires at once (Burst), and each call is timed from
            // its tick, so a stall shows in the latency of every call it
            // delayed (no coordinated omission); the late ones are counted.
            let mut interval = tokio::time::interval_at(start + phase, period);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
            let mut calls = Vec::new();
            let mut lost = Vec::new();
            loop {
                let intended = interval.tick().await;
                if intended >= end {
                    break;
                }
                let (kind, sent, answered) = timed_call(&mut client, &mut lost).await;
                if kind == Kind::Lost
                    && let Some(why) = lost.last_mut()
                {
                    why.push_str(&format!(
                        " (instance {}, sent {:.3} s into the load, answered after {:.3} s)",
                        i % 3,
                        sent.saturating_duration_since(start.into_std())
                            .as_secs_f64(),
                        (answered - sent).as_secs_f64()
                    ));
                }
                calls.push(Call {
                    principal: ((i / 3) % principals) as u32,
                    instance: (i % 3) as u8,
                    intended: intended.into_std(),
                    sent,
                    answered,
                    kind,
                });
            }
            (client, calls, lost)
        }
    });
    let callers: Vec<_> = callers.map(tokio::spawn).collect();
    let cpu_before = cpu_time();

    // The lag watcher, on a thread of its own so its polling does not wait
    // for the runtime's busy workers.
    let (to_watch, watched) = std::sync::mpsc::channel::<Pending>();
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let gateways = Arc::clone(&gateways);
        let done = Arc::clone(&done);
        std::thread::spawn(move || watch_applies(gateways, watched, done))
    };

    // The churn: one change per tick, principals in turn, instances in turn
    // (shifted every round of principals so each principal is changed
    // through all three); a principal whose previous change is still
    // unanswered is skipped, so one principal's changes never overlap. At
    // most `CONTROL_CONNECTIONS` requests per instance at once, as a client
    // of the control API (which takes 32 connections) must: a change waits
    // for its turn, and is sent (and timed) then.
    let turns: Arc<[tokio::sync::Semaphore; 3]> = Arc::new(std::array::from_fn(|_| {
        tokio::sync::Semaphore::new(CONTROL_CONNECTIONS)
    }));
    let busy: Arc<Vec<AtomicBool>> =
        Arc::new((0..principals).map(|_| AtomicBool::new(false)).collect());
    let acks: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let failed: Arc<Mutex<Vec<String>>> = Arc::default();
    let not_applied_at_ack = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let pending = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let outcomes: Arc<Mutex<Vec<(Instant, Outcome)>>> = Arc::default();
    let faults = tokio::spawn(inject_faults(
        config.stall_ms,
        start.into_std() + Duration::from_secs(config.stall_at as u64),
        proxy,
        (config.restart_at > 0)
            .then(|| start.into_std() + Duration::from_secs(config.restart_at as u64)),
        Arc::clone(&redis),
    ));
    let behind_at_ack = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut skipped = 0usize;
    let mut made = Vec::new();
    if config.changes > 0 {
        let mut ticks =
            tokio::time::interval_at(start, Duration::from_secs_f64(1.0 / config.changes as f64));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        let mut n = 0usize;
        while ticks.tick().await < end {
            let index = n % principals;
            let instance = (n + n / principals) % 3;
            n += 1;
            if busy[index].swap(true, Ordering::SeqCst) {
                skipped += 1;
                continue;
            }
            let (gateways, turns, logs, busy, control) = (
                Arc::clone(&gateways),
                Arc::clone(&turns),
                Arc::clone(&logs),
                Arc::clone(&busy),
                control.clone(),
            );
            let (acks, failed, to_watch, not_applied_at_ack, behind_at_ack) = (
                Arc::clone(&acks),
                Arc::clone(&failed),
                to_watch.clone(),
                Arc::clone(&not_applied_at_ack),
                Arc::clone(&behind_at_ack),
            );
            let (probes, probe_calls, pending, outcomes) = (
                Arc::clone(&probes),
                Arc::clone(&probe_calls),
                Arc::clone(&pending),
                Arc::clone(&outcomes),
            );
            made.push(tokio::spawn(async move {
                let name = principal(index);
                let profile = {
                    let log = logs[index].lock().unwrap();
                    1 - log.last().expect("change 0").profile
                };
                let _turn = turns[instance].acquire().await.expect("never closed");
                let sent = Instant::now();
                let answer = put(&control, &gateways[instance], &name, PROFILES[profile]).await;
                let now = Instant::now();
                let acked = match answer {
                    Ok(Put::Acked(version)) => {
                        let held = |at: usize| gateways[at].profiles().version(&name);
                        // Applied where it was made before the answer?
                        if held(instance).is_none_or(|held| held < version) {
                            not_applied_at_ack.fetch_add(1, Ordering::SeqCst);
                        }
                        for other in (0..3).filter(|&other| other != instance) {
                            // And every other one that serves the principal
                            // (`AgentStore::propagated`)?
                            if held(other).is_some_and(|held| held < version) {
                                behind_at_ack.fetch_add(1, Ordering::SeqCst);
                            }
                            let _ = to_watch.send((other, name.clone(), version, now));
                        }
                        acks.lock().unwrap().push(now - sent);
                        outcomes.lock().unwrap().push((sent, Outcome::Acked));
                        // Probe each other instance at once: its answer
                        // depends on this change.
                        let probed = (0..3).filter(|&other| other != instance).map(|other| {
                            let (probes, probe_calls) =
                                (Arc::clone(&probes), Arc::clone(&probe_calls));
                            async move {
                                let mut client = probes[index][other].lock().await;
                                let (kind, sent, answered) =
                                    timed_call(&mut client, &mut Vec::new()).await;
                                probe_calls.lock().unwrap().push(Call {
                                    principal: index as u32,
                                    instance: other as u8,
                                    intended: now,
                                    sent,
                                    answered,
                                    kind,
                                });
                            }
                        });
                        join_spawned(probed).await;
                        Some(now)
                    }
                    Ok(Put::Pending) => {
                        pending.fetch_add(1, Ordering::SeqCst);
                        outcomes.lock().unwrap().push((sent, Outcome::Pending));
                        None
                    }
                    Err(why) => {
                        failed.lock().unwrap().push(why);
                        outcomes.lock().unwrap().push((sent, Outcome::Failed));
                        None
                    }
                };
                logs[index].lock().unwrap().push(Change {
                    sent,
                    acked,
                    profile,
                    instance,
                });
                busy[index].store(false, Ordering::SeqCst);
            }));
        }
    }
    let changes_made = made.len();
    for change in made {
        change.await.expect("a change task");
    }
    drop(to_watch);
    let mut clients = Vec::with_capacity(total);
    let mut calls = Vec::new();
    let mut lost_why: Vec<String> = Vec::new();
    for caller in callers {
        let (client, mut some, lost) = caller.await.expect("a session task");
        clients.push(client);
        calls.append(&mut some);
        lost_why.extend(lost);
    }
    let cpu = (cpu_time() - cpu_before).as_secs_f64() / (config.seconds as f64 + 1.0);
    let load = load_average();
    done.store(true, Ordering::SeqCst);
    let (lags, never_applied) = watcher.join().expect("the watcher");

    let logs: Vec<Vec<Change>> = Arc::try_unwrap(logs)
        .expect("every change task is done")
        .into_iter()
        .map(|log| log.into_inner().unwrap())
        .collect();
    let (faults, _proxy) = faults.await.expect("the fault injector");
    let probe_calls = std::mem::take(&mut *probe_calls.lock().unwrap());
    let outcomes = std::mem::take(&mut *outcomes.lock().unwrap());
    let verdicts = judge(&calls, &logs);
    let probe_verdicts = judge(&probe_calls, &logs);
    let answered_calls = || calls.iter().filter(|call| call.kind != Kind::Lost);
    let latencies: Vec<Duration> = answered_calls()
        .map(|call| call.answered - call.sent)
        .collect();
    let from_schedule = percentiles(
        answered_calls()
            .map(|call| call.answered - call.intended)
            .collect(),
    );
    let answered = latencies.len();
    let seconds = config.seconds as f64;
    let latency = percentiles(latencies);
    let fault_report: Vec<serde_json::Value> = faults
        .iter()
        .map(|fault| fault_effects(fault, start.into_std(), &calls, &outcomes, &logs))
        .collect();
    let decisions = match config.decisions {
        true => verify_decisions(&gateways, &logs_kept).await,
        false => json!(null),
    };
    let acks = percentiles(std::mem::take(&mut *acks.lock().unwrap()));
    let failed = std::mem::take(&mut *failed.lock().unwrap());
    let lag = percentiles(lags);
    let not_applied_at_ack = not_applied_at_ack.load(Ordering::SeqCst);
    let behind_at_ack = behind_at_ack.load(Ordering::SeqCst);

    println!(
        "load: {} s, {} calls sent, {answered} answered ({:.0}/s), p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms",
        config.seconds,
        calls.len(),
        answered as f64 / seconds,
        latency["p50"].as_f64().unwrap_or(f64::NAN),
        latency["p99"].as_f64().unwrap_or(f64::NAN),
        latency["max"].as_f64().unwrap_or(f64::NAN),
    );
    println!(
        "schedule: {} calls could not start on time (> {} ms late; the timer alone starts each up to 1 ms after its tick); from the scheduled time: p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms",
        verdicts.late,
        judge::LATE.as_millis(),
        from_schedule["p50"].as_f64().unwrap_or(f64::NAN),
        from_schedule["p99"].as_f64().unwrap_or(f64::NAN),
        from_schedule["max"].as_f64().unwrap_or(f64::NAN),
    );
    println!(
        "cpu: this process used {cpu:.2} cores during the load; machine load average {load:.2} at its end"
    );
    println!(
        "changes: {changes_made} made ({:.1}/s), {} failed, {} pending (202), {skipped} skipped (previous unanswered); control API answer p50 {:.2} ms, p99 {:.2} ms",
        changes_made as f64 / seconds,
        failed.len(),
        pending.load(Ordering::SeqCst),
        acks["p50"].as_f64().unwrap_or(f64::NAN),
        acks["p99"].as_f64().unwrap_or(f64::NAN),
    );
    println!(
        "consistency: right {} ({} on the making instance), wrong on the making instance {}, wrong on another instance {}, in flight {}, lost {}, other errors {}",
        verdicts.right,
        verdicts.right_same,
        verdicts.wrong_same,
        verdicts.wrong_other,
        verdicts.in_flight,
        verdicts.lost,
        verdicts.other_errors,
    );
    println!(
        "near an acknowledgement: {} judged calls sent within 1 ms of it, {} within 10 ms (of {} judged)",
        verdicts.within_1ms,
        verdicts.within_10ms,
        verdicts.judged(),
    );
    println!(
        "probes (each other instance asked at once after every acknowledgement): {} sent, right {}, wrong {}, in flight {}, lost {}, other errors {}; {} within 1 ms of the acknowledgement, {} within 10 ms",
        probe_calls.len(),
        probe_verdicts.right,
        probe_verdicts.wrong_same + probe_verdicts.wrong_other,
        probe_verdicts.in_flight,
        probe_verdicts.lost,
        probe_verdicts.other_errors,
        probe_verdicts.within_1ms,
        probe_verdicts.within_10ms,
    );
    println!(
        "apply: {not_applied_at_ack} changes not applied by the making instance when it answered, \
         {behind_at_ack} (change, other instance) pairs not applied there when it answered; \
         ack -> another instance applies it: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (n {}); {never_applied} never applied",
        lag["p50"].as_f64().unwrap_or(f64::NAN),
        lag["p99"].as_f64().unwrap_or(f64::NAN),
        lag["max"].as_f64().unwrap_or(f64::NAN),
        lag["n"],
    );
    if !verdicts.wrong_other_after_ack.is_empty() {
        let late = percentiles(verdicts.wrong_other_after_ack.clone());
        println!(
            "wrong answers on another instance: the call was sent {:.2} ms (median; max {:.2} ms) after the acknowledgement",
            late["p50"].as_f64().unwrap_or(f64::NAN),
            late["max"].as_f64().unwrap_or(f64::NAN),
        );
    }
    for why in lost_why.iter().take(5) {
        println!("lost: {why}");
    }
    for why in failed.iter().take(5) {
        println!("failed change: {why}");
    }

    let memory = if config.memory > 0 {
        memory_per_session(&gateways[0], clients, config.memory, principals).await
    } else {
        json!(null)
    };

    let results = json!({
        "config": {
            "sessions_per_instance": config.sessions,
            "principals": principals,
            "rate": config.rate,
            "changes_per_s": config.changes,
            "seconds": config.seconds,
            "stall_at_s": config.stall_at,
            "stall_ms": config.stall_ms,
            "restart_at_s": config.restart_at,
            "decision_log": config.decisions,
        },
        "calls": {
            "sent": calls.len(),
            "answered": answered,
            "per_s": answered as f64 / seconds,
            "p50_ms": latency["p50"],
            "p99_ms": latency["p99"],
            "max_ms": latency["max"],
            "late": verdicts.late,
            "from_schedule_ms": from_schedule,
            "process_cores": cpu,
            "load_average": load,
        },
        "consistency": {
            "right": verdicts.right,
            "right_same_instance": verdicts.right_same,
            "wrong_same_instance": verdicts.wrong_same,
            "wrong_other_instance": verdicts.wrong_other,
            "in_flight": verdicts.in_flight,
            "lost": verdicts.lost,
            "other_errors": verdicts.other_errors,
            "wrong_other_after_ack_ms": verdicts.wrong_other_after_ack.iter().map(|d| ms(*d)).collect::<Vec<_>>(),
            "judged_within_1ms_of_ack": verdicts.within_1ms,
            "judged_within_10ms_of_ack": verdicts.within_10ms,
        },
        "probes": {
            "sent": probe_calls.len(),
            "right": probe_verdicts.right,
            "wrong_same_instance": probe_verdicts.wrong_same,
            "wrong_other_instance": probe_verdicts.wrong_other,
            "in_flight": probe_verdicts.in_flight,
            "lost": probe_verdicts.lost,
            "other_errors": probe_verdicts.other_errors,
            "within_1ms_of_ack": probe_verdicts.within_1ms,
            "within_10ms_of_ack": probe_verdicts.within_10ms,
        },
        "faults": fault_report,
        "decisions": decisions,
        "changes": {
            "made": changes_made,
            "per_s": changes_made as f64 / seconds,
            "failed": failed.len(),
            "pending": pending.load(Ordering::SeqCst),
            "skipped": skipped,
            "ack_p50_ms": acks["p50"],
            "ack_p99_ms": acks["p99"],
            "not_applied_at_ack": not_applied_at_ack,
            "behind_at_ack": behind_at_ack,
            "never_applied": never_applied,
            "lag_ms": lag,
        },
        "memory": memory,
    });
    match write("gateway_load", &results) {
        Ok(path) => println!("results: {}", path.display()),
        Err(error) => eprintln!("could not write the results: {error}"),
    }
}

/// What `fault` did to the calls scheduled from its start until
/// [`AFTERMATH`] after its end, and to the changes sent then.
fn fault_effects(
    fault: &Fault,
    start: Instant,
    calls: &[Call],
    outcomes: &[(Instant, Outcome)],
    logs: &[Vec<Change>],
) -> serde_json::Value {
    let until = fault.end + AFTERMATH;
    let within = |at: Instant| at >= fault.begin && at <= until;
    let hit: Vec<&Call> = calls.iter().filter(|call| within(call.intended)).collect();
    let verdicts = judge(hit.iter().copied(), logs);
    let latency = percentiles(
        (hit.iter())
            .filter(|call| call.kind != Kind::Lost)
            .map(|call| call.answered - call.intended)
            .collect(),
    );
    let count = |wanted: Outcome| {
        (outcomes.iter())
            .filter(|(sent, outcome)| within(*sent) && *outcome == wanted)
            .count()
    };
    let (acked, pending, failed) = (
        count(Outcome::Acked),
        count(Outcome::Pending),
        count(Outcome::Failed),
    );
    let at = |t: Instant| t.saturating_duration_since(start).as_secs_f64();
    println!(
        "fault: {} at {:.1} s for {:.2} s (+{} s counted after): calls {}: right {}, wrong {} \
         ({} on the making instance), in flight {}, lost {}, other errors {}, late {}; \
         from schedule p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms; changes acknowledged {acked}, \
         pending (202) {pending}, failed {failed}",
        fault.what,
        at(fault.begin),
        (fault.end - fault.begin).as_secs_f64(),
        AFTERMATH.as_secs(),
        hit.len(),
        verdicts.right,
        verdicts.wrong_same + verdicts.wrong_other,
        verdicts.wrong_same,
        verdicts.in_flight,
        verdicts.lost,
        verdicts.other_errors,
        verdicts.late,
        latency["p50"].as_f64().unwrap_or(f64::NAN),
        latency["p99"].as_f64().unwrap_or(f64::NAN),
        latency["max"].as_f64().unwrap_or(f64::NAN),
    );
    json!({
        "what": fault.what,
        "at_s": at(fault.begin),
        "lasted_s": (fault.end - fault.begin).as_secs_f64(),
        "counted_after_s": AFTERMATH.as_secs(),
        "calls": hit.len(),
        "right": verdicts.right,
        "wrong_same_instance": verdicts.wrong_same,
        "wrong_other_instance": verdicts.wrong_other,
        "in_flight": verdicts.in_flight,
        "lost": verdicts.lost,
        "other_errors": verdicts.other_errors,
        "late": verdicts.late,
        "from_schedule_ms": latency,
        "changes": { "acked": acked, "pending": pending, "failed": failed },
    })
}

/// Replays the audit trail the instances share and judges every decision
/// they shipped to the shared decision log against it
/// (`mcp_profiles_serve::exposure::verify`).
async fn verify_decisions(
    gateways: &[Gateway; 3],
    logs: &[Option<Arc<DecisionLog>>],
) -> serde_json::Value {
    let mut per_instance = Vec::new();
    for (gateway, log) in gateways.iter().zip(logs) {
        let log = log.as_ref().expect("a decision log on every instance");
        gateway
            .store
            .decisions_written()
            .await
            .expect("the decisions are shipped");
        per_instance.push(json!({ "dropped": log.dropped() }));
    }
    let store = &*gateways[0].store;
    let trail = Trail::<Kandev>::read(store).await.expect("the audit trail");
    let records = read_decisions(store).await.expect("the decision log");
    let verdict = verify(&trail, &records);
    println!(
        "decisions: {} in the shared log ({} dropped by the instances), {} judged, {} unjudged, {} mismatches{}",
        records.len(),
        logs.iter().flatten().map(|log| log.dropped()).sum::<u64>(),
        verdict.judged,
        verdict.unjudged,
        verdict.mismatches,
        verdict
            .first
            .as_ref()
            .map(|(record, why)| format!("; first: {record:?}: {why}"))
            .unwrap_or_default(),
    );
    json!({
        "trail_whole": trail.is_whole(),
        "logged": records.len(),
        "judged": verdict.judged,
        "unjudged": verdict.unjudged,
        "mismatches": verdict.mismatches,
        "first": verdict.first.as_ref().map(|(record, why)| format!("{record:?}: {why}")),
        "instances": per_instance,
    })
}

/// Closes the load's sessions, then opens `sessions` on `gateway` (one
/// call each) over one shared connection pool and reports the live heap
/// bytes and the RSS they add, per session.
async fn memory_per_session(
    gateway: &Gateway,
    mut load: Vec<Client>,
    sessions: usize,
    principals: usize,
) -> serde_json::Value {
    while !load.is_empty() {
        let batch: Vec<Client> = load.drain(..load.len().min(200)).collect();
        join_spawned(batch.into_iter().map(Client::close)).await;
    }
    drop(load);
    let http = reqwest::Client::new();
    // Opens sessions `range` (one call each, every 100 at once).
    let open = |range: std::ops::Range<usize>| {
        let http = http.clone();
        let uri = gateway.mcp.clone();
        async move {
            let mut clients = Vec::with_capacity(range.len());
            for batch in range.collect::<Vec<_>>().chunks(100) {
                clients.extend(
                    join_spawned(batch.iter().map(|&i| {
                        let (http, uri) = (http.clone(), uri.clone());
                        async move {
                            let mut client = session(Some(http), uri, i % principals).await;
                            let answer = client.call().await;
                            assert!(
                                matches!(answer, Answer::Result { .. } | Answer::Error(-32602)),
                                "{answer:?}"
                            );
                            client
                        }
                    }))
                    .await,
                );
            }
            clients
        }
    };
    // The shared pool's connections (kept open) and the runtime's buffers
    // are made by sessions that are closed again before the baseline.
    for client in open(0..200).await {
        client.close().await;
    }
    let mut kept: Vec<String> = Vec::with_capacity(sessions);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (before, rss_before) = (live(), rss());
    for client in open(0..sessions).await {
        kept.push(client.into_session().expect("a 2025-era session"));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (after, rss_after) = (live(), rss());
    // What the bench itself keeps per session: its id.
    let ids: usize = kept.iter().map(String::capacity).sum();
    let per_session = (after - before - ids as isize) as f64 / sessions as f64;
    let rss_per_session = (rss_after as f64 - rss_before as f64) / sessions as f64;
    println!(
        "memory: {sessions} sessions on one instance: {per_session:.0} live heap bytes per session \
         (process RSS grew {rss_per_session:.0} bytes per session)"
    );
    json!({
        "sessions": sessions,
        "bytes_per_session": per_session,
        "rss_bytes_per_session": rss_per_session,
    })
}
