//! An OAuth-validated MCP request against an opaque-token request, over
//! streamable HTTP; and token validation alone, in process.
//!
//! Timed harness (`harness = false`). One process, two servers on
//! 127.0.0.1 over the same `ProfileStore<TaskServer>` agent (principal
//! `alice`, profile [`PROFILE`]), both through `mcp_profiles_serve::http`'s
//! listener:
//!
//! - `opaque`: `Serve::agents`, requests bearing a token granted with
//!   `store.grant` (a hash-map lookup per request);
//! - `oauth`: `Serve::oauth` with `ClaimMapping::stored()` (alice's stored
//!   profile, no scope narrowing, no step-up scopes, so no body is read),
//!   requests bearing a JWT of `sub = alice` (ES256 unless
//!   `OAUTH_BENCH_ALG` says `RS256` or `EdDSA`) whose `aud` is that
//!   server's URI, validated against a live issuer's JWKS (fetched once by
//!   the warm-up, then cached), as `mcp_profiles_tests::oauth` mints them.
//!
//! The load: raw JSON-RPC POSTs (`mcp_profiles_bench::load_client`) in the
//! 2026-07-28 style — stateless, each request carrying its protocol version
//! and client context in `_meta`, so each is admitted and served on its own
//! with no session — of `tools/list` and of `tools/call` [`TOOL`] (a fixture
//! tool that echoes its argument), from one client per side on its own
//! keep-alive connection. Per op: `OAUTH_BENCH_WARMUP` requests per side,
//! then `OAUTH_BENCH_ROUNDS` rounds, the sides alternating A B, B A, ...;
//! each side sends `OAUTH_BENCH_REQUESTS` requests per round. Per round and
//! side: p50, p99 and requests/s; each round's pair gives the ratios
//! oauth ÷ opaque, reported as their median and min..max.
//!
//! Threads (2 cores on the reference machine): the servers (and the issuer)
//! run on a tokio runtime of `OAUTH_BENCH_SERVER_THREADS` workers (default
//! 1); the load generator on this thread (a current-thread runtime). Only
//! one side is loaded at a time, so generator and server get about a core
//! each.
//!
//! The HTTP load repeats one token, as an agent does for the token's
//! lifetime: after its first request the validator finds it among the JWTs
//! it verified (`verified_cache_seconds`, 60 by default) and checks no
//! signature again.
//!
//! In process, after the HTTP cells: `TokenValidator::validate` of a
//! repeated token signed ES256, RS256 (2048-bit) and EdDSA against the
//! opaque path's `ProfileStore::lookup` of the granted token; and
//! `validate` with the verified cache off (`verified_cache_seconds: 0`, the
//! cost of a token's first request: its key cached, the signature and
//! claims checked) against `jsonwebtoken::decode` alone with the same key
//! and checks (the validator's own work on top of the signature check).
//! `mcp_profiles_bench::paired` pairs them (`PAIRS`, `BATCH_MS`).
//!
//! Env: `OAUTH_BENCH_REQUESTS` (10000), `OAUTH_BENCH_ROUNDS` (8, at least
//! 6), `OAUTH_BENCH_WARMUP` (2000), `OAUTH_BENCH_SERVER_THREADS` (1),
//! `OAUTH_BENCH_ALG` (`ES256`; the HTTP token's algorithm), `PAIRS` (21),
//! `BATCH_MS` (40).
//!
//! Output: two markdown tables, and `target/bench-results/oauth.json`:
//!
//! ```text
//! { "bench": "oauth", "profile": JSON string, "tool": name, "tools_listed": n,
//!   "era": "2026-07-28", "jwt_alg": "ES256" | "RS256" | "EdDSA",
//!   "config": { requests, rounds, warmup, server_threads },
//!   "cells": [ { "op": "tools/list" | "tools/call",
//!                "sides": { "opaque" | "oauth": { "p50_us": Spread,
//!                           "p99_us": Spread, "rps": Spread,
//!                           "rounds": [ {p50_us, p99_us, rps} ] } },
//!                "oauth_over_opaque": { "p50": Spread, "p99": Spread,
//!                                       "rps": Spread },
//!                "added_p50_us": Spread } ],
//!   "validation": [ { "alg": "ES256" | "RS256" | "EdDSA",
//!                     "vs_lookup": Comparison, "vs_decode": Comparison } ] }
//! ```
//! where `Spread` is `{ "median", "min", "max" }` over rounds (ratios per
//! round pair; rps ratio < 1 is slower) and `Comparison` is
//! `mcp_profiles_bench::paired::Comparison` (times in ns per operation).
//!
//! `cargo bench -p mcp-profiles-bench --bench oauth`

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::{DecodingKey, Validation};
use mcp_profiles::ProfileContext;
use mcp_profiles_bench::load_client::{Calls, Client, Era, Op};
use mcp_profiles_bench::paired::{Comparison, Pairing, Side};
use mcp_profiles_bench::results::{self, Spread, env_usize, quantile};
use mcp_profiles_serve::ProfileStore;
use mcp_profiles_serve::http::{HttpServer, Serve};
use mcp_profiles_serve::oauth::{ClaimMapping, OAuth, OAuthConfig, TokenValidator};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::oauth::issuer::{Discovery, Issuer, merged, now};
use mcp_profiles_tests::oauth::keys::TestKey;
use serde_json::json;

