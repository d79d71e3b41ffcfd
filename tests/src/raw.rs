//! Streamable HTTP driven by hand with reqwest: a 2025-era session, for
//! tests that need its session id or hold its standalone SSE stream
//! themselves, and a 2026-07-28 `subscriptions/listen` stream, for tests
//! that send what rmcp's client does not.

/// How long it waits for something that must happen.
use crate::waits::LIMIT;

/// The notification that the tools changed.
pub const TOOLS_CHANGED: &str = "notifications/tools/list_changed";
/// The notification that the prompts changed.
pub const PROMPTS_CHANGED: &str = "notifications/prompts/list_changed";
/// The notification that the resources (or templates) changed.
pub const RESOURCES_CHANGED: &str = "notifications/resources/list_changed";
/// The notification that the groups changed (MCP's grouping extension).
pub const GROUPS_CHANGED: &str = "notifications/groups/list_changed";

/// A 2025-era session driven by hand, so the test knows its session id and
/// holds its standalone SSE stream.
pub struct RawSession {
    uri: String,
    id: String,
    stream: reqwest::Response,
    /// The `initialize` result.
    initialized: serde_json::Value,
}

impl RawSession {
    /// The protocol version it speaks.
    pub const VERSION: &str = "2025-11-25";

    /// Initialises a session at `uri` with bearer `token` and opens its
    /// standalone SSE stream.
    pub async fn open(uri: &str, token: &str) -> Self {
        Self::open_with(uri, token, serde_json::json!({})).await
    }

    /// [`open`](Self::open), the client declaring `capabilities`.
    pub async fn open_with(uri: &str, token: &str, capabilities: serde_json::Value) -> Self {
        let initialize = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": Self::VERSION,
                "capabilities": capabilities,
                "clientInfo": {"name": "raw", "version": "0"},
            },
        });
        let response = Self::post(uri, token, None, &initialize).await;
        assert_eq!(response.status().as_u16(), 200);
        let id = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let answered = answer_of(response).await;
        let initialized =
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = Self::post(uri, token, Some(&id), &initialized).await;
        assert_eq!(response.status().as_u16(), 202);
        let stream = reqwest::Client::new()
            .get(uri)
            .bearer_auth(token)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", &id)
            .header("MCP-Protocol-Version", Self::VERSION)
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status().as_u16(), 200);
        RawSession {
            uri: uri.to_owned(),
            id,
            stream,
            initialized: answered,
        }
    }

    /// What `initialize` answered: its `result`.
    pub fn initialized(&self) -> &serde_json::Value {
        &self.initialized["result"]
    }

    /// Sends request `method` with `params` on this session with `token`
    /// and returns the JSON-RPC answer (its `result` or `error`), whether
    /// it came as JSON or as an SSE event.
    pub async fn request(
        &self,
        token: &str,
        method: &str,
        params: serde_json::Value,
    ) -> serde_json::Value {
        let body =
            serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        answer_of(Self::post(&self.uri, token, Some(&self.id), &body).await).await
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// POSTs one JSON-RPC message with `token`, on `session` if given.
    pub async fn post(
        uri: &str,
        token: &str,
        session: Option<&str>,
        body: &serde_json::Value,
    ) -> reqwest::Response {
        let mut request = reqwest::Client::new()
            .post(uri)
            .bearer_auth(token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", Self::VERSION)
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("Mcp-Session-Id", session);
        }
        request.send().await.unwrap()
    }

    /// The status of a `tools/list` on this session made with `token`.
    pub async fn list_status(&self, token: &str) -> u16 {
        let list = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let response = Self::post(&self.uri, token, Some(&self.id), &list).await;
        response.status().as_u16()
    }

    /// Reads the standalone stream until it ends.
    pub async fn expect_stream_end(&mut self) {
        let drained = async { while let Ok(Some(_)) = self.stream.chunk().await {} };
        tokio::time::timeout(LIMIT, drained)
            .await
            .expect("the session's SSE stream ends");
    }

    /// Reads the standalone stream until an event containing `needle`
    /// arrives; panics if the stream ends or fails first.
    pub async fn expect_event(&mut self, needle: &str) {
        self.events_until(needle).await;
    }

    /// Everything the standalone stream carried from here up to and
    /// including the first event containing `needle`; panics if the stream
    /// ends or fails first.
    pub async fn events_until(&mut self, needle: &str) -> String {
        events_until(&mut self.stream, needle).await
    }
}

/// A 2026-07-28 `subscriptions/listen` stream opened by hand: one
/// stateless POST whose SSE answer stays open.
pub struct RawListen {
    stream: reqwest::Response,
    /// What the stream carried past the last message read.
    unread: String,
}

