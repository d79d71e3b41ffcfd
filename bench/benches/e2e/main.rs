//! End to end over streamable HTTP: Kandev through mcp-profiles against a
//! plain rmcp server with exactly the same tools, under load.
//!
//! Timed harness (`harness = false`): each server is a child process (the
//! package's `e2e-server` binary) on 127.0.0.1; this process is the load
//! generator. Servers:
//!
//! - `profiled`: `ProfiledServer<Kandev>` on the demo board, profile
//!   [`PROFILE`], served by `mcp_profiles_serve::http::Serve::one` as
//!   `kandev-mcp serve --http` serves it;
//! - `plain`: `mcp_profiles_bench::plain::Plain`, the same profile's tools in
//!   an rmcp `ToolRouter` behind what `#[tool_handler]` expands to, on rmcp's
//!   `StreamableHttpService` **through the same listener**
//!   (`mcp_profiles_serve::http::Serve::app`): the two differ only in the MCP
//!   handler, which is what the comparison is about;
//! - `plain-axum` (opt in with `E2E_BENCH_SERVERS`): `plain` on
//!   `axum::serve`, as rmcp's examples serve it, to see what our listener
//!   (connection cap, timers, in-flight counting) costs against axum's.
//!
//! Cells: both protocol eras (2025-11-25 sessions: `initialize`, then
//! requests with `Mcp-Session-Id`; 2026-07-28: stateless POSTs with the
//! `_meta` client context) × `tools/list` and `tools/call` of [`TOOL`] (it
//! reads the demo board) × 1, 8 and 32 concurrent clients, each on its own
//! keep-alive connection. Per cell: a warm-up on every server, then
//! `E2E_BENCH_ROUNDS` rounds, the servers' order alternating A B, B A, ...;
//! in each, every server answers `E2E_BENCH_REQUESTS` requests (2025-era
//! sessions are opened before and closed after, untimed). Per round and
//! server: p50 and p99 latency and requests/s; per cell, the median over
//! rounds of the per-round ratio against `plain`, with its min..max.
//!
//! Cores (2 on the reference machine): the generator runs on one thread
//! (a current-thread runtime); each server runs a tokio runtime of
//! `E2E_BENCH_SERVER_THREADS` workers (default 1), and only one server is
//! loaded at a time, so generator and server get about a core each. With
//! `E2E_BENCH_PIN=1` the generator is pinned to CPU 0 and the servers to
//! CPU 1 with `taskset`. At 32 clients the one-thread generator may be the
//! bottleneck, which dilutes (never inflates) a server difference in rps.
//!
//! Also measured in process (`E2E_BENCH_INPROC_ITERS` calls per side per
//! round): the `ServerHandler::list_tools` / `call_tool` of both servers,
//! so the HTTP figures can be read against what our layer adds per request.
//!
//! Env (defaults are the full run): `E2E_BENCH_REQUESTS` (10000),
//! `E2E_BENCH_ROUNDS` (6), `E2E_BENCH_WARMUP` (2000), `E2E_BENCH_CLIENTS`
//! (`1,8,32`), `E2E_BENCH_SERVERS` (`profiled,plain`; the first listed is
//! compared against `plain`, as is every other), `E2E_BENCH_SERVER_THREADS`
//! (1), `E2E_BENCH_PIN` (0), `E2E_BENCH_INPROC_ITERS` (100000).
//!
//! Output: a table, and `target/bench-results/e2e.json`:
//!
//! ```text
//! { "bench": "e2e", "profile": JSON string, "tool": name, "tools_listed": n,
//!   "config": { requests, rounds, warmup, clients: [..], servers: [..],
//!               server_threads, pinned, inproc_iters },
//!   "cells": [ { "era": "2025-11-25" | "2026-07-28",
//!                "op": "tools/list" | "tools/call", "clients": n,
//!                "servers": { NAME: { "p50_us": Spread, "p99_us": Spread,
//!                                     "rps": Spread,
//!                                     "rounds": [ {p50_us, p99_us, rps} ] } },
//!                "vs_plain": { NAME: { "p50": Spread, "p99": Spread,
//!                                      "rps": Spread } } } ],
//!   "in_process": { "list_tools" | "call_tool": { "profiled_ns": Spread,
//!                   "plain_ns": Spread, "ratio": Spread, "added_us": Spread,
//!                   "profiled_ns_rounds": [..], "plain_ns_rounds": [..] } } }
//! ```
//! where `Spread` is `{ "median", "min", "max" }` over rounds, and a
//! `vs_plain` ratio is NAME / plain of that round (p50, p99: < 1 is faster;
//! rps: > 1 is faster).
//!
//! `cargo bench -p mcp-profiles-bench --bench e2e`

mod in_process;
mod servers;

use kandev_mcp::Kandev;
use mcp_profiles::ProfileContext;
use mcp_profiles_bench::load_client::{Client, Era, Op, Rounds, Sample, interleaved};
use mcp_profiles_bench::results::{self, Spread, env_list, env_usize};
use serde_json::json;
use servers::ServerProcess;

