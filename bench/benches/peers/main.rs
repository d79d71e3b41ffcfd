//! Against the other SDKs: Kandev's profile through mcp-profiles (`ours`)
//! against the official TypeScript SDK and FastMCP, each serving the same
//! tools (38 at this commit) over streamable HTTP on 127.0.0.1, under the
//! `e2e` bench's load generator, and timing the same profile switch on each.
//!
//! Timed harness (`harness = false`). Servers are child processes:
//!
//! - `ours`: the package's `e2e-server profiled --switch-to ...`
//!   (`ProfileController<Kandev>` on the demo board through
//!   `mcp_profiles_serve::http`), one tokio worker (`PEERS_BENCH_SERVER_THREADS`);
//! - `ts-sdk`: `bench/peers/ts/server.mjs`, `@modelcontextprotocol/sdk`'s
//!   `McpServer` per session on its `StreamableHTTPServerTransport` (what
//!   the SDK's examples teach); a switch calls `RegisteredTool.enable()` /
//!   `disable()` on each session's tools whose visibility changes;
//! - `ts-sdk-debounced`: the same with the SDK's own
//!   `debouncedNotificationMethods: ["notifications/tools/list_changed"]`,
//!   which coalesces one tick's notifications into one;
//! - `ts-sdk-low-level`: the strongest TS baseline, the SDK's low-level
//!   `Server` per session answering `tools/list` with a list built once per
//!   profile (ours, as listed) and one `tools/list_changed` per switch;
//! - `fastmcp`: `bench/peers/fastmcp/server.py`, FastMCP's session-scoped
//!   visibility rules (a tag per profile) on `uvicorn[standard]` (uvloop,
//!   httptools), log levels pinned; the middleware that remembers sessions
//!   for a switch only on the switch rows' servers.
//!
//! The peers are installed by `scripts/peers.sh` (pinned versions, under
//! `target/peers`), which this bench runs when it starts: building it
//! (`cargo bench --no-run`) needs neither Node nor Python.
//!
//! The same tools: this bench first lists both profiles' tools from `ours`
//! (`tools/list` JSON: names, descriptions, input schemas, annotations) and
//! writes them to `target/bench-results/peers-tools.json`, which the peers
//! load; the peers register them with their own APIs (the TS SDK from zod
//! schemas made with `z.fromJSONSchema`, so it lists its own conversion of
//! them) and answer every `tools/call` with the fixed text
//! Kandev's `list_workspaces_kandev` answers on the demo board. Before
//! anything is timed each server must list the same tools, names and
//! definitions (`parity.rs`), or the bench fails; each one's response
//! bytes for a `tools/list` and a `tools/call` are reported.
//!
//! Load (`PEERS_BENCH_LOAD_SERVERS`, default `ours,ts-sdk,ts-sdk-low-level,fastmcp`): as the
//! `e2e` bench's 2025-11-25 cells (the peers have no 2026-07-28 stateless
//! mode): `tools/list` and `tools/call` × 1, 8, 32 clients, a warm-up per
//! server, then `PEERS_BENCH_ROUNDS` rounds with the servers' order
//! alternating; per round p50, p99, requests/s; per cell the median and the
//! per-round ratio to `ours` (median, min..max).
//!
//! Switch (`PEERS_BENCH_SWITCH_SERVERS`, default
//! `ours,ts-sdk,ts-sdk-debounced,ts-sdk-low-level,fastmcp`), per `PEERS_BENCH_SESSIONS`
//! (default `100,1000`): every server gets that many rmcp client sessions
//! (2025-11-25, GET SSE stream open, re-listing on every list_changed: see
//! `switch.rs`); after one unmeasured switch per server, `PEERS_BENCH_SWITCH_ROUNDS`
//! switches each, interleaved. A switch is a line on the server's stdin;
//! timed from writing it to the last session's re-list naming the new
//! profile's tools. A server whose sessions hear more than one list_changed
//! for a switch is reported as "cannot" (one notification per effective
//! change) with its count, and its rounds are skipped.
//!
//! Env: `PEERS_BENCH_REQUESTS` (5000), `PEERS_BENCH_ROUNDS` (3),
//! `PEERS_BENCH_WARMUP` (1000), `PEERS_BENCH_CLIENTS` (`1,8,32`),
//! `PEERS_BENCH_SWITCH_ROUNDS` (4), `PEERS_BENCH_SETTLE_MS` (300),
//! `PEERS_BENCH_PIN` (0; 1 pins the generator to CPU 0 and servers to CPU 1).
//!
//! Output: a table, and `target/bench-results/peers.json`:
//!
//! ```text
//! { "bench": "peers", "profiles": [JSON, JSON], "tools": [n, n], "tool": name,
//!   "versions": { "ts-sdk", "fastmcp", "node", "python", "uvicorn", .. },
//!   "config": {..},
//!   "load": { "bytes": { NAME: { "tools/list": n, "tools/call": n } },
//!             "cells": [ { "era": "2025-11-25", "op", "clients",
//!               "servers": { NAME: { "p50_us", "p99_us", "rps": Spread } },
//!               "vs_ours": { NAME: { "p50", "p99", "rps": Spread } } } ] },
//!   "switch": [ { "sessions": n,
//!                 "servers": { NAME: { "relisted_us": Spread | null,
//!                   "heard_us": Spread | null, "notifications_per_switch": [min, max],
//!                   "cannot": null | "why", "warm_up": { "relisted_us", "heard_us" },
//!                   "samples": [ { "relisted_us", "heard_us", "notifications" } ] } },
//!                 "vs_ours": { NAME: Spread } } ] }
//! ```
//!
//! where `Spread` is `{ "median", "min", "max" }` over rounds, `vs_ours`
//! the per-round NAME ÷ ours (of `relisted_us` for a switch), and a
//! "cannot" server's figures are `null` (its unmeasured switch is in
//! `warm_up`).
//!
//! `cargo bench -p mcp-profiles-bench --bench peers`

