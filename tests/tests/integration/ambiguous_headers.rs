//! A request carrying a header that decides who or what is served more
//! than once is ambiguous (RFC 9110 §5.3): refused with 400 naming it, on
//! the MCP listener and on the control listener, over the in-memory store
//! and over Redis; never one value picked, and nothing changed.

use std::sync::Arc;

use mcp_profiles::ProfileContext;
use mcp_profiles_serve::control::ControlApi;
use mcp_profiles_serve::http::{HttpServer, Serve};
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore, RedisOptions, RedisStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{Session, http_transport, serve_agents, serve_http};
use mcp_profiles_tests::contexts::{asking, names_of};
use mcp_profiles_tests::redis::RedisServer;
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};

const CONTROL_TOKEN: &str = "control-secret";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#;

/// Sends `body` to `url` with `headers`, each as given (a name twice is
/// two header lines); the status and the answer's text.
async fn send(
    url: &str,
    method: reqwest::Method,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .request(method, url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    for (name, value) in headers {
        // `header` appends: a repeated name is sent twice.
        request = request.header(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    let response = request.send().await.expect("the listener answers");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

/// Every way to be ambiguous on the MCP listener of many agents, with the
/// agent `alice` holding `alice-token` (and `bob` holding `bob-token`).
async fn the_mcp_listener_refuses_each(uri: &str) {
    let cases: [(&[(&str, &str)], &str); 5] = [
        (
            &[
                ("authorization", "Bearer alice-token"),
                ("authorization", "Bearer bob-token"),
            ],
            "`Authorization` 2 times",
        ),
        (
            &[
                ("authorization", "Bearer alice-token"),
                ("authorization", "Bearer alice-token"),
            ],
            "`Authorization` 2 times",
        ),
        (
            &[
                ("authorization", "Bearer alice-token"),
                ("mcp-session-id", "a"),
                ("mcp-session-id", "b"),
            ],
            "`Mcp-Session-Id` 2 times",
        ),
        (
            &[
                ("authorization", "Bearer alice-token"),
                ("mcp-protocol-version", "2025-06-18"),
                ("mcp-protocol-version", "2025-03-26"),
            ],
            "`MCP-Protocol-Version` 2 times",
        ),
        (
            &[
                ("authorization", "Bearer alice-token"),
                ("mcp-param-name", "a"),
                ("mcp-param-name", "b"),
            ],
            "`mcp-param-name` 2 times",
        ),
    ];
    for (headers, named) in cases {
        let (status, text) = send(uri, reqwest::Method::POST, headers, INITIALIZE).await;
        assert_eq!(status, 400, "{headers:?}: {text}");
        assert!(
            text.contains(named) && text.contains("at most once"),
            "{headers:?}: {text}"
        );
    }
    // The same request with each header once is served.
    let (status, text) = send(
        uri,
        reqwest::Method::POST,
        &[("authorization", "Bearer alice-token")],
        INITIALIZE,
    )
    .await;
    assert_eq!(status, 200, "{text}");
}

/// Every way to be ambiguous on a control listener at `base`; none changes
/// anything (`store` still has no agent `carol`).
async fn the_control_listener_refuses_each(base: &str, store: &dyn AgentStore<TaskServer>) {
    let bearer = format!("Bearer {CONTROL_TOKEN}");
    let put =
        json!({"profile": serde_json::from_str::<Value>(&asking().to_json()).unwrap()}).to_string();
    let url = format!("{base}/api/v1/agents/carol");
    let cases: [(&[(&str, &str)], &str); 3] = [
        (
            &[("authorization", &bearer), ("authorization", &bearer)],
            "`Authorization` 2 times",
        ),
        (
            &[
                ("authorization", &bearer),
                ("authorization", "Bearer wrong"),
            ],
            "`Authorization` 2 times",
        ),
        (
            &[
                ("authorization", &bearer),
                ("x-request-id", "req-1"),
                ("x-request-id", "req-2"),
            ],
            "`X-Request-Id` 2 times",
        ),
    ];
    for (headers, named) in cases {
        let (status, text) = send(&url, reqwest::Method::PUT, headers, &put).await;
        assert_eq!(status, 400, "{headers:?}: {text}");
        let refusal: Value = serde_json::from_str(&text).expect("a refusal in JSON");
        assert_eq!(refusal["status"], 400, "{text}");
        assert!(refusal["error"].as_str().unwrap().contains(named), "{text}");
    }
    assert!(
        store.agent("carol").await.unwrap().is_none(),
        "nothing was changed"
    );
    // The admin page's routes too (their own login).
    let (status, _) = send(
        &format!("{base}/admin"),
        reqwest::Method::GET,
        &[("authorization", &bearer), ("authorization", &bearer)],
        "",
    )
    .await;
    assert_eq!(status, 400);
    let (status, text) = send(
        &url,
        reqwest::Method::PUT,
        &[("authorization", &bearer)],
        &put,
    )
    .await;
    assert_eq!(status, 200, "with each header once: {text}");
}

async fn control_over(store: Arc<dyn AgentStore<TaskServer>>) -> (HttpServer, String) {
    let api = ControlApi::new(store, CONTROL_TOKEN).with_admin();
    let control = Serve::on("127.0.0.1:0".parse().unwrap())
        .app(api.router())
        .await
        .unwrap();
    let base = format!("http://{}", control.local_addr());
    (control, base)
}

async fn alice_and_bob(store: &dyn AgentStore<TaskServer>) {
    for (principal, token) in [("alice", "alice-token"), ("bob", "bob-token")] {
        store.put_agent(principal, asking(), by()).await.unwrap();
        store.grant_token(token, principal, by()).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_identity_headers_are_refused_in_memory() {
    let profiles = Arc::new(ProfileStore::<TaskServer>::default());
    let store: Arc<dyn AgentStore<TaskServer>> = Arc::new(MemoryStore::new(Arc::clone(&profiles)));
    alice_and_bob(store.as_ref()).await;
    let (_mcp, uri) = serve_agents(&profiles, TaskServer::default()).await;
    the_mcp_listener_refuses_each(&uri).await;
    let (_control, base) = control_over(Arc::clone(&store)).await;
    the_control_listener_refuses_each(&base, store.as_ref()).await;
    // A client that sends each once is served as before.
    let alice = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    assert_eq!(alice.tool_names().await, names_of(&asking()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_identity_headers_are_refused_over_redis() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = RedisStore::<TaskServer>::connect(&redis.url(), RedisOptions::default())
        .await
        .expect("the store connects");
    let (_mcp, uri) = serve_agents(store.profiles(), TaskServer::default()).await;
    let store: Arc<dyn AgentStore<TaskServer>> = Arc::new(store);
    alice_and_bob(store.as_ref()).await;
    the_mcp_listener_refuses_each(&uri).await;
    let (_control, base) = control_over(Arc::clone(&store)).await;
    the_control_listener_refuses_each(&base, store.as_ref()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_agents_listener_refuses_a_repeated_session_id() {
    let controller = mcp_profiles::ProfileController::<TaskServer>::new(ProfileContext::new(
        mcp_profiles_tests::Surface::KanbanTask,
    ));
    let (_http, uri) = serve_http(controller.server(TaskServer::default())).await;
    let (status, text) = send(
        &uri,
        reqwest::Method::POST,
        &[("mcp-session-id", "a"), ("mcp-session-id", "b")],
        INITIALIZE,
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("`Mcp-Session-Id` 2 times"), "{text}");
}