/// A coding agent that may ask the user: 38 tools of Kandev's catalog at
/// this commit.
pub const PROFILE: &str = r#"{"surface":"kanban-task","capabilities":["user-question"]}"#;
/// A cheap tool with no arguments: it reads the demo board's workspaces.
pub const TOOL: &str = "list_workspaces_kandev";

struct Config {
    requests: usize,
    rounds: usize,
    warmup: usize,
    clients: Vec<usize>,
    servers: Vec<String>,
    threads: usize,
    pin: bool,
    inproc_iters: usize,
}

impl Config {
    fn from_env() -> Config {
        let clients = env_list("E2E_BENCH_CLIENTS", "1,8,32")
            .iter()
            .map(|n| {
                n.parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .unwrap_or_else(|| panic!("E2E_BENCH_CLIENTS: `{n}` is not a positive count"))
            })
            .collect();
        let servers = env_list("E2E_BENCH_SERVERS", "profiled,plain");
        for server in &servers {
            assert!(
                ["profiled", "plain", "plain-axum"].contains(&server.as_str()),
                "E2E_BENCH_SERVERS: unknown server `{server}` (profiled, plain, plain-axum)"
            );
        }
        assert!(
            servers.iter().any(|s| s == "plain") && servers.len() >= 2,
            "E2E_BENCH_SERVERS must list plain and at least one other server"
        );
        Config {
            requests: env_usize("E2E_BENCH_REQUESTS", 10_000).max(1),
            rounds: env_usize("E2E_BENCH_ROUNDS", 6).max(1),
            warmup: env_usize("E2E_BENCH_WARMUP", 2_000),
            clients,
            servers,
            threads: env_usize("E2E_BENCH_SERVER_THREADS", 1).max(1),
            pin: env_usize("E2E_BENCH_PIN", 0) != 0,
            inproc_iters: env_usize("E2E_BENCH_INPROC_ITERS", 100_000).max(1),
        }
    }
}

struct Cell {
    era: Era,
    op: Op,
    clients: usize,
    /// Per server (in config order), per round.
    samples: Vec<Vec<Sample>>,
}