mod parity;
mod servers;
mod switch;

use std::time::Duration;

use mcp_profiles_bench::load_client::{Client, Era, Op, Rounds, Sample, interleaved};
use mcp_profiles_bench::results::{self, Spread, env_list, env_usize};
use serde_json::{Value, json};
use servers::ServerProcess;

/// The profile of the `e2e` bench (38 of Kandev's tools at this commit).
const PROFILE: &str = r#"{"surface":"kanban-task","capabilities":["user-question"]}"#;
/// The profile a switch alternates with.
const OTHER: &str = r#"{"surface":"configuration"}"#;
/// The tool of every `tools/call`.
const TOOL: &str = "list_workspaces_kandev";
const KNOWN: [&str; 5] = [
    "ours",
    "ts-sdk",
    "ts-sdk-debounced",
    "ts-sdk-low-level",
    "fastmcp",
];

struct Config {
    requests: usize,
    rounds: usize,
    warmup: usize,
    clients: Vec<usize>,
    load_servers: Vec<String>,
    switch_servers: Vec<String>,
    sessions: Vec<usize>,
    switch_rounds: usize,
    settle: Duration,
    threads: usize,
    pin: bool,
}

fn counts(name: &str, default: &str) -> Vec<usize> {
    env_list(name, default)
        .iter()
        .map(|n| {
            n.parse()
                .ok()
                .filter(|n| *n > 0)
                .unwrap_or_else(|| panic!("{name}: `{n}` is not a positive count"))
        })
        .collect()
}

fn server_list(name: &str, default: &str) -> Vec<String> {
    let servers = env_list(name, default);
    for server in &servers {
        assert!(
            KNOWN.contains(&server.as_str()),
            "{name}: unknown server `{server}` ({})",
            KNOWN.join(", ")
        );
    }
    assert!(
        servers.is_empty() || servers[0] == "ours",
        "{name}: list `ours` first, the others are compared with it"
    );
    servers
}

impl Config {
    fn from_env() -> Config {
        Config {
            requests: env_usize("PEERS_BENCH_REQUESTS", 5_000).max(1),
            rounds: env_usize("PEERS_BENCH_ROUNDS", 3).max(1),
            warmup: env_usize("PEERS_BENCH_WARMUP", 1_000),
            clients: counts("PEERS_BENCH_CLIENTS", "1,8,32"),
            load_servers: server_list(
                "PEERS_BENCH_LOAD_SERVERS",
                "ours,ts-sdk,ts-sdk-low-level,fastmcp",
            ),
            switch_servers: server_list(
                "PEERS_BENCH_SWITCH_SERVERS",
                "ours,ts-sdk,ts-sdk-debounced,ts-sdk-low-level,fastmcp",
            ),
            sessions: counts("PEERS_BENCH_SESSIONS", "100,1000"),
            switch_rounds: env_usize("PEERS_BENCH_SWITCH_ROUNDS", 4).max(1),
            settle: Duration::from_millis(env_usize("PEERS_BENCH_SETTLE_MS", 300) as u64),
            threads: env_usize("PEERS_BENCH_SERVER_THREADS", 1).max(1),
            pin: env_usize("PEERS_BENCH_PIN", 0) != 0,
        }
    }
}

