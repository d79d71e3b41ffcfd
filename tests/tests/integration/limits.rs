//! The HTTP serving helpers bound what clients can hold, over real sockets:
//! connections past a listener's cap are refused at once while another
//! listener of the process still answers; idle, keep-alive and half-sent
//! connections are closed after their timeouts while a live SSE stream is
//! not; shutdown returns within its drain timeout even with a request that
//! never ends; and refusals echo a bounded part of what the client sent.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_profiles::ProfileController;
use mcp_profiles_serve::ProfileStore;
use mcp_profiles_serve::http::{HttpServer, Limits};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::client::{CallOutcome, Session};
use mcp_profiles_tests::contexts::{asking, child};
use mcp_profiles_tests::raw::RawSession;
use rmcp::transport::StreamableHttpClientTransport;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a test waits for something that must happen.
const LIMIT: Duration = Duration::from_secs(10);
/// The short timeouts under test.
const SHORT: Duration = Duration::from_millis(300);
/// Longer than any test runs: a timeout that must not be what closes.
const NEVER: Duration = Duration::from_secs(600);

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// A profiled task server on its own listener.
async fn serve_tasks(limits: Limits) -> (ProfileController<TaskServer>, TaskServer, HttpServer) {
    let controller = ProfileController::new(asking());
    let handler = TaskServer::default();
    let http = mcp_profiles_serve::http::Serve::on(any_port())
        .limits(limits)
        .one(controller.server(handler.clone()))
        .await
        .unwrap();
    (controller, handler, http)
}

/// A plain axum app, as a control API next to MCP would be: `/ping` answers,
/// `/hang` never does.
async fn serve_plain(limits: Limits) -> HttpServer {
    let app = axum::Router::new()
        .route("/ping", axum::routing::get(|| async { "pong" }))
        .route(
            "/hang",
            axum::routing::get(std::future::pending::<&'static str>),
        );
    mcp_profiles_serve::http::Serve::on(any_port())
        .limits(limits)
        .app(app)
        .await
        .unwrap()
}

fn mcp_uri(http: &HttpServer) -> String {
    format!("http://{}/mcp", http.local_addr())
}

/// Everything the server sends until it closes the connection, and when
/// it closed; a reset counts as closed.
async fn until_closed(stream: &mut TcpStream) -> (String, Instant) {
    let mut received = Vec::new();
    let read = tokio::time::timeout(LIMIT, stream.read_to_end(&mut received))
        .await
        .expect("the server closes the connection");
    if let Err(error) = read {
        assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset, "{error}");
    }
    (
        String::from_utf8_lossy(&received).into_owned(),
        Instant::now(),
    )
}