/// The one agent both servers serve.
const PRINCIPAL: &str = "alice";
/// Alice's stored profile: the board and asking the user.
const PROFILE: &str = r#"{"surface":"kanban-task","capabilities":["user-question"]}"#;
/// The opaque bearer token granted to alice.
const OPAQUE: &str = "bench-opaque-token-of-alice";
/// A cheap tool: it counts the call and echoes `workflow_id`.
const TOOL: &str = "list_tasks";
const ARGUMENTS: &str = r#"{"workflow_id":"bench"}"#;
/// Both sides' protocol: stateless requests, no session.
const ERA: Era = Era::Modern;
/// The tokens' lifetime: longer than any run.
const LIFETIME_SECS: u64 = 6 * 3600;
/// The sides of the HTTP comparison, in the order of every array here.
const SIDES: [&str; 2] = ["opaque", "oauth"];
/// The algorithms of [`Setup::keys`], in order.
const ALGORITHMS: [&str; 3] = ["ES256", "RS256", "EdDSA"];

struct Config {
    requests: usize,
    rounds: usize,
    warmup: usize,
    threads: usize,
    /// Index in [`ALGORITHMS`] of the HTTP token's.
    alg: usize,
}

impl Config {
    fn from_env() -> Config {
        Config {
            requests: env_usize("OAUTH_BENCH_REQUESTS", 10_000).max(1),
            rounds: env_usize("OAUTH_BENCH_ROUNDS", 8).max(6),
            warmup: env_usize("OAUTH_BENCH_WARMUP", 2_000),
            threads: env_usize("OAUTH_BENCH_SERVER_THREADS", 1).max(1),
            alg: {
                let alg = std::env::var("OAUTH_BENCH_ALG").unwrap_or_else(|_| "ES256".into());
                ALGORITHMS
                    .iter()
                    .position(|known| known.eq_ignore_ascii_case(alg.trim()))
                    .unwrap_or_else(|| panic!("OAUTH_BENCH_ALG=`{alg}`: one of {ALGORITHMS:?}"))
            },
        }
    }
}

/// Everything the process serves, kept running until the end.
struct Setup {
    issuer: Issuer,
    /// ES256, RS256, EdDSA ([`ALGORITHMS`]).
    keys: [TestKey; 3],
    store: Arc<ProfileStore<TaskServer>>,
    /// The oauth side's URI: its resource, its tokens' `aud`.
    oauth_uri: String,
    opaque_uri: String,
    /// The access token of the HTTP load.
    jwt: String,
    _servers: [HttpServer; 2],
}

/// Claims of alice valid for the run, meant for `resource`.
fn claims(issuer: &Issuer, resource: &str) -> serde_json::Value {
    let now = now();
    merged(
        issuer.claims(),
        &json!({ "aud": resource, "iat": now, "exp": now + LIFETIME_SECS }),
    )
}

