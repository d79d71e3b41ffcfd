//! Timed harness (not criterion: a round is up to seconds of real session
//! traffic): `notifications/tools/list_changed` fan-out to many connected
//! rmcp sessions, and every session listing its tools again, for
//! mcp-profiles against the rmcp-native alternative.
//!
//! - **mcp-profiles**: all sessions serve one `ProfileController<Kandev>`
//!   (one `controller.server(Kandev::demo())`, cloned per session, as
//!   `kandev-mcp serve` does); a change is `controller.replace(context)`.
//! - **rmcp**: each session's server holds its own `ToolRouter<Kandev>` behind
//!   an `ArcSwap` (`mcp_profiles_bench::per_session`); a change rebuilds every
//!   session's router with `native_router` and sends each peer a
//!   list_changed from a task of its own.
//!
//! Changes alternate between two Kandev contexts with different tool sets.
//! Every client is a lean 2025-era rmcp client (`relisting::Relister`) that
//! counts the notification and re-lists (`tools/list`), as real clients do.
//! **The clients run in the same process, on the same cores**: every figure
//! includes the client side of N sessions (parsing the notification and the
//! list), which weighs on both sides alike.
//!
//! Per configuration (transport, N sessions), both sides are connected at
//! once; after one unmeasured change per side, `FANOUT_ROUNDS` rounds run
//! the sides interleaved (A B, B A, ...), each change after a settle. Per
//! change: `change` = the call (`replace` / the rebuild-and-notify loop);
//! `heard` / `relisted` = from the start of the change to the last session's
//! `on_tool_list_changed` / the last re-list answered; `*_after_return` = the
//! same from the call returning. The harness fails loudly unless every
//! session heard exactly one notification per change and every re-list
//! returned the new profile's tools.
//!
//! ```sh
//! cargo bench -p mcp-profiles-bench --bench fanout
//! # smoke: FANOUT_SIZES=200 FANOUT_HTTP_SIZES=200 FANOUT_ROUNDS=2
//! ```
//!
//! Env: `FANOUT_SIZES` (in-process sizes, default `1000,10000`),
//! `FANOUT_HTTP_SIZES` (streamable HTTP on 127.0.0.1, default `1000`; empty
//! skips), `FANOUT_ROUNDS` (default 6), `FANOUT_SETTLE_MS` (default 300),
//! `FANOUT_RELIST` (default 1; 0 = clients only count, to time delivery
//! without the re-lists competing for the cores; `relisted` then equals
//! `heard`; written to `fanout-delivery.json` instead).
//!
//! Writes `target/bench-results/fanout.json`; times in microseconds:
//!
//! ```text
//! { "bench": "fanout", "schema": 1, "rounds": R, "settle_ms": n,
//!   "clients_in_process": true, "relist": true, "cpus": n,
//!   "contexts": [{"context": "...", "tools": n}, {...}],
//!   "cases": [{
//!     "transport": "in-process" | "http", "sessions": N,
//!     "sides": { "mcp-profiles" | "rmcp": {
//!       "samples": [{"round": i, "change_us", "heard_us", "relisted_us",
//!                    "heard_after_return_us", "relisted_after_return_us"}],
//!       "median_us": {<measure>: x}, "per_session_us": {<measure>: x / N} } },
//!     "ratio": {<measure>: {"median", "min", "max"}} }],  // rmcp / mcp-profiles, per round
//!   "linearity": [{"transport", "side", "measure", "from", "to",
//!                  "per_session_growth"}] }  // per-session cost at `to` / at `from`
//! ```

mod sides;

use std::time::Duration;

use kandev_mcp::Kandev;
use mcp_profiles::{ProfileContext, Vocabulary};
use mcp_profiles_bench::results::{Spread, env_list, env_usize, write};
use serde_json::{Value, json};
use sides::{MEASURES, Sample, Side, Transport};

fn sizes(name: &str, default: &str) -> Vec<usize> {
    env_list(name, default)
        .iter()
        .map(|part| {
            part.parse()
                .unwrap_or_else(|_| panic!("{name}: `{part}` is not a session count"))
        })
        .collect()
}

fn tools_of(context: &ProfileContext<Kandev>) -> usize {
    Kandev::registry().assemble(context).tool_names().len()
}

fn main() {
    let in_process = sizes("FANOUT_SIZES", "1000,10000");
    let http = sizes("FANOUT_HTTP_SIZES", "1000");
    let rounds = env_usize("FANOUT_ROUNDS", 6);
    let settle = Duration::from_millis(env_usize("FANOUT_SETTLE_MS", 300) as u64);
    let relist = env_usize("FANOUT_RELIST", 1) != 0;
    assert!(rounds > 0, "FANOUT_ROUNDS: at least one round");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let contexts = mcp_profiles_bench::kandev_contexts();
    let tools = contexts.map(|context| tools_of(&context));
    assert_ne!(tools[0], tools[1], "the two profiles list as many tools");
    println!(
        "list_changed fan-out: {rounds} rounds per side, interleaved; clients in this process, \
         {}\n\
         contexts: {} ({} tools) <-> {} ({} tools)\n",
        if relist {
            "re-listing on each notification"
        } else {
            "NOT re-listing"
        },
        contexts[0],
        tools[0],
        contexts[1],
        tools[1]
    );
    let configurations = in_process
        .iter()
        .map(|&n| (Transport::InProcess, n))
        .chain(http.iter().map(|&n| (Transport::Http, n)));
    let mut cases = Vec::new();
    for (transport, sessions) in configurations {
        let case = runtime.block_on(run_case(
            transport, sessions, rounds, settle, contexts, relist,
        ));
        cases.push(case);
    }
    let linearity = linearity(&cases);
    let results = json!({
        "bench": "fanout",
        "schema": 1,
        "rounds": rounds,
        "settle_ms": settle.as_millis() as u64,
        "clients_in_process": true,
        "relist": relist,
        "cpus": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "contexts": contexts.iter().zip(tools).map(|(context, tools)| {
            json!({"context": context.to_string(), "tools": tools})
        }).collect::<Vec<_>>(),
        "cases": cases,
        "linearity": linearity,
    });
    // A delivery-only run does not overwrite the main results.
    let file = if relist { "fanout" } else { "fanout-delivery" };
    match write(file, &results) {
        Ok(path) => println!("\nresults: {}", path.display()),
        Err(error) => panic!("writing the results: {error}"),
    }
}