/// How to start each server.
struct Launcher {
    peers: Vec<(String, Vec<String>)>,
    tools_file: String,
    threads: usize,
    pin: bool,
}

impl Launcher {
    /// Starts `name`; `switching`: for the switch rows (FastMCP then
    /// remembers its sessions, a middleware on every message).
    fn spawn(&self, name: &str, switching: bool) -> ServerProcess {
        let ours = |profile: &str, switch_to: Option<&str>| {
            let mut args: Vec<String> = ["profiled", "--http", "127.0.0.1:0", "--profile", profile]
                .map(str::to_owned)
                .into();
            args.extend(["--threads".to_owned(), self.threads.to_string()]);
            if let Some(other) = switch_to {
                args.extend(["--switch-to".to_owned(), other.to_owned()]);
            }
            args
        };
        let (program, mut args) = match name {
            "ours" => (
                env!("CARGO_BIN_EXE_e2e-server").to_owned(),
                ours(PROFILE, Some(OTHER)),
            ),
            "ours-other" => (
                env!("CARGO_BIN_EXE_e2e-server").to_owned(),
                ours(OTHER, None),
            ),
            peer => {
                let key = if peer.starts_with("ts-sdk") {
                    "ts"
                } else {
                    peer
                };
                let (_, command) = (self.peers.iter())
                    .find(|(name, _)| name == key)
                    .unwrap_or_else(|| panic!("{peer} is not installed"));
                (command[0].clone(), command[1..].to_vec())
            }
        };
        if name != "ours" && name != "ours-other" {
            args.extend(["--tools".to_owned(), self.tools_file.clone()]);
        }
        match name {
            "ts-sdk-debounced" => args.push("--debounce".to_owned()),
            "ts-sdk-low-level" => args.push("--low-level".to_owned()),
            "fastmcp" if switching => args.push("--switchable".to_owned()),
            _ => {}
        }
        ServerProcess::spawn(name, &program, &args, self.pin)
    }
}