/// Starts the issuer, the store and both servers (on the current runtime).
async fn start(alg: usize) -> Setup {
    let keys = [
        TestKey::es256("es-1"),
        TestKey::rs256("rs-1"),
        TestKey::ed25519("ed-1"),
    ];
    let issuer = Issuer::start(Discovery::OAuth, &[&keys[0], &keys[1], &keys[2]]).await;
    let store = Arc::new(ProfileStore::<TaskServer>::default());
    let context = ProfileContext::<TaskServer>::from_json(PROFILE).expect("a valid profile");
    store.add_agent(PRINCIPAL, context);
    store.grant(OPAQUE, PRINCIPAL).expect("alice has an agent");
    let handler = TaskServer::default();
    let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let opaque = Serve::on(any)
        .agents(&store, handler.clone())
        .await
        .expect("the opaque side listens");
    // The resource URI (the tokens' `aud`) must be known before the
    // listener is: reserve a port, then serve on it.
    let mut attempts = 0;
    let (oauth, oauth_uri) = loop {
        let addr = std::net::TcpListener::bind(any)
            .and_then(|listener| listener.local_addr())
            .expect("a free port");
        let uri = format!("http://{addr}/mcp");
        let config = OAuthConfig::new(&issuer.url, &uri).expect("a valid config");
        let oauth = Arc::new(OAuth::new(
            TokenValidator::new(config),
            ClaimMapping::stored(),
        ));
        match Serve::on(addr).oauth(&store, handler.clone(), oauth).await {
            Ok(server) => break (server, uri),
            Err(error) if attempts < 5 => {
                attempts += 1;
                eprintln!("port {addr} taken meanwhile ({error}); another");
            }
            Err(error) => panic!("the oauth side cannot listen: {error}"),
        }
    };
    let jwt = keys[alg].sign(&claims(&issuer, &oauth_uri));
    Setup {
        opaque_uri: format!("http://{}/mcp", opaque.local_addr()),
        oauth_uri,
        jwt,
        issuer,
        keys,
        store,
        _servers: [opaque, oauth],
    }
}

/// One client per side, on its own keep-alive connection.
async fn clients(setup: &Setup) -> [Client; 2] {
    let calls = |bearer| Calls {
        tool: TOOL,
        arguments: ARGUMENTS,
        bearer: Some(bearer),
    };
    [
        Client::connect_with(&setup.opaque_uri, ERA, calls(OPAQUE)).await,
        Client::connect_with(&setup.oauth_uri, ERA, calls(&setup.jwt)).await,
    ]
}

/// Both sides list the same tools, among them [`TOOL`]; their count.
async fn same_tools(clients: &mut [Client; 2]) -> usize {
    let opaque = clients[0].tool_names().await;
    let oauth = clients[1].tool_names().await;
    assert_eq!(opaque, oauth, "both sides serve alice's profile");
    assert!(opaque.iter().any(|name| name == TOOL), "{TOOL} is listed");
    opaque.len()
}

/// One side's round.
#[derive(Clone, Copy)]
struct Sample {
    p50_us: f64,
    p99_us: f64,
    rps: f64,
}

/// `requests` requests of `op`, one after another on `client`'s connection.
async fn round(client: &mut Client, op: Op, requests: usize, tools: usize) -> Sample {
    let mut latencies = Vec::with_capacity(requests);
    let started = Instant::now();
    for _ in 0..requests {
        let check = client.checks();
        let sent = Instant::now();
        client.request(op, check, tools).await;
        latencies.push(sent.elapsed());
    }
    let wall = started.elapsed();
    latencies.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    Sample {
        p50_us: us(quantile(&latencies, 0.5)),
        p99_us: us(quantile(&latencies, 0.99)),
        rps: requests as f64 / wall.as_secs_f64(),
    }
}

struct Cell {
    op: Op,
    /// Per side ([`SIDES`]), per round.
    samples: [Vec<Sample>; 2],
}

impl Cell {
    fn medians(&self, side: usize) -> [Spread; 3] {
        let samples = &self.samples[side];
        let of = |f: fn(&Sample) -> f64| Spread::of(&samples.iter().map(f).collect::<Vec<_>>());
        [of(|s| s.p50_us), of(|s| s.p99_us), of(|s| s.rps)]
    }

    /// oauth ÷ opaque per round pair: p50, p99, rps.
    fn ratios(&self) -> [Spread; 3] {
        let [opaque, oauth] = &self.samples;
        let of = |f: fn(&Sample) -> f64| {
            let values: Vec<f64> = oauth.iter().zip(opaque).map(|(a, b)| f(a) / f(b)).collect();
            Spread::of(&values)
        };
        [of(|s| s.p50_us), of(|s| s.p99_us), of(|s| s.rps)]
    }

    /// oauth − opaque p50 per round pair, µs.
    fn added_p50_us(&self) -> Spread {
        let [opaque, oauth] = &self.samples;
        let added: Vec<f64> = oauth
            .iter()
            .zip(opaque)
            .map(|(a, b)| a.p50_us - b.p50_us)
            .collect();
        Spread::of(&added)
    }
}

