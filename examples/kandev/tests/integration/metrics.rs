//! `GET /metrics` on the control listener of a running `kandev-mcp serve`
//! and `gateway`: a scripted run with real rmcp clients of both eras, then
//! a scrape with a real HTTP client, parsed as the Prometheus text format
//! (`prometheus-parse`), whose counters must be exactly what the script did.
//!
//! Each server is a process of its own, so each has its own global
//! recorder and its counts start at zero.

use std::io;

use mcp_profiles_tests::client::{CallOutcome, List, Session, http_transport};
use mcp_profiles_tests::modern::{ModernSession, expect_list_changed};
use prometheus_parse::{Scrape, Value as Sampled};
use reqwest::Method;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

use crate::common::gateway::{grant, put};
use crate::common::{BEARER, LIMIT, QUIET, Server};

/// A parsed scrape.
pub(crate) struct Metrics(Scrape);

impl Metrics {
    /// `GET /metrics` with `authorization`; panics unless it answers 200 in
    /// the text format, and parses it.
    pub(crate) async fn scrape(server: &Server, authorization: Option<&str>) -> Metrics {
        let (status, content_type, text) = get(server, authorization).await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(
            content_type.as_deref(),
            Some("text/plain; version=0.0.4; charset=utf-8")
        );
        let lines = text.lines().map(|line| Ok::<_, io::Error>(line.to_owned()));
        Metrics(Scrape::parse(lines).expect("the Prometheus text format parses"))
    }

    /// The value of the sample named `name` whose labels are exactly
    /// `labels`; 0 when there is none (a series never counted).
    pub(crate) fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let found: Vec<f64> = self
            .0
            .samples
            .iter()
            .filter(|sample| {
                sample.metric == name
                    && sample.labels.len() == labels.len()
                    && labels
                        .iter()
                        .all(|(key, value)| sample.labels.get(key) == Some(*value))
            })
            .map(|sample| match sample.value {
                Sampled::Counter(value) | Sampled::Gauge(value) | Sampled::Untyped(value) => value,
                ref other => panic!("{name} is not a number: {other:?}"),
            })
            .collect();
        assert!(
            found.len() <= 1,
            "{name} {labels:?} appears {} times",
            found.len()
        );
        found.first().copied().unwrap_or(0.0)
    }

    /// Each `(name, labels, expected)` of `expected` as scraped: the
    /// mismatches, empty when every one holds.
    fn mismatches(&self, expected: &[Expected]) -> Vec<String> {
        expected
            .iter()
            .filter(|(name, labels, value)| self.value(name, labels) != *value)
            .map(|(name, labels, value)| {
                format!(
                    "{name}{labels:?}: {} (expected {value})",
                    self.value(name, labels)
                )
            })
            .collect()
    }
}

/// A series and the value it must have.
type Expected = (&'static str, Vec<(&'static str, &'static str)>, f64);

/// `GET /metrics`: status, content type and body.
async fn get(server: &Server, authorization: Option<&str>) -> (u16, Option<String>, String) {
    let mut request = reqwest::Client::new().get(format!("{}/metrics", server.control));
    if let Some(value) = authorization {
        request = request.header("Authorization", value);
    }
    let response = request.send().await.expect("the control listener answers");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned());
    (status, content_type, response.text().await.unwrap())
}

/// Scrapes until every `expected` value holds, and panics naming the ones
/// that do not if they still do not after [`LIMIT`]: a notification is
/// counted once its send returns, which can be just after the client has
/// it. Then, after [`QUIET`], checks that they still hold (nothing more
/// was counted).
async fn expect_exactly(server: &Server, authorization: Option<&str>, expected: &[Expected]) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let wrong = Metrics::scrape(server, authorization)
            .await
            .mismatches(expected);
        if wrong.is_empty() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "after {LIMIT:?}:\n{}",
            wrong.join("\n")
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    tokio::time::sleep(QUIET).await;
    let wrong = Metrics::scrape(server, authorization)
        .await
        .mismatches(expected);
    assert!(wrong.is_empty(), "counted more:\n{}", wrong.join("\n"));
}