async fn run_case(
    transport: Transport,
    sessions: usize,
    rounds: usize,
    settle: Duration,
    contexts: [ProfileContext<Kandev>; 2],
    relist: bool,
) -> Value {
    let label = transport.label();
    println!("== {label}, {sessions} sessions per side");
    let mut sides = [
        Side::profiles(transport, sessions, contexts, relist).await,
        Side::routers(transport, sessions, contexts, relist).await,
    ];
    for side in &mut sides {
        side.warm_up(settle).await;
    }
    let mut samples: [Vec<Sample>; 2] = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        let order = if round.is_multiple_of(2) {
            [0, 1]
        } else {
            [1, 0]
        };
        for index in order {
            tokio::time::sleep(settle).await;
            samples[index].push(sides[index].change().await);
        }
    }
    tokio::time::sleep(settle).await;
    for side in &sides {
        side.check_final();
    }
    let case = summarise(label, sessions, &samples, &sides);
    for side in sides {
        side.close().await;
    }
    tokio::time::sleep(settle).await;
    case
}

/// Prints the case's table and returns its JSON.
fn summarise(label: &str, sessions: usize, samples: &[Vec<Sample>; 2], sides: &[Side; 2]) -> Value {
    let per_session = |us: f64| us / sessions as f64;
    println!(
        "  {:<26} {:>14} {:>14} {:>12} {:>12} {:>22}",
        "measure (median)",
        "mcp-profiles",
        "rmcp",
        "mcp-p / sess",
        "rmcp / sess",
        "rmcp ÷ mcp-p (min..max)"
    );
    let mut ratios = serde_json::Map::new();
    for (measure, get) in MEASURES {
        let values = |side: usize| samples[side].iter().map(get).collect::<Vec<f64>>();
        let (ours, theirs) = (Spread::of(&values(0)).median, Spread::of(&values(1)).median);
        let pairs: Vec<f64> = values(1)
            .iter()
            .zip(values(0))
            .map(|(rmcp, ours)| rmcp / ours)
            .collect();
        let Spread {
            median: ratio,
            min: low,
            max: high,
        } = Spread::of(&pairs);
        println!(
            "  {measure:<26} {:>11.2} ms {:>11.2} ms {:>9.2} µs {:>9.2} µs {:>9.2}× ({low:.2}..{high:.2})",
            ours / 1000.0,
            theirs / 1000.0,
            per_session(ours),
            per_session(theirs),
            ratio,
        );
        ratios.insert(
            measure.to_owned(),
            json!({"median": ratio, "min": low, "max": high}),
        );
    }
    let side_json = |index: usize| {
        let mut medians = serde_json::Map::new();
        let mut per = serde_json::Map::new();
        for (measure, get) in MEASURES {
            let values: Vec<f64> = samples[index].iter().map(get).collect();
            let median = Spread::of(&values).median;
            medians.insert(measure.to_owned(), json!(median));
            per.insert(measure.to_owned(), json!(per_session(median)));
        }
        json!({
            "samples": samples[index].iter().map(Sample::to_json).collect::<Vec<_>>(),
            "median_us": medians,
            "per_session_us": per,
        })
    };
    json!({
        "transport": label,
        "sessions": sessions,
        "sides": { sides[0].name(): side_json(0), sides[1].name(): side_json(1) },
        "ratio": ratios,
    })
}

/// Per-session cost at each size against the smallest size of the same
/// transport, per side and measure; printed and returned as JSON.
fn linearity(cases: &[Value]) -> Vec<Value> {
    let mut rows = Vec::new();
    for transport in [Transport::InProcess, Transport::Http] {
        let of: Vec<&Value> = cases
            .iter()
            .filter(|case| case["transport"] == transport.label())
            .collect();
        let Some(smallest) = of.iter().min_by_key(|case| case["sessions"].as_u64()) else {
            continue;
        };
        for case in of
            .iter()
            .filter(|case| case["sessions"] != smallest["sessions"])
        {
            println!(
                "\nlinearity, {}: per-session cost at {} sessions ÷ at {} (1.0 = linear)",
                transport.label(),
                case["sessions"],
                smallest["sessions"]
            );
            for side in ["mcp-profiles", "rmcp"] {
                for (measure, _) in MEASURES {
                    let cost = |c: &Value| c["sides"][side]["per_session_us"][measure].as_f64();
                    let (Some(to), Some(from)) = (cost(case), cost(smallest)) else {
                        continue;
                    };
                    let growth = to / from;
                    println!("  {side:<13} {measure:<26} {growth:>6.2}");
                    rows.push(json!({
                        "transport": transport.label(),
                        "side": side,
                        "measure": measure,
                        "from": smallest["sessions"],
                        "to": case["sessions"],
                        "per_session_growth": growth,
                    }));
                }
            }
        }
    }
    rows
}