/// Sends `GET /ping` on `stream` and reads until its answer's `pong`.
async fn ping(stream: &mut TcpStream) {
    stream
        .write_all(b"GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0; 1024];
    let mut read = 0;
    while !String::from_utf8_lossy(&answer[..read]).ends_with("pong") {
        let n = tokio::time::timeout(LIMIT, stream.read(&mut answer[read..]))
            .await
            .expect("an answer")
            .unwrap();
        assert_ne!(n, 0, "closed before answering");
        read += n;
    }
}

/// Sends half a request head on `stream` and asserts the server closes
/// it unanswered, no sooner than the header timeout under test ([`SHORT`]).
async fn expect_half_sent_head_cut_off(stream: &mut TcpStream) {
    let sent = Instant::now();
    stream
        .write_all(b"GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    let (answer, closed) = until_closed(stream).await;
    assert!(closed - sent >= SHORT, "closed before the timeout");
    assert!(!answer.contains("pong"), "{answer:?}");
}

/// Asserts a GET of `path` on `http` answers 200 with `body`.
async fn expect_get(http: &HttpServer, path: &str, body: &str) {
    let response = reqwest::get(format!("http://{}{path}", http.local_addr()))
        .await
        .expect("the listener answers");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.text().await.unwrap(), body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_cap_are_refused_and_idle_ones_closed() {
    // Long enough that the held connections outlive the refusals below.
    let timeout = Duration::from_secs(1);
    let limits = Limits::default()
        .with_max_connections(4)
        .with_header_read_timeout(timeout)
        .with_idle_timeout(timeout);
    let (_controller, _handler, mcp) = serve_tasks(limits).await;
    let control = serve_plain(Limits::default()).await;

    let opened = Instant::now();
    let mut idle = Vec::new();
    for _ in 0..8 {
        idle.push(TcpStream::connect(mcp.local_addr()).await.unwrap());
    }
    // Accepted in order: the first four hold the cap, the rest are refused.
    let mut extra = idle.split_off(4);
    for stream in &mut extra {
        let (answer, _) = until_closed(stream).await;
        assert!(answer.starts_with("HTTP/1.1 503 "), "{answer:?}");
        assert!(answer.contains("Connection: close"), "{answer:?}");
    }
    // The saturated listener starves nothing else in the process.
    expect_get(&control, "/ping", "pong").await;

    // The held connections sent nothing; they are closed after the timeout.
    for stream in &mut idle {
        let (_, closed) = until_closed(stream).await;
        assert!(closed - opened >= timeout, "closed before the timeout");
    }
    // Their places are free again: a client session works.
    let session = Session::connect(StreamableHttpClientTransport::from_uri(mcp_uri(&mcp))).await;
    assert!(!session.tool_names().await.is_empty());
    mcp.shutdown().await.unwrap();
    control.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_sent_request_head_is_closed_after_the_header_timeout() {
    let limits = Limits::default()
        .with_header_read_timeout(SHORT)
        .with_idle_timeout(NEVER);
    let http = serve_plain(limits).await;

    let mut stream = TcpStream::connect(http.local_addr()).await.unwrap();
    expect_half_sent_head_cut_off(&mut stream).await;
    // The listener still serves whole requests.
    expect_get(&http, "/ping", "pong").await;
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let limits = Limits::default()
        .with_header_read_timeout(NEVER)
        .with_idle_timeout(SHORT);
    let http = serve_plain(limits).await;

    let mut stream = TcpStream::connect(http.local_addr()).await.unwrap();
    ping(&mut stream).await;
    let answered = Instant::now();
    // Keep-alive: the connection stays for another request, but not forever.
    let (rest, closed) = until_closed(&mut stream).await;
    assert_eq!(rest, "");
    assert!(closed - answered >= SHORT, "closed before the timeout");
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keep_alive_connection_idle_past_the_header_timeout_serves_its_next_request() {
    // The header-read timeout times a head from its first byte, not from
    // the previous answer: a client reusing its connection after a pause
    // (an agent thinking) is served, and a slow head is still cut off.
    let limits = Limits::default()
        .with_header_read_timeout(SHORT)
        .with_idle_timeout(NEVER);
    let http = serve_plain(limits).await;

    let mut stream = TcpStream::connect(http.local_addr()).await.unwrap();
    for _ in 0..2 {
        ping(&mut stream).await;
        tokio::time::sleep(SHORT * 3).await;
    }
    ping(&mut stream).await;
    expect_half_sent_head_cut_off(&mut stream).await;
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_sse_stream_outlasts_the_idle_and_header_timeouts() {
    let limits = Limits::default()
        .with_header_read_timeout(SHORT)
        .with_idle_timeout(SHORT);
    let (controller, _handler, http) = serve_tasks(limits).await;
    let mut raw = RawSession::open(&mcp_uri(&http), "unused").await;
    let session = Session::connect(StreamableHttpClientTransport::from_uri(mcp_uri(&http))).await;

    // Quiet for several timeouts; then a replacement reaches both streams.
    tokio::time::sleep(SHORT * 4).await;
    assert!(controller.replace(child()).changed());
    raw.expect_event("notifications/tools/list_changed").await;
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    assert!(!session.tool_names().await.is_empty());
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_live_sessions_and_returns_within_the_drain_timeout() {
    let drain = Duration::from_millis(500);
    let limits = Limits::default().with_drain_timeout(drain);
    let (_controller, handler, mcp) = serve_tasks(limits.clone()).await;
    let plain = serve_plain(limits).await;

    let mut raw = RawSession::open(&mcp_uri(&mcp), "unused").await;
    let _session = Session::connect(StreamableHttpClientTransport::from_uri(mcp_uri(&mcp))).await;
    // A tool call in flight that nothing releases.
    let wait = serde_json::json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "wait_for_release", "arguments": {}},
    });
    let call = RawSession::post(&mcp_uri(&mcp), "unused", Some(raw.id()), &wait).await;
    assert_eq!(call.status().as_u16(), 200);
    // And a plain request whose answer never comes.
    let mut hanging = TcpStream::connect(plain.local_addr()).await.unwrap();
    hanging
        .write_all(b"GET /hang HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    while handler.calls("wait_for_release_started") == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    tokio::time::timeout(LIMIT, async {
        mcp.shutdown().await.unwrap();
        plain.shutdown().await.unwrap();
    })
    .await
    .expect("shutdown returns although a request never ends");
    raw.expect_stream_end().await;
    let _ = until_closed(&mut hanging).await;
    // The call's response stream ends with the server, unanswered.
    let rest = tokio::time::timeout(LIMIT, call.text())
        .await
        .expect("the in-flight call's stream ends");
    assert!(!rest.unwrap_or_default().contains("\"result\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_echoes_a_bounded_part_of_a_huge_name() {
    let (_controller, handler, http) = serve_tasks(Limits::default()).await;
    let session = Session::connect(StreamableHttpClientTransport::from_uri(mcp_uri(&http))).await;

    let huge = "ж".repeat(50_000);
    let CallOutcome::Refused(code, message) = session.call(&huge, None).await else {
        panic!("a tool outside the profile ran");
    };
    assert_eq!(code, -32602);
    assert!(message.len() < 300, "{} bytes echoed", message.len());
    let shown = format!("tool `{}… (100000 bytes)`", "ж".repeat(64));
    assert!(message.starts_with(&shown), "{message}");
    assert_eq!(handler.calls(&huge), 0);
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_session_id_is_echoed_bounded() {
    let store = Arc::new(ProfileStore::<TaskServer>::default());
    store.add_agent("alice", asking());
    store.grant("alice-token", "alice").unwrap();
    let http = mcp_profiles_serve::http::Serve::on(any_port())
        .agents(&store, TaskServer::default())
        .await
        .unwrap();

    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let huge = "s".repeat(100_000);
    let response = RawSession::post(&mcp_uri(&http), "alice-token", Some(&huge), &list).await;
    assert_eq!(response.status().as_u16(), 404);
    let body = response.text().await.unwrap();
    assert!(body.len() < 300, "{} bytes echoed", body.len());
    assert!(body.contains("… (100000 bytes)"), "{body}");
    http.shutdown().await.unwrap();
}
