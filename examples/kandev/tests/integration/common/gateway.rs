//! The gateway's control API and MCP door as its tests use them, shared
//! by `gateway.rs` and `gateway_hostile.rs`.

use reqwest::Method;
use serde_json::{Value, json};

use super::{BEARER, LIMIT, Server};

/// A control-API call with the right token; status and answer.
pub async fn call(
    gateway: &Server,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let http = reqwest::Client::new();
    gateway
        .control(
            &http,
            method,
            path,
            Some(BEARER),
            body.map(|b| b.to_string()),
        )
        .await
}

/// A control-API change with the right token: its status, its
/// `Mcp-Profiles-Applied` and `Mcp-Profiles-Pending` headers, and its answer.
pub async fn change(
    gateway: &Server,
    method: Method,
    path: &str,
    body: Value,
) -> (u16, Option<String>, Option<String>, Value) {
    let response = reqwest::Client::new()
        .request(method, format!("{}{path}", gateway.control))
        .header("Authorization", BEARER)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("the control API answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|value| value.to_str().expect("a visible header").to_owned())
    };
    let (applied, pending) = (
        header("mcp-profiles-applied"),
        header("mcp-profiles-pending"),
    );
    let status = response.status().as_u16();
    let answer = response.json().await.expect("a JSON answer");
    (status, applied, pending, answer)
}

/// `PUT /api/v1/agents/{principal}` of `profile` (JSON text); panics
/// unless it answers 200. The answer.
pub async fn put(gateway: &Server, principal: &str, profile: &str) -> Value {
    let profile: Value = serde_json::from_str(profile).unwrap();
    let path = format!("/api/v1/agents/{principal}");
    let (status, answer) = call(
        gateway,
        Method::PUT,
        &path,
        Some(json!({ "profile": profile })),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    answer
}

/// `POST /api/v1/tokens`: lets `token` act as `principal`; panics unless
/// it answers 200.
pub async fn grant(gateway: &Server, token: &str, principal: &str) {
    let body = json!({ "token": token, "principal": principal });
    let (status, answer) = call(gateway, Method::POST, "/api/v1/tokens", Some(body)).await;
    assert_eq!(status, 200, "{answer}");
}

/// The status of an `initialize` bearing `token` at `gateway`'s MCP
/// endpoint: 200 if it lets the token in, 401 if not.
pub async fn admitted(gateway: &Server, token: &str) -> u16 {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "0"}},
    });
    mcp_profiles_tests::raw::RawSession::post(&gateway.mcp, token, None, &initialize)
        .await
        .status()
        .as_u16()
}

/// The tool names of a control answer (`"tools"`).
pub fn names(answer: &Value) -> Vec<String> {
    answer["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect()
}

/// Waits until `gateway` refuses `token` (a change made elsewhere reaches
/// it through the store); panics if it still lets it in after [`LIMIT`]. A
/// test checks that the refusal arrives, not how fast.
pub async fn until_refused(gateway: &Server, token: &str) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    while admitted(gateway, token).await != 401 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "`{token}` was still let in after {LIMIT:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