async fn cell(config: &Config, clients: &mut [Client; 2], op: Op, tools: usize) -> Cell {
    if config.warmup > 0 {
        for client in clients.iter_mut() {
            round(client, op, config.warmup, tools).await;
        }
    }
    let mut samples = [Vec::new(), Vec::new()];
    for index in 0..config.rounds {
        let order = if index % 2 == 0 { [0, 1] } else { [1, 0] };
        for side in order {
            let sample = round(&mut clients[side], op, config.requests, tools).await;
            samples[side].push(sample);
        }
    }
    let cell = Cell { op, samples };
    for (side, name) in SIDES.iter().enumerate() {
        let [p50, p99, rps] = cell.medians(side);
        println!(
            "{:<10} {name:<6} p50 {:>7.1} us  p99 {:>7.1} us  {:>6.0} req/s",
            op.method(),
            p50.median,
            p99.median,
            rps.median
        );
    }
    let [r50, _, rrps] = cell.ratios();
    println!(
        "{:<10} oauth / opaque: p50 {:.3} ({:.3}..{:.3}), req/s {:.3} ({:.3}..{:.3})",
        op.method(),
        r50.median,
        r50.min,
        r50.max,
        rrps.median,
        rrps.min,
        rrps.max
    );
    cell
}

/// One algorithm's in-process comparisons.
struct AlgorithmRow {
    alg: &'static str,
    vs_lookup: Comparison,
    vs_decode: Comparison,
}

/// `TokenValidator::validate` per algorithm of a repeated token against
/// the opaque lookup, and with the verified cache off against
/// `jsonwebtoken::decode` alone.
fn validation(setup: &Setup, runtime: &tokio::runtime::Runtime) -> Vec<AlgorithmRow> {
    let pairing = Pairing::from_env();
    let config = OAuthConfig::new(&setup.issuer.url, &setup.oauth_uri).expect("a valid config");
    let validator = TokenValidator::new(config.clone());
    let uncached = TokenValidator::new(
        config
            .clone()
            .with_verified_cache(Duration::ZERO)
            .expect("zero turns the cache off"),
    );
    let found = runtime
        .block_on(setup.store.lookup(OPAQUE))
        .expect("a local store answers");
    assert_eq!(found.expect("the token is granted").name(), PRINCIPAL);
    let mut rows = Vec::new();
    for (key, alg) in setup.keys.iter().zip(ALGORITHMS) {
        let token = key.sign(&claims(&setup.issuer, &setup.oauth_uri));
        // The first validation fetches the issuer's JWKS; every later one
        // finds the key cached.
        let token_claims = runtime
            .block_on(validator.validate(&token))
            .expect("the token is valid");
        assert_eq!(token_claims.subject(), Some(PRINCIPAL));
        runtime
            .block_on(uncached.validate(&token))
            .expect("the token is valid");
        let vs_lookup = pairing.compare(
            &format!("{alg} validate vs opaque lookup"),
            Side::awaiting("TokenValidator::validate", runtime, || {
                validator.validate(&token)
            }),
            Side::awaiting("ProfileStore::lookup", runtime, || {
                setup.store.lookup(OPAQUE)
            }),
        );
        println!("{vs_lookup}");
        let decoding = DecodingKey::from_jwk(&key.jwk).expect("a public key");
        let mut checks = Validation::new(key.alg);
        checks.set_issuer(&[config.issuer()]);
        checks.set_audience(&[config.resource()]);
        checks.set_required_spec_claims(&["exp", "iss", "aud"]);
        let decode = || {
            jsonwebtoken::decode::<serde_json::Map<String, serde_json::Value>>(
                &token, &decoding, &checks,
            )
        };
        decode().expect("jsonwebtoken accepts the token");
        let vs_decode = pairing.compare(
            &format!("{alg} validate (verified cache off) vs decode alone"),
            Side::awaiting("TokenValidator::validate, uncached", runtime, || {
                uncached.validate(&token)
            }),
            Side::new("jsonwebtoken::decode", |n| {
                for _ in 0..n {
                    black_box(decode().expect("valid"));
                }
            }),
        );
        println!("{vs_decode}");
        rows.push(AlgorithmRow {
            alg,
            vs_lookup,
            vs_decode,
        });
    }
    rows
}