/// The text of a call that ran.
fn ran(outcome: CallOutcome) -> String {
    match outcome {
        CallOutcome::Ran(texts) => texts.concat(),
        refused => panic!("expected the handler to run: {refused:?}"),
    }
}

/// `PUT path` of `body` with the right token: the status.
async fn put_status(server: &Server, path: &str, body: Value) -> u16 {
    let http = reqwest::Client::new();
    server.put(&http, path, body).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_serve_run_is_scraped_with_exact_counts() {
    let server = Server::start().await;
    let http = reqwest::Client::new();

    // The scrape is behind the control token.
    assert_eq!(get(&server, None).await.0, 401);
    assert_eq!(get(&server, Some("Bearer wrong")).await.0, 401);

    // One session of each era: a 2025 one (initialize) and a 2026-07-28
    // one listening for tools/list_changed.
    let legacy = server.connect().await;
    let modern =
        ModernSession::connect(StreamableHttpClientTransport::from_uri(server.mcp.clone())).await;
    let mut subscription = modern.subscribe().await;

    // A call that runs, one whose arguments do not deserialize (rmcp
    // answers a tool error; no handler runs), one hidden by the profile.
    assert!(
        ran(legacy.call("list_workspaces_kandev", Some(json!({}))).await).contains("workspaces")
    );
    let bad = ran(legacy.call("list_tasks_kandev", Some(json!({}))).await);
    assert!(bad.contains("failed to deserialize parameters"), "{bad}");
    assert!(matches!(
        legacy
            .call("write_task_document_kandev", Some(json!({})))
            .await,
        CallOutcome::Refused(-32602, _)
    ));

    // Replacements: office (changed), office again (unchanged), an unknown
    // provider (400: the control API works out and records the next state
    // before the live change, so it never reaches the controller), the
    // kill switch (changed), back to the kanban task (changed).
    let office = r#"{"surface":"office-task"}"#;
    assert_eq!(server.replace(&http, office).await["changed"], json!(true));
    assert_eq!(server.replace(&http, office).await["changed"], json!(false));
    let providers = json!({ "mcp_providers": ["nope"] });
    assert_eq!(
        put_status(&server, "/api/v1/mcp/providers", providers).await,
        400
    );
    let deny = json!({ "deny": ["show_rich_output_kandev"] });
    assert_eq!(
        put_status(&server, "/api/v1/mcp/kill-switch", deny).await,
        200
    );
    assert!(matches!(
        legacy.call("show_rich_output_kandev", Some(json!({}))).await,
        CallOutcome::Refused(-32602, message) if message.contains("disabled by the operator")
    ));
    let kanban = r#"{"surface":"kanban-task"}"#;
    assert_eq!(server.replace(&http, kanban).await["changed"], json!(true));

    // Three tool-list changes reached each session; prompts and resources
    // changed with the surface, and only the 2025 session hears of them.
    legacy.expect_exactly(&[(List::Tools, 3)]).await;
    expect_list_changed(&mut subscription, &[List::Tools, List::Tools, List::Tools]).await;
    let prompts = legacy.notifications_of(List::Prompts) as f64;
    let resources = legacy.notifications_of(List::Resources) as f64;
    assert!(
        prompts + resources > 0.0,
        "the surface change changed no content"
    );

    let tool = |name| vec![("tool", name), ("result", "ok")];
    let expected: Vec<Expected> = vec![
        (
            "mcp_profiles_replacements_total",
            vec![("outcome", "changed")],
            3.0,
        ),
        (
            "mcp_profiles_replacements_total",
            vec![("outcome", "unchanged")],
            1.0,
        ),
        (
            "mcp_profiles_replacements_total",
            vec![("outcome", "refused")],
            0.0,
        ),
        (
            "mcp_profiles_list_changed_delivered_total",
            vec![("kind", "tools")],
            6.0,
        ),
        (
            "mcp_profiles_list_changed_delivered_total",
            vec![("kind", "prompts")],
            prompts,
        ),
        (
            "mcp_profiles_list_changed_delivered_total",
            vec![("kind", "resources")],
            resources,
        ),
        (
            "mcp_profiles_list_changed_dropped_total",
            vec![("kind", "tools")],
            0.0,
        ),
        (
            "mcp_profiles_calls_refused_total",
            vec![("reason", "hidden")],
            1.0,
        ),
        (
            "mcp_profiles_calls_refused_total",
            vec![("reason", "killed")],
            1.0,
        ),
        (
            "mcp_profiles_calls_refused_total",
            vec![("reason", "bad_arguments")],
            1.0,
        ),
        (
            "mcp_profiles_tool_calls_total",
            tool("list_workspaces_kandev"),
            1.0,
        ),
        (
            "mcp_profiles_tool_call_duration_seconds_count",
            vec![("tool", "list_workspaces_kandev")],
            1.0,
        ),
        (
            "mcp_profiles_tool_calls_total",
            tool("list_tasks_kandev"),
            0.0,
        ),
        ("mcp_profiles_live_sessions", vec![("era", "2025")], 1.0),
        ("mcp_profiles_live_sessions", vec![("era", "2026")], 1.0),
    ];
    expect_exactly(&server, Some(BEARER), &expected).await;

    // The 2025 session closes: its gauge goes back to zero.
    legacy.service.cancel().await.unwrap();
    let closed: Vec<Expected> = vec![
        ("mcp_profiles_live_sessions", vec![("era", "2025")], 0.0),
        ("mcp_profiles_live_sessions", vec![("era", "2026")], 1.0),
    ];
    expect_exactly(&server, Some(BEARER), &closed).await;
    drop(subscription);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_public_serves_the_scrape_without_the_token() {
    let server = Server::start_with_args(&["--metrics-public"]).await;
    let metrics = Metrics::scrape(&server, None).await;
    // Nothing replaced yet: the series exist only once counted.
    assert_eq!(
        metrics.value("mcp_profiles_replacements_total", &[("outcome", "changed")]),
        0.0
    );
    // The control API itself still wants its token.
    let http = reqwest::Client::new();
    let (status, _) = server
        .control(&http, Method::GET, "/api/v1/mcp/profile", None, None)
        .await;
    assert_eq!(status, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_counts_requests_per_principal_only_when_asked() {
    let kandev = r#"{"surface":"kanban-task"}"#;
    for labelled in [false, true] {
        let args: &[&str] = if labelled {
            &["--metrics-principals"]
        } else {
            &[]
        };
        let gateway = Server::start_gateway(args).await;
        put(&gateway, "alice", kandev).await;
        put(&gateway, "bob", kandev).await;
        grant(&gateway, "alice-token", "alice").await;
        grant(&gateway, "bob-token", "bob").await;

        // Each initialize, initialized notification and tools/list is a
        // request; an unknown token is refused before MCP.
        let alice = Session::connect(http_transport(&gateway.mcp, Some("alice-token"))).await;
        let bob = Session::connect(http_transport(&gateway.mcp, Some("bob-token"))).await;
        let _ = alice.tool_names().await;
        assert_eq!(
            crate::common::gateway::admitted(&gateway, "nobody-token").await,
            401
        );
        // Changing alice's profile reaches her session once.
        let office = r#"{"surface":"office-task"}"#;
        put(&gateway, "alice", office).await;
        alice.expect_exactly(&[(List::Tools, 1)]).await;

        let metrics = Metrics::scrape(&gateway, Some(BEARER)).await;
        let requests = "mcp_profiles_agent_requests_total";
        let per = |who| metrics.value(requests, &[("principal", who)]);
        let unlabelled = metrics.value(requests, &[]);
        if labelled {
            assert_eq!(unlabelled, 0.0);
            assert!(
                per("alice") > per("bob"),
                "{} vs {}",
                per("alice"),
                per("bob")
            );
            assert!(per("bob") >= 2.0, "bob's initialize and initialized");
        } else {
            assert_eq!((per("alice"), per("bob")), (0.0, 0.0));
            assert!(unlabelled >= 5.0, "{unlabelled}");
        }
        let refused = [("reason", "unknown_token")];
        assert_eq!(
            metrics.value("mcp_profiles_http_refusals_total", &refused),
            1.0
        );
        assert_eq!(
            metrics.value("mcp_profiles_replacements_total", &[("outcome", "changed")]),
            1.0
        );
        assert_eq!(
            metrics.value("mcp_profiles_live_sessions", &[("era", "2025")]),
            2.0
        );
        // The in-memory store has no health to report.
        assert_eq!(metrics.value("mcp_profiles_store_up", &[]), 0.0);
        drop((alice, bob));
    }
}

/// An `initialize` bearing `token`: whether the gateway refused it for a
/// store out of reach past its grace period.
async fn refused_for_grace(gateway: &Server, token: &str) -> bool {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "0"}},
    });
    let response =
        mcp_profiles_tests::raw::RawSession::post(&gateway.mcp, token, None, &initialize).await;
    response.text().await.unwrap().contains("grace period")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_reports_the_health_of_its_redis_store() {
    let Some(mut redis) = mcp_profiles_tests::redis::RedisServer::start() else {
        return;
    };
    // A grace period of 2 s: heartbeats every 500 ms, each answered within
    // 500 ms. (With 100 ms, a ping had 25 ms: a loaded 2-core machine
    // missed that, counting disconnects of a healthy store.)
    let gateway = Server::start_gateway(&["--store", &redis.url(), "--grace-ms", "2000"]).await;
    put(&gateway, "alice", r#"{"surface":"kanban-task"}"#).await;
    grant(&gateway, "alice-token", "alice").await;
    let store = |name, labels: Vec<(&'static str, &'static str)>, value| (name, labels, value);
    expect_exactly(
        &gateway,
        Some(BEARER),
        &[
            store("mcp_profiles_store_up", vec![], 1.0),
            store("mcp_profiles_store_disconnects_total", vec![], 0.0),
            store("mcp_profiles_store_feed_gaps_total", vec![], 0.0),
        ],
    )
    .await;

    // A change whose version skips one on the feed of a principal this
    // gateway serves (alice, once her token was seen): it reads her again.
    assert_eq!(
        crate::common::gateway::admitted(&gateway, "alice-token").await,
        200
    );
    let skipped = json!({
        "kind": "put", "principal": "alice", "version": 3,
        "context": r#"{"surface":"office-task"}"#,
    });
    redis.command(&["PUBLISH", "mcp-profiles:changes", &skipped.to_string()]);
    expect_exactly(
        &gateway,
        Some(BEARER),
        &[store("mcp_profiles_store_feed_gaps_total", vec![], 1.0)],
    )
    .await;

    // Redis dies: the gateway notices, and past the grace period refuses
    // what it admits, counting each refusal.
    redis.kill();
    expect_exactly(
        &gateway,
        Some(BEARER),
        &[
            store("mcp_profiles_store_up", vec![], 0.0),
            store("mcp_profiles_store_disconnects_total", vec![], 1.0),
        ],
    )
    .await;
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !refused_for_grace(&gateway, "alice-token").await {
        assert!(tokio::time::Instant::now() < deadline, "never refused");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(refused_for_grace(&gateway, "alice-token").await);
    assert!(refused_for_grace(&gateway, "alice-token").await);
    // The first refusal may have been admitted a moment before the grace
    // period ran out at the router: two or three are counted.
    let counted = Metrics::scrape(&gateway, Some(BEARER))
        .await
        .value("mcp_profiles_store_grace_refusals_total", &[]);
    assert!((2.0..=3.0).contains(&counted), "{counted}");

    // Redis is back: the gateway reloads and is up again.
    redis.restart();
    expect_exactly(
        &gateway,
        Some(BEARER),
        &[
            store("mcp_profiles_store_up", vec![], 1.0),
            store(
                "mcp_profiles_store_reloads_total",
                vec![("result", "ok")],
                1.0,
            ),
            store("mcp_profiles_store_disconnects_total", vec![], 1.0),
        ],
    )
    .await;
}
