//! One MCP request over HTTP with an access token, answered with what an
//! OAuth test checks: the status, the `WWW-Authenticate` challenge and the
//! body.

use std::time::Duration;

use serde_json::{Value, json};

use crate::raw::RawSession;

/// What the server answered.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The `WWW-Authenticate` header; empty without one.
    pub challenge: String,
    /// The body, as text.
    pub body: String,
}

/// POSTs `body` (one JSON-RPC message, no session) to `uri`, with
/// `Authorization: Bearer <token>` when a token is given.
pub async fn post(uri: &str, token: Option<&str>, body: &Value) -> Answer {
    let mut request = reqwest::Client::new()
        .post(uri)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", RawSession::VERSION)
        .timeout(Duration::from_secs(30))
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().expect("ASCII").to_owned())
        .unwrap_or_default();
    let body = response.text().await.unwrap_or_default();
    Answer {
        status,
        challenge,
        body,
    }
}

/// An `initialize` request, the first a client sends.
pub fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": RawSession::VERSION,
            "capabilities": {},
            "clientInfo": {"name": "oauth-probe", "version": "0"},
        },
    })
}

/// A `tools/call` of `tool` with `arguments`.
pub fn call(tool: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    })
}
