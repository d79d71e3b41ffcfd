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
//! - **load**: every session calls `list_related_tasks_kandev` at a fixed
//!   rate (`RATE` calls/s over all sessions, evenly phased) for `SECONDS`,
//!   while a churn driver changes `CHANGES` profiles a second through the
//!   control APIs (`PUT /api/v1/agents/{principal}`; principals in turn,
//!   instances in turn), each principal alternating between a profile with
//!   the tool (`kanban-task` + `user-question`) and one without
//!   (`configuration`). Call latency (p50, p99) and calls per second.
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
//!   call with no JSON-RPC answer within 10 s is *lost*.
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
//!
//! Writes `target/bench-results/gateway_load.json`:
//!
//! ```text
//! { "config": { "sessions_per_instance", "principals", "rate", "changes_per_s", "seconds" },
//!   "calls": { "sent", "answered", "per_s", "p50_ms", "p99_ms", "max_ms",
//!              "process_cores", "load_average" },
//!   "consistency": { "right", "right_same_instance", "wrong_same_instance", "wrong_other_instance",
//!                    "in_flight", "lost", "other_errors",
//!                    "wrong_other_after_ack_ms": [..] },
//!   "changes": { "made", "per_s", "failed", "skipped", "ack_p50_ms", "ack_p99_ms",
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
        }
    }
}

fn principal(index: usize) -> String {
    format!("agent-{index}")
}

fn token(index: usize) -> String {
    format!("agent-token-{index}")
}

/// `PUT /api/v1/agents/{principal}` through `gateway`: the version it
/// answers, or why not.
async fn put(
    http: &reqwest::Client,
    gateway: &Gateway,
    principal: &str,
    profile: &str,
) -> Result<u64, String> {
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
    if status != 200 {
        return Err(format!("HTTP {status}: {body}"));
    }
    let body: serde_json::Value = serde_json::from_str(&body).map_err(|error| error.to_string())?;
    body["version"]
        .as_u64()
        .ok_or_else(|| format!("no version in {body}"))
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
    let gateways = Arc::new([
        Gateway::start(&url, TOKEN).await,
        Gateway::start(&url, TOKEN).await,
        Gateway::start(&url, TOKEN).await,
    ]);
    let control = reqwest::Client::new();
    let principals = config.principals;
    // Every principal starts on alternating profiles, set and acknowledged
    // before the load: its change 0.
    let mut initial = Vec::with_capacity(principals);
    for index in 0..principals {
        let profile = index % 2;
        let gateway = &gateways[index % 3];
        let sent = Instant::now();
        put(&control, gateway, &principal(index), PROFILES[profile])
            .await
            .expect("the initial profile");
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

    // The load: every session at its phase of the common period.
    let period = Duration::from_secs_f64(total as f64 / config.rate as f64);
    let start = tokio::time::Instant::now() + Duration::from_secs(1);
    let end = start + Duration::from_secs(config.seconds as u64);
    let callers = clients.into_iter().enumerate().map(|(i, mut client)| {
        let phase = period.mul_f64(i as f64 / total as f64);
        async move {
            let mut interval = tokio::time::interval_at(start + phase, period);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut calls = Vec::new();
            let mut lost = Vec::new();
            loop {
                if interval.tick().await >= end {
                    break;
                }
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
                calls.push(Call {
                    principal: ((i / 3) % principals) as u32,
                    instance: (i % 3) as u8,
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
                    Ok(version) => {
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
                        Some(now)
                    }
                    Err(why) => {
                        failed.lock().unwrap().push(why);
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
    let verdicts = judge(&calls, &logs);
    let mut latencies: Vec<Duration> = calls
        .iter()
        .filter(|call| call.kind != Kind::Lost)
        .map(|call| call.answered - call.sent)
        .collect();
    latencies.sort();
    let answered = latencies.len();
    let seconds = config.seconds as f64;
    let latency = percentiles(latencies);
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
        "cpu: this process used {cpu:.2} cores during the load; machine load average {load:.2} at its end"
    );
    println!(
        "changes: {changes_made} made ({:.1}/s), {} failed, {skipped} skipped (previous unanswered); control API answer p50 {:.2} ms, p99 {:.2} ms",
        changes_made as f64 / seconds,
        failed.len(),
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
        },
        "calls": {
            "sent": calls.len(),
            "answered": answered,
            "per_s": answered as f64 / seconds,
            "p50_ms": latency["p50"],
            "p99_ms": latency["p99"],
            "max_ms": latency["max"],
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
        },
        "changes": {
            "made": changes_made,
            "per_s": changes_made as f64 / seconds,
            "failed": failed.len(),
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
