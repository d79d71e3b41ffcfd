//! Start-up: process start to the first `tools/list` answered over stdio.
//!
//! Timed harness (`harness = false`). Per spawn: start the process, write
//! `initialize`, `notifications/initialized` and `tools/list` (one line
//! each) to its stdin at once, and time until the `tools/list` response
//! line is read (and, on the way, the `initialize` response); then kill it.
//! Servers, interleaved in rounds (A B C, C B A, ...), `STARTUP_BENCH_PAIRS`
//! rounds (default 20) after 2 warm-up spawns each:
//!
//! - `kandev-mcp`: `kandev-mcp serve --stdio` with its embedded default
//!   profile (legacy mode `task`: `kanban-task` with `user-question`).
//!   Cargo gives a bench only its own package's binaries, so this package
//!   builds kandev-mcp's own `main.rs` as `kandev-mcp-bench` (same source,
//!   same library, release profile); `KANDEV_MCP_BIN` points at another
//!   build instead. Its time includes its CLI parsing, signal handlers and
//!   logging set-up.
//! - `profiled`: `e2e-server profiled --stdio`, this package's binary
//!   running what `kandev-mcp serve --stdio` runs (controller, server on the
//!   demo board, rmcp's stdio transport) without the CLI around it;
//! - `plain`: `e2e-server plain --stdio`, the same tools in a plain rmcp
//!   `ToolRouter` (`mcp_profiles_bench::plain`), same binary and runtime.
//!
//! `profiled` / `plain` is what the library costs at start-up;
//! `kandev-mcp` / `plain` what a user of the example feels.
//!
//! Also the registry's verification, reported separately: the first
//! `Kandev::registry()` of a fresh process (`e2e-server registry kandev`,
//! `STARTUP_BENCH_REGISTRY_RUNS` processes, default 20), and
//! `Registry::<Kandev>::linked()` repeated in this process (warm); and,
//! in fresh processes after the registry, the first build of what serves
//! the profile: a `ProfileController` or the plain `ToolRouter`. Built
//! with `--features synthetic`, the same for the 1,000- and 10,000-tool
//! synthetic registries.
//!
//! Output: a table, and `target/bench-results/startup.json`:
//!
//! ```text
//! { "bench": "startup",
//!   "config": { "pairs", "registry_runs", "synthetic": bool },
//!   "servers": { NAME: { "command": [argv..], "tools": n,
//!                        "first_list_ms": Spread, "initialize_ms": Spread,
//!                        "first_list_ms_rounds": [..] } },
//!   "vs_plain": { NAME: Spread },        // per-round first_list ratio
//!   "registry": { NAME: { "groups": n, "first_call_us": Spread,
//!                         "linked_warm_us": Spread,
//!                         "first_controller_us": Spread,
//!                         "first_router_us": Spread } } }
//! ```
//! where `Spread` is `{ "median", "min", "max" }` and NAME of a server is
//! `kandev-mcp`, `profiled` or `plain`, of a registry `kandev`,
//! `groups_100` or `groups_1000`.
//!
//! `cargo bench -p mcp-profiles-bench --bench startup`

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kandev_mcp::Kandev;
use mcp_profiles::Registry;
use mcp_profiles_bench::results::{self, Spread, env_usize};
use serde_json::json;

const SERVER: &str = env!("CARGO_BIN_EXE_e2e-server");

/// initialize, initialized and tools/list, one line each.
const SCRIPT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"startup-bench","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    "\n",
);

struct Server {
    name: &'static str,
    argv: Vec<String>,
    first_list: Vec<Duration>,
    initialize: Vec<Duration>,
    tools: usize,
}

impl Server {
    fn new(name: &'static str, argv: Vec<String>) -> Server {
        Server {
            name,
            argv,
            first_list: Vec::new(),
            initialize: Vec::new(),
            tools: 0,
        }
    }

    /// One spawn: (to the initialize response, to the tools/list response).
    fn spawn_once(&mut self) -> (Duration, Duration) {
        let started = Instant::now();
        let mut child = Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", self.argv[0]));
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(SCRIPT.as_bytes()).expect("the script");
        stdin.flush().expect("the script");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        let mut initialized = None;
        let listed = loop {
            line.clear();
            let read = stdout.read_line(&mut line).expect("a line");
            assert!(read > 0, "{} closed stdout before answering", self.name);
            if initialized.is_none() && line.contains(r#""id":1"#) {
                initialized = Some(started.elapsed());
            } else if line.contains(r#""id":2"#) {
                break started.elapsed();
            }
        };
        let _ = child.kill();
        let _ = child.wait();
        let response: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let tools = response["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no tools in {line}", self.name))
            .len();
        assert!(
            self.tools == 0 || self.tools == tools,
            "the tool count changed"
        );
        self.tools = tools;
        (
            initialized.expect("the initialize response came first"),
            listed,
        )
    }
}

/// The kandev-mcp binary: `KANDEV_MCP_BIN`, else kandev-mcp's `main.rs`
/// as built in this package.
fn kandev_mcp() -> PathBuf {
    match std::env::var_os("KANDEV_MCP_BIN") {
        Some(path) => {
            let path = PathBuf::from(path);
            assert!(
                path.is_file(),
                "KANDEV_MCP_BIN={} is not a file",
                path.display()
            );
            path
        }
        None => PathBuf::from(env!("CARGO_BIN_EXE_kandev-mcp-bench")),
    }
}

fn ms(samples: &[Duration]) -> Vec<f64> {
    samples.iter().map(|d| d.as_secs_f64() * 1e3).collect()
}