fn main() {
    let config = Config::from_env();
    let context = ProfileContext::<Kandev>::from_json(PROFILE).expect("a valid profile");
    let servers: Vec<ServerProcess> = config
        .servers
        .iter()
        .map(|name| ServerProcess::spawn(name, PROFILE, config.threads, config.pin))
        .collect();
    if config.pin {
        servers::pin_self();
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (tools, in_process, cells) = runtime.block_on(async {
        let tools = same_tools(&servers).await;
        println!(
            "profile {PROFILE}: {tools} tools on every server; tools/call {TOOL}; {} requests x {} rounds per cell and server",
            config.requests, config.rounds
        );
        let in_process =
            in_process::measure(context, TOOL, config.inproc_iters, config.rounds).await;
        let mut cells = Vec::new();
        for era in [Era::Legacy, Era::Modern] {
            for op in [Op::List, Op::Call] {
                for &clients in &config.clients {
                    cells.push(cell(&config, &servers, era, op, clients, tools).await);
                }
            }
        }
        (tools, in_process, cells)
    });
    drop(servers);
    report(&config, tools, &in_process, &cells);
}

/// Every server lists the same tools, in both eras; their count.
async fn same_tools(servers: &[ServerProcess]) -> usize {
    let mut reference: Option<Vec<String>> = None;
    for server in servers {
        for era in [Era::Legacy, Era::Modern] {
            let mut client = Client::connect(&server.uri, era, TOOL).await;
            let names = client.tool_names().await;
            client.close().await;
            assert!(names.iter().any(|name| name == TOOL), "{TOOL} is listed");
            match &reference {
                None => reference = Some(names),
                Some(reference) => assert_eq!(
                    &names, reference,
                    "{} lists other tools ({era:?})",
                    server.name
                ),
            }
        }
    }
    reference.map_or(0, |names| names.len())
}

async fn cell(
    config: &Config,
    servers: &[ServerProcess],
    era: Era,
    op: Op,
    clients: usize,
    tools: usize,
) -> Cell {
    let uris: Vec<&str> = servers.iter().map(|server| server.uri.as_str()).collect();
    let rounds = Rounds {
        warmup: config.warmup,
        requests: config.requests,
        rounds: config.rounds,
    };
    let samples = interleaved(&uris, era, (op, TOOL), clients, rounds, tools).await;
    let cell = Cell {
        era,
        op,
        clients,
        samples,
    };
    print_cell(config, &cell);
    cell
}

fn plain_index(config: &Config) -> usize {
    config.servers.iter().position(|s| s == "plain").unwrap()
}

/// `name`'s per-round ratios to plain: p50, p99, rps.
fn ratios(config: &Config, cell: &Cell, index: usize) -> [Spread; 3] {
    let plain = &cell.samples[plain_index(config)];
    let mine = &cell.samples[index];
    let of = |f: fn(&Sample) -> f64| {
        let values: Vec<f64> = mine.iter().zip(plain).map(|(a, b)| f(a) / f(b)).collect();
        Spread::of(&values)
    };
    [of(|s| s.p50_us), of(|s| s.p99_us), of(|s| s.rps)]
}

fn medians(samples: &[Sample]) -> [Spread; 3] {
    let of = |f: fn(&Sample) -> f64| Spread::of(&samples.iter().map(f).collect::<Vec<_>>());
    [of(|s| s.p50_us), of(|s| s.p99_us), of(|s| s.rps)]
}

fn print_cell(config: &Config, cell: &Cell) {
    let label = format!(
        "{} {:<10} x{:<2}",
        cell.era.version(),
        cell.op.method(),
        cell.clients
    );
    for (index, name) in config.servers.iter().enumerate() {
        let [p50, p99, rps] = medians(&cell.samples[index]);
        let versus = if name == "plain" {
            String::new()
        } else {
            let [r50, _, rrps] = ratios(config, cell, index);
            format!(
                "  /plain p50 {:.3} ({:.3}..{:.3}) rps {:.3} ({:.3}..{:.3})",
                r50.median, r50.min, r50.max, rrps.median, rrps.min, rrps.max
            )
        };
        println!(
            "{label} {name:<10} p50 {:>8.1} us  p99 {:>8.1} us  {:>8.0} req/s{versus}",
            p50.median, p99.median, rps.median
        );
    }
}

fn report(config: &Config, tools: usize, in_process: &in_process::InProcess, cells: &[Cell]) {
    println!();
    for (name, pair) in [
        ("list_tools", &in_process.list),
        ("call_tool", &in_process.call),
    ] {
        let (a, b, added) = (
            Spread::of(&pair.profiled),
            Spread::of(&pair.plain),
            pair.added_us(),
        );
        println!(
            "in process {name:<10}: profiled {:.2} us, plain {:.2} us, ours adds {:.2} us ({:.2}..{:.2}), ratio {:.3}",
            a.median / 1000.0,
            b.median / 1000.0,
            added.median,
            added.min,
            added.max,
            pair.ratio().median
        );
    }
    // Our in-process share of each 1-client round trip.
    for cell in cells.iter().filter(|cell| cell.clients == 1) {
        let pair = match cell.op {
            Op::List => &in_process.list,
            Op::Call => &in_process.call,
        };
        let (added, whole) = (
            pair.added_us().median,
            Spread::of(&pair.profiled).median / 1000.0,
        );
        let p50 = medians(&cell.samples[plain_index(config)])[0].median;
        println!(
            "{} {}: at 1 client plain's HTTP p50 is {p50:.0} us; ProfiledServer's whole handler takes {whole:.2} us of it ({:.2}%), {added:+.2} us ({:+.2}%) against plain's",
            cell.era.version(),
            cell.op.method(),
            100.0 * whole / p50,
            100.0 * added / p50
        );
    }
    let cells_json: Vec<serde_json::Value> = cells
        .iter()
        .map(|cell| {
            let mut servers = serde_json::Map::new();
            let mut vs_plain = serde_json::Map::new();
            for (index, name) in config.servers.iter().enumerate() {
                let samples = &cell.samples[index];
                let [p50, p99, rps] = medians(samples);
                let rounds: Vec<_> = samples
                    .iter()
                    .map(|s| json!({"p50_us": s.p50_us, "p99_us": s.p99_us, "rps": s.rps}))
                    .collect();
                servers.insert(
                    name.clone(),
                    json!({"p50_us": p50, "p99_us": p99, "rps": rps, "rounds": rounds}),
                );
                if name != "plain" {
                    let [r50, r99, rrps] = ratios(config, cell, index);
                    vs_plain.insert(name.clone(), json!({"p50": r50, "p99": r99, "rps": rrps}));
                }
            }
            json!({
                "era": cell.era.version(),
                "op": cell.op.method(),
                "clients": cell.clients,
                "servers": servers,
                "vs_plain": vs_plain,
            })
        })
        .collect();
    let results = json!({
        "bench": "e2e",
        "profile": PROFILE,
        "tool": TOOL,
        "tools_listed": tools,
        "config": {
            "requests": config.requests,
            "rounds": config.rounds,
            "warmup": config.warmup,
            "clients": config.clients,
            "servers": config.servers,
            "server_threads": config.threads,
            "pinned": config.pin,
            "inproc_iters": config.inproc_iters,
        },
        "cells": cells_json,
        "in_process": {
            "list_tools": in_process.list.json(),
            "call_tool": in_process.call.json(),
        },
    });
    match results::write("e2e", &results) {
        Ok(path) => println!("results: {}", path.display()),
        Err(error) => eprintln!("cannot write the results: {error}"),
    }
}