fn main() {
    let config = Config::from_env();
    let server_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.threads)
        .thread_name("oauth-bench-server")
        .enable_all()
        .build()
        .expect("the servers' runtime");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("the generator's runtime");
    let setup = server_runtime.block_on(start(config.alg));
    let (tools, cells) = runtime.block_on(async {
        let mut clients = clients(&setup).await;
        let tools = same_tools(&mut clients).await;
        println!(
            "profile {PROFILE}: {tools} tools on both sides; tools/call {TOOL}; {} era; \
             {} requests x {} rounds per op and side; JWT {}",
            ERA.version(),
            config.requests,
            config.rounds,
            ALGORITHMS[config.alg]
        );
        let mut cells = Vec::new();
        for op in [Op::List, Op::Call] {
            cells.push(cell(&config, &mut clients, op, tools).await);
        }
        (tools, cells)
    });
    println!();
    let validations = validation(&setup, &runtime);
    report(&config, tools, &cells, &validations);
    drop(setup);
    server_runtime.shutdown_timeout(Duration::from_secs(1));
}

fn report(config: &Config, tools: usize, cells: &[Cell], validations: &[AlgorithmRow]) {
    println!();
    println!(
        "| op | p50 µs (opaque / oauth) | p50 oauth ÷ opaque | p50 added µs | p99 µs (opaque / oauth) | p99 oauth ÷ opaque | req/s (opaque / oauth) | req/s oauth ÷ opaque |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for cell in cells {
        let [p50a, p99a, rpsa] = cell.medians(0);
        let [p50b, p99b, rpsb] = cell.medians(1);
        let [r50, r99, rrps] = cell.ratios();
        let added = cell.added_p50_us();
        println!(
            "| {} | {:.0} / {:.0} | {:.2} ({:.2}..{:.2}) | {:+.0} ({:+.0}..{:+.0}) | {:.0} / {:.0} | {:.2} ({:.2}..{:.2}) | {:.0} / {:.0} | {:.2} ({:.2}..{:.2}) |",
            cell.op.method(),
            p50a.median,
            p50b.median,
            r50.median,
            r50.min,
            r50.max,
            added.median,
            added.min,
            added.max,
            p99a.median,
            p99b.median,
            r99.median,
            r99.min,
            r99.max,
            rpsa.median,
            rpsb.median,
            rrps.median,
            rrps.min,
            rrps.max,
        );
    }
    println!();
    println!(
        "| alg | `validate`, repeated token µs | opaque `lookup` µs | validate ÷ lookup | `validate`, cache off µs | `jsonwebtoken::decode` alone µs | uncached ÷ decode |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for row in validations {
        let (lookup, decode) = (&row.vs_lookup, &row.vs_decode);
        println!(
            "| {} | {:.2} | {:.3} | {:.0}× ({:.0}..{:.0}) | {:.1} | {:.1} | {:.3} ({:.3}..{:.3}) |",
            row.alg,
            lookup.a_ns / 1e3,
            lookup.b_ns / 1e3,
            lookup.ratio,
            lookup.ratio_min,
            lookup.ratio_max,
            decode.a_ns / 1e3,
            decode.b_ns / 1e3,
            decode.ratio,
            decode.ratio_min,
            decode.ratio_max,
        );
    }
    let cells_json: Vec<serde_json::Value> = cells
        .iter()
        .map(|cell| {
            let mut sides = serde_json::Map::new();
            for (index, name) in SIDES.iter().enumerate() {
                let [p50, p99, rps] = cell.medians(index);
                let rounds: Vec<_> = cell.samples[index]
                    .iter()
                    .map(|s| json!({"p50_us": s.p50_us, "p99_us": s.p99_us, "rps": s.rps}))
                    .collect();
                sides.insert(
                    (*name).to_owned(),
                    json!({"p50_us": p50, "p99_us": p99, "rps": rps, "rounds": rounds}),
                );
            }
            let [r50, r99, rrps] = cell.ratios();
            json!({
                "op": cell.op.method(),
                "sides": sides,
                "oauth_over_opaque": {"p50": r50, "p99": r99, "rps": rrps},
                "added_p50_us": cell.added_p50_us(),
            })
        })
        .collect();
    let validation_json: Vec<serde_json::Value> = validations
        .iter()
        .map(|row| {
            json!({
                "alg": row.alg,
                "vs_lookup": row.vs_lookup,
                "vs_decode": row.vs_decode,
            })
        })
        .collect();
    let results = json!({
        "bench": "oauth",
        "profile": PROFILE,
        "tool": TOOL,
        "tools_listed": tools,
        "era": ERA.version(),
        "jwt_alg": ALGORITHMS[config.alg],
        "config": {
            "requests": config.requests,
            "rounds": config.rounds,
            "warmup": config.warmup,
            "server_threads": config.threads,
        },
        "cells": cells_json,
        "validation": validation_json,
    });
    match results::write("oauth", &results) {
        Ok(path) => println!("results: {}", path.display()),
        Err(error) => eprintln!("cannot write the results: {error}"),
    }
}