fn main() {
    let pairs = env_usize("STARTUP_BENCH_PAIRS", 20).max(1);
    let registry_runs = env_usize("STARTUP_BENCH_REGISTRY_RUNS", 20).max(1);
    let mut servers = vec![Server::new(
        "kandev-mcp",
        vec![
            kandev_mcp().display().to_string(),
            "serve".into(),
            "--stdio".into(),
        ],
    )];
    for name in ["profiled", "plain"] {
        servers.push(Server::new(
            name,
            vec![SERVER.into(), name.into(), "--stdio".into()],
        ));
    }
    for server in &mut servers {
        server.spawn_once();
        server.spawn_once();
    }
    for round in 0..pairs {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..servers.len()).collect()
        } else {
            (0..servers.len()).rev().collect()
        };
        for index in order {
            let server = &mut servers[index];
            let (initialize, listed) = server.spawn_once();
            server.initialize.push(initialize);
            server.first_list.push(listed);
        }
    }
    let tools = servers[0].tools;
    assert!(
        servers.iter().all(|server| server.tools == tools),
        "every server lists the same number of tools"
    );
    let plain = servers.iter().position(|s| s.name == "plain").unwrap();
    let plain_ms = ms(&servers[plain].first_list);
    let mut servers_json = serde_json::Map::new();
    let mut vs_plain = serde_json::Map::new();
    println!("start -> first tools/list over stdio ({tools} tools), {pairs} rounds:");
    for server in &servers {
        let first = ms(&server.first_list);
        let (list, init) = (Spread::of(&first), Spread::of(&ms(&server.initialize)));
        let ratio = Spread::of(
            &first
                .iter()
                .zip(&plain_ms)
                .map(|(a, b)| a / b)
                .collect::<Vec<_>>(),
        );
        println!(
            "  {:<10} {:>7.2} ms ({:.2}..{:.2}); initialize answered at {:.2} ms; /plain {:.3} ({:.3}..{:.3})",
            server.name,
            list.median,
            list.min,
            list.max,
            init.median,
            ratio.median,
            ratio.min,
            ratio.max
        );
        servers_json.insert(
            server.name.into(),
            json!({
                "command": server.argv,
                "tools": server.tools,
                "first_list_ms": list,
                "initialize_ms": init,
                "first_list_ms_rounds": first,
            }),
        );
        if server.name != "plain" {
            vs_plain.insert(server.name.into(), json!(ratio));
        }
    }
    let registry = registries(registry_runs);
    let results = json!({
        "bench": "startup",
        "config": {
            "pairs": pairs,
            "registry_runs": registry_runs,
            "synthetic": cfg!(feature = "synthetic"),
        },
        "servers": servers_json,
        "vs_plain": vs_plain,
        "registry": registry,
    });
    match results::write("startup", &results) {
        Ok(path) => println!("results: {}", path.display()),
        Err(error) => eprintln!("cannot write the results: {error}"),
    }
}

/// Each registry's first `registry()` in fresh processes, and `linked()`
/// repeated in this one.
fn registries(runs: usize) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    let mut names = vec!["kandev"];
    if cfg!(feature = "synthetic") {
        names.extend(["groups_100", "groups_1000"]);
    }
    println!("registry verification, {runs} runs:");
    for name in names {
        let mut first = Vec::new();
        let mut builds: [Vec<f64>; 2] = Default::default();
        let mut groups = 0;
        for _ in 0..runs {
            for (index, then) in ["controller", "router"].into_iter().enumerate() {
                let output = Command::new(SERVER)
                    .args(["registry", name, then])
                    .output()
                    .expect("e2e-server registry");
                let text = String::from_utf8_lossy(&output.stdout);
                let fields: Vec<&str> = text.split_whitespace().collect();
                let [nanos, count, build] = fields[..] else {
                    panic!("e2e-server registry {name} {then}: {text:?}");
                };
                first.push(nanos.parse::<f64>().unwrap() / 1e3);
                builds[index].push(build.parse::<f64>().unwrap() / 1e3);
                groups = count.parse().unwrap();
            }
        }
        let warm = linked_warm(name, runs);
        let (first, warm) = (Spread::of(&first), Spread::of(&warm));
        let [controller, router] = builds.map(|b| Spread::of(&b));
        println!(
            "  {name:<11} {groups:>4} groups: first registry() {:.1} us ({:.1}..{:.1}); linked() again {:.1} us; then the first ProfileController {:.1} us, or the plain ToolRouter {:.1} us",
            first.median, first.min, first.max, warm.median, controller.median, router.median
        );
        out.insert(
            name.into(),
            json!({
                "groups": groups,
                "first_call_us": first,
                "linked_warm_us": warm,
                "first_controller_us": controller,
                "first_router_us": router,
            }),
        );
    }
    serde_json::Value::Object(out)
}

/// `Registry::<S>::linked()` in this process, `runs` times, in µs.
fn linked_warm(name: &str, runs: usize) -> Vec<f64> {
    fn time<S: mcp_profiles::Vocabulary>(runs: usize) -> Vec<f64> {
        (0..runs)
            .map(|_| {
                let started = Instant::now();
                let registry = Registry::<S>::linked().expect("a valid registry");
                let elapsed = started.elapsed();
                drop(registry);
                elapsed.as_secs_f64() * 1e6
            })
            .collect()
    }
    match name {
        "kandev" => time::<Kandev>(runs),
        #[cfg(feature = "synthetic")]
        "groups_100" => time::<mcp_profiles_bench::synthetic::groups_100::Synth>(runs),
        #[cfg(feature = "synthetic")]
        "groups_1000" => time::<mcp_profiles_bench::synthetic::groups_1000::Synth>(runs),
        other => unreachable!("no registry {other}"),
    }
}