impl RawListen {
    /// The protocol version it speaks.
    pub const VERSION: &str = "2026-07-28";

    /// Opens a stream at `uri` with bearer `token` asking for
    /// `notifications` (the filter), its client declaring `capabilities`,
    /// with `meta` added to its request's `_meta`. Returns the stream once
    /// acknowledged, with the acknowledgement's `params`; the JSON-RPC
    /// error instead if the server answered one first.
    pub async fn open(
        uri: &str,
        token: &str,
        capabilities: serde_json::Value,
        meta: serde_json::Value,
        notifications: serde_json::Value,
    ) -> Result<(Self, serde_json::Value), serde_json::Value> {
        let mut request_meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": Self::VERSION,
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        for (key, value) in meta.as_object().into_iter().flatten() {
            request_meta[key] = value.clone();
        }
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
            "params": {"_meta": request_meta, "notifications": notifications},
        });
        let stream = reqwest::Client::new()
            .post(uri)
            .bearer_auth(token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", Self::VERSION)
            .header("Mcp-Method", "subscriptions/listen")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let mut listen = RawListen {
            stream,
            unread: String::new(),
        };
        let first = listen.next_message().await;
        match first["method"].as_str() {
            Some("notifications/subscriptions/acknowledged") => {
                Ok((listen, first["params"].clone()))
            }
            _ => Err(first),
        }
    }

    /// The next JSON-RPC message the stream carries; panics if it ends
    /// first or nothing comes within [`LIMIT`].
    pub async fn next_message(&mut self) -> serde_json::Value {
        let next = async {
            loop {
                if let Some(end) = self.unread.find("\n\n") {
                    let event: String = self.unread.drain(..end + 2).collect();
                    // An event without data (a priming event's id) carries
                    // no message.
                    if let Some(data) = data_of(&event) {
                        return serde_json::from_str(data)
                            .unwrap_or_else(|error| panic!("{error}: {data}"));
                    }
                    continue;
                }
                match self.stream.chunk().await {
                    Ok(Some(chunk)) => self.unread.push_str(&String::from_utf8_lossy(&chunk)),
                    ended => panic!("the SSE stream ended: {ended:?}"),
                }
            }
        };
        tokio::time::timeout(LIMIT, next)
            .await
            .expect("a message on the SSE stream")
    }

    /// The methods of the messages the stream carries within
    /// [`QUIET`](crate::waits::QUIET).
    pub async fn methods_within_quiet(&mut self) -> Vec<String> {
        let mut methods = Vec::new();
        let quiet = tokio::time::sleep(crate::waits::QUIET);
        tokio::pin!(quiet);
        loop {
            tokio::select! {
                _ = &mut quiet => return methods,
                message = self.next_message() => {
                    methods.push(message["method"].as_str().unwrap_or("(an answer)").to_owned());
                }
            }
        }
    }
}

/// Everything `stream` carried from here up to and including the first
/// chunk containing `needle`; panics if the stream ends or fails first.
async fn events_until(stream: &mut reqwest::Response, needle: &str) -> String {
    let mut seen = String::new();
    let found = async {
        while !seen.contains(needle) {
            match stream.chunk().await {
                Ok(Some(chunk)) => seen.push_str(&String::from_utf8_lossy(&chunk)),
                ended => panic!("the SSE stream ended before `{needle}`: {ended:?}"),
            }
        }
    };
    tokio::time::timeout(LIMIT, found)
        .await
        .unwrap_or_else(|_| panic!("no `{needle}` event on the SSE stream"));
    seen
}

/// The JSON-RPC message a POST answered, as JSON or as the SSE event
/// carrying it.
async fn answer_of(response: reqwest::Response) -> serde_json::Value {
    let sse = response
        .headers()
        .get("content-type")
        .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
    let body = response.text().await.unwrap();
    let json = match sse {
        true => data_of(&body).unwrap_or_else(|| panic!("an SSE answer without data: {body}")),
        false => body.as_str(),
    };
    serde_json::from_str(json).unwrap_or_else(|error| panic!("{error}: {json}"))
}

/// The first non-empty `data:` of an SSE event (or of a whole SSE body).
fn data_of(event: &str) -> Option<&str> {
    event
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| !data.is_empty())
}

/// The capabilities of a raw client that declares MCP's grouping
/// extension.
pub fn declaring_grouping() -> serde_json::Value {
    serde_json::json!({"extensions": {mcp_profiles::GROUPING_EXTENSION: {}}})
}