fn main() {
    let config = Config::from_env();
    let wanted: Vec<&str> = (config.load_servers.iter())
        .chain(&config.switch_servers)
        .filter_map(|name| match name.as_str() {
            "ts-sdk" | "ts-sdk-debounced" | "ts-sdk-low-level" => Some("ts"),
            "fastmcp" => Some("fastmcp"),
            _ => None,
        })
        .fold(Vec::new(), |mut all, peer| {
            if !all.contains(&peer) {
                all.push(peer);
            }
            all
        });
    let peers = servers::install(&wanted);
    if config.pin {
        pin_self();
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    // Both profiles' tools, listed by our server, for the peers to load.
    let (listed, call_result) = runtime.block_on(async {
        let launcher = Launcher {
            peers: Vec::new(),
            tools_file: String::new(),
            threads: 1,
            pin: false,
        };
        let mut listed = Vec::new();
        let mut call_result = Value::Null;
        for name in ["ours", "ours-other"] {
            let server = launcher.spawn(name, false);
            let mut client = Client::connect(&server.uri, Era::Legacy, TOOL).await;
            listed.push(client.tools().await);
            if name == "ours" {
                call_result = client.result(Op::Call).await;
            }
            client.close().await;
        }
        (listed, call_result)
    });
    let names: [Vec<String>; 2] = [0, 1].map(|i| {
        let mut names: Vec<String> = listed[i]
            .iter()
            .map(|tool| tool["name"].as_str().expect("a name").to_owned())
            .collect();
        names.sort();
        names
    });
    assert_ne!(names[0], names[1], "the two profiles list the same tools");
    let tools_file = results::write(
        "peers-tools",
        &json!({ "profiles": listed, "call_result": call_result }),
    )
    .expect("writing the tools file")
    .display()
    .to_string();
    let versions = versions(&peers);
    let launcher = Launcher {
        peers,
        tools_file,
        threads: config.threads,
        pin: config.pin,
    };
    println!(
        "profiles {PROFILE} ({} tools) <-> {OTHER} ({} tools); tools/call {TOOL}",
        names[0].len(),
        names[1].len()
    );
    let load = runtime.block_on(load_phase(&config, &launcher, &listed[0]));
    drop(runtime);
    // Many sessions' clients: a runtime on every core, as the fanout bench.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let switch = runtime.block_on(switch_phase(&config, &launcher, &names));
    let results = json!({
        "bench": "peers",
        "profiles": [PROFILE, OTHER],
        "tools": [names[0].len(), names[1].len()],
        "tool": TOOL,
        "versions": versions,
        "config": {
            "requests": config.requests, "rounds": config.rounds, "warmup": config.warmup,
            "clients": config.clients, "load_servers": config.load_servers,
            "switch_servers": config.switch_servers, "sessions": config.sessions,
            "switch_rounds": config.switch_rounds, "settle_ms": config.settle.as_millis() as u64,
            "server_threads": config.threads, "pinned": config.pin,
        },
        "load": load,
        "switch": switch,
    });
    match results::write("peers", &results) {
        Ok(path) => println!("results: {}", path.display()),
        Err(error) => eprintln!("cannot write the results: {error}"),
    }
}

fn spread_of<T>(samples: &[T], f: impl Fn(&T) -> f64) -> Spread {
    Spread::of(&samples.iter().map(f).collect::<Vec<_>>())
}

async fn load_phase(config: &Config, launcher: &Launcher, ours: &[Value]) -> Value {
    if config.load_servers.len() < 2 {
        return json!({"cells": [], "bytes": {}});
    }
    let servers: Vec<ServerProcess> = (config.load_servers.iter())
        .map(|name| launcher.spawn(name, false))
        .collect();
    // The same tools on every side, and what each answer weighs.
    let mut bytes = serde_json::Map::new();
    for server in &servers {
        let mut client = Client::connect(&server.uri, Era::Legacy, TOOL).await;
        let listed = client.tools().await;
        if let Err(difference) = parity::same_tools(ours, &listed, &server.name) {
            panic!("{} serves other tools than ours: {difference}", server.name);
        }
        let list = client.response_bytes(Op::List).await;
        let call = client.response_bytes(Op::Call).await;
        client.close().await;
        println!(
            "{:<17} serves the same {} tools; response bytes: tools/list {list}, tools/call {call}",
            server.name,
            listed.len()
        );
        bytes.insert(
            server.name.clone(),
            json!({"tools/list": list, "tools/call": call}),
        );
    }
    let tools = ours.len();
    let mut cells = Vec::new();
    for op in [Op::List, Op::Call] {
        for &clients in &config.clients {
            let uris: Vec<&str> = servers.iter().map(|server| server.uri.as_str()).collect();
            let rounds = Rounds {
                warmup: config.warmup,
                requests: config.requests,
                rounds: config.rounds,
            };
            let samples = interleaved(&uris, Era::Legacy, (op, TOOL), clients, rounds, tools).await;
            let mut by_server = serde_json::Map::new();
            let mut vs_ours = serde_json::Map::new();
            for (index, server) in servers.iter().enumerate() {
                let mine = &samples[index];
                let (p50, p99, rps) = (
                    spread_of(mine, |s| s.p50_us),
                    spread_of(mine, |s| s.p99_us),
                    spread_of(mine, |s| s.rps),
                );
                println!(
                    "{:<10} x{clients:<2} {:<17} p50 {:>8.1} us  p99 {:>8.1} us  {:>7.0} req/s",
                    op.method(),
                    server.name,
                    p50.median,
                    p99.median,
                    rps.median
                );
                by_server.insert(
                    server.name.clone(),
                    json!({"p50_us": p50, "p99_us": p99, "rps": rps}),
                );
                if index > 0 {
                    let ratio = |f: fn(&Sample) -> f64| {
                        let values: Vec<f64> = (mine.iter().zip(&samples[0]))
                            .map(|(a, b)| f(a) / f(b))
                            .collect();
                        Spread::of(&values)
                    };
                    vs_ours.insert(
                        server.name.clone(),
                        json!({"p50": ratio(|s| s.p50_us), "p99": ratio(|s| s.p99_us),
                               "rps": ratio(|s| s.rps)}),
                    );
                }
            }
            cells.push(json!({
                "era": Era::Legacy.version(), "op": op.method(), "clients": clients,
                "servers": by_server, "vs_ours": vs_ours,
            }));
        }
    }
    json!({"cells": cells, "bytes": bytes})
}

async fn switch_phase(
    config: &Config,
    launcher: &Launcher,
    names: &[Vec<String>; 2],
) -> Vec<Value> {
    if config.switch_servers.is_empty() {
        return Vec::new();
    }
    let mut cases = Vec::new();
    for &sessions in &config.sessions {
        println!("== switch, {sessions} sessions per server");
        // Fresh servers per size: no sessions left over from the last one.
        let mut servers: Vec<ServerProcess> = (config.switch_servers.iter())
            .map(|name| launcher.spawn(name, true))
            .collect();
        let mut sides = Vec::new();
        for server in &servers {
            sides.push(switch::Side::connect(server, sessions, names.clone()).await);
        }
        // Let every session's GET stream open.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let mut cannot: Vec<Option<String>> = vec![None; servers.len()];
        let mut warm = Vec::new();
        for (index, (server, side)) in servers.iter_mut().zip(&mut sides).enumerate() {
            let sample = side.switch(server, config.settle).await;
            if sample.max_notifications > 1 {
                cannot[index] = Some(format!(
                    "{}..{} list_changed per session per switch",
                    sample.min_notifications, sample.max_notifications
                ));
            }
            warm.push(sample);
        }
        let mut samples: Vec<Vec<switch::Sample>> = vec![Vec::new(); servers.len()];
        for round in 0..config.switch_rounds {
            let mut order: Vec<usize> = (0..servers.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for index in order {
                if cannot[index].is_some() {
                    continue;
                }
                tokio::time::sleep(config.settle).await;
                let sample = sides[index]
                    .switch(&mut servers[index], config.settle)
                    .await;
                if sample.max_notifications != 1 || sample.min_notifications != 1 {
                    cannot[index] = Some(format!(
                        "{}..{} list_changed per session per switch",
                        sample.min_notifications, sample.max_notifications
                    ));
                }
                samples[index].push(sample);
            }
        }
        let mut by_server = serde_json::Map::new();
        let mut vs_ours = serde_json::Map::new();
        for (index, server) in servers.iter().enumerate() {
            let mine = &samples[index];
            let relisted = spread_of(mine, |s| s.relisted_us);
            let heard = spread_of(mine, |s| s.heard_us);
            match &cannot[index] {
                Some(why) => println!(
                    "  {:<17} cannot: {why} (one unmeasured switch: re-listed after {:.1} ms)",
                    server.name,
                    warm[index].relisted_us / 1000.0
                ),
                None => println!(
                    "  {:<17} switch -> re-listed {:>9.2} ms ({:.2}..{:.2}), last list_changed {:>9.2} ms",
                    server.name,
                    relisted.median / 1000.0,
                    relisted.min / 1000.0,
                    relisted.max / 1000.0,
                    heard.median / 1000.0
                ),
            }
            let fine = cannot[index].is_none();
            by_server.insert(
                server.name.clone(),
                json!({
                    "relisted_us": fine.then_some(relisted),
                    "heard_us": fine.then_some(heard),
                    "notifications_per_switch": [
                        warm[index].min_notifications, warm[index].max_notifications
                    ],
                    "cannot": cannot[index],
                    "warm_up": {"relisted_us": warm[index].relisted_us,
                                "heard_us": warm[index].heard_us},
                    "samples": mine.iter().map(|s| json!({
                        "relisted_us": s.relisted_us, "heard_us": s.heard_us,
                        "notifications": [s.min_notifications, s.max_notifications],
                    })).collect::<Vec<_>>(),
                }),
            );
            if index > 0 && fine && cannot[0].is_none() {
                let values: Vec<f64> = (mine.iter().zip(&samples[0]))
                    .map(|(a, b)| a.relisted_us / b.relisted_us)
                    .collect();
                vs_ours.insert(server.name.clone(), json!(Spread::of(&values)));
            }
        }
        for side in sides {
            side.close().await;
        }
        drop(servers);
        cases.push(json!({"sessions": sessions, "servers": by_server, "vs_ours": vs_ours}));
    }
    cases
}

/// The versions the peers ran: the pinned packages and their runtimes, as
/// the installed interpreters report them.
fn versions(peers: &[(String, Vec<String>)]) -> Value {
    let ask = |program: &str, args: &[&str]| {
        std::process::Command::new(program)
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let mut versions = json!({
        "ts-sdk": servers::pinned("TS_SDK"),
        "fastmcp": servers::pinned("FASTMCP"),
    });
    for (name, command) in peers {
        match name.as_str() {
            "ts" => versions["node"] = json!(ask(&command[0], &["--version"])),
            "fastmcp" => {
                let script = "import sys, importlib.metadata as m\n\
                    print(sys.version.split()[0], *(m.version(p) for p in \
                    ('uvicorn', 'uvloop', 'httptools')))";
                let found = ask(&command[0], &["-c", script]).unwrap_or_default();
                let mut words = found.split_whitespace();
                for key in ["python", "uvicorn", "uvloop", "httptools"] {
                    versions[key] = json!(words.next());
                }
            }
            _ => {}
        }
    }
    versions
}

/// Pins this process (every thread) to CPU 0.
fn pin_self() {
    let status = std::process::Command::new("taskset")
        .args(["-a", "-c", "-p", "0", &std::process::id().to_string()])
        .stdout(std::process::Stdio::null())
        .status();
    assert!(
        status.is_ok_and(|status| status.success()),
        "taskset could not pin the generator"
    );
}
