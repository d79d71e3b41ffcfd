//! A lean streamable-HTTP JSON-RPC client for the load generators of the
//! `e2e`, `oauth` and `gateway_load` benches.
//!
//! Why not rmcp's client: it would put its own work on the generator's one
//! core for every request (serialising a typed request, a task and channels
//! per call, SSE parsing and deserialising the whole typed result), and
//! that cost would show in the latency the bench attributes to the server.
//! Here a request is one reqwest POST of a body formatted from a fixed
//! prefix and suffix around its id, on the client's own keep-alive
//! connection; every response's status is checked and its body read to the
//! end (so the server did all its work), and the first and every
//! [`CHECK_EVERY`]th response is parsed and checked in full (its id, and
//! the listed tool count or a successful call result).

use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::results::quantile;

/// One in how many responses is parsed and checked in full.
pub const CHECK_EVERY: u64 = 64;

/// The protocol version of 2025-era sessions.
pub const LEGACY: &str = "2025-11-25";
/// The 2026-07-28 protocol: no session, every request stateless and
/// carrying its protocol version and client context in `_meta`.
pub const MODERN: &str = "2026-07-28";

/// How a client talks to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// `initialize`, `notifications/initialized`, then requests on the
    /// session named by `Mcp-Session-Id`; `DELETE` at the end.
    Legacy,
    /// 2026-07-28: every request is a stateless POST with the SEP-2575
    /// `_meta` client context and the SEP-2243 `Mcp-Method` / `Mcp-Name`
    /// headers, as rmcp's client sends them.
    Modern,
}

impl Era {
    /// Its protocol version.
    pub fn version(self) -> &'static str {
        match self {
            Era::Legacy => LEGACY,
            Era::Modern => MODERN,
        }
    }
}

/// What a client asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `tools/list`.
    List,
    /// `tools/call` of the client's tool ([`Calls::tool`]).
    Call,
}

impl Op {
    /// The JSON-RPC method.
    pub fn method(self) -> &'static str {
        match self {
            Op::List => "tools/list",
            Op::Call => "tools/call",
        }
    }
}

/// What a client's requests carry besides their method: the tool its
/// `tools/call`s name, their arguments, and a bearer token.
#[derive(Clone, Copy, Debug)]
pub struct Calls<'a> {
    /// The tool of every `tools/call`.
    pub tool: &'a str,
    /// Its arguments, a JSON object as text.
    pub arguments: &'a str,
    /// Sent as `Authorization: Bearer ...` on every request when set.
    pub bearer: Option<&'a str>,
}

impl<'a> Calls<'a> {
    /// Calls of `tool` without arguments or token.
    pub fn of(tool: &'a str) -> Self {
        Calls {
            tool,
            arguments: "{}",
            bearer: None,
        }
    }
}

/// How a [`Client::call`] was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A JSON-RPC result (the tool ran; `isError` is the tool's own).
    Result {
        /// The result's `isError`.
        is_error: bool,
    },
    /// A JSON-RPC error with this code (-32602: not a tool of the profile).
    Error(i64),
    /// No JSON-RPC answer: a transport error, an HTTP status other than
    /// 200, or a body without the response.
    Lost(String),
}

/// One virtual client: its own connection pool (so its own connection),
/// its session in the 2025 era, and the next request id.
pub struct Client {
    http: reqwest::Client,
    uri: String,
    era: Era,
    session: Option<String>,
    next_id: u64,
    /// The `Authorization` header, if any.
    authorization: Option<HeaderValue>,
    /// Headers for tools/list and tools/call, built once.
    headers: [HeaderMap; 2],
    /// The body around the request id, per op.
    bodies: [(String, String); 2],
    body: String,
}

fn header(name: &'static str, value: &str) -> (HeaderName, HeaderValue) {
    (
        HeaderName::from_static(name),
        HeaderValue::from_str(value).expect("a valid header value"),
    )
}

fn base_headers(era: Era, authorization: Option<&HeaderValue>) -> HeaderMap {
    let mut headers = HeaderMap::from_iter([
        header("content-type", "application/json"),
        header("accept", "application/json, text/event-stream"),
        header("mcp-protocol-version", era.version()),
    ]);
    if let Some(value) = authorization {
        headers.insert(reqwest::header::AUTHORIZATION, value.clone());
    }
    headers
}

impl Client {
    /// A client of `uri` calling `tool` without arguments or token; in the
    /// 2025 era, with an initialised session.
    pub async fn connect(uri: &str, era: Era, tool: &str) -> Client {
        Self::connect_with(uri, era, Calls::of(tool)).await
    }

    /// A client of `uri` making `calls`; in the 2025 era, with an
    /// initialised session.
    pub async fn connect_with(uri: &str, era: Era, calls: Calls<'_>) -> Client {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .expect("a reqwest client");
        Self::connect_on(http, uri, era, calls).await
    }

    /// [`connect_with`](Self::connect_with) over `http`'s connection pool,
    /// which many clients may share (their sessions are told apart by
    /// `Mcp-Session-Id`, not by connection).
    pub async fn connect_on(
        http: reqwest::Client,
        uri: &str,
        era: Era,
        calls: Calls<'_>,
    ) -> Client {
        let Calls {
            tool,
            arguments,
            bearer,
        } = calls;
        let authorization = bearer.map(|token| {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {token}")).expect("a valid bearer token");
            value.set_sensitive(true);
            value
        });
        let mut session = None;
        if era == Era::Legacy {
            let initialize = format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY}","capabilities":{{}},"clientInfo":{{"name":"e2e-bench","version":"0"}}}}}}"#
            );
            let response = http
                .post(uri)
                .headers(base_headers(era, authorization.as_ref()))
                .body(initialize)
                .send()
                .await
                .expect("initialize");
            assert_eq!(response.status().as_u16(), 200, "initialize");
            let id = response.headers()["mcp-session-id"]
                .to_str()
                .expect("an ASCII session id")
                .to_owned();
            let _ = response.bytes().await;
            let mut headers = base_headers(era, authorization.as_ref());
            headers.insert("mcp-session-id", HeaderValue::from_str(&id).unwrap());
            let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
            let response = http
                .post(uri)
                .headers(headers)
                .body(initialized)
                .send()
                .await
                .expect("notifications/initialized");
            assert_eq!(response.status().as_u16(), 202, "initialized");
            session = Some(id);
        }
        let headers = [Op::List, Op::Call].map(|op| {
            let mut headers = base_headers(era, authorization.as_ref());
            match &session {
                Some(id) => {
                    headers.insert("mcp-session-id", HeaderValue::from_str(id).unwrap());
                }
                None => {
                    headers.insert("mcp-method", HeaderValue::from_static(op.method()));
                    if op == Op::Call {
                        headers.insert("mcp-name", HeaderValue::from_str(tool).unwrap());
                    }
                }
            }
            headers
        });
        let meta = match era {
            Era::Legacy => String::new(),
            Era::Modern => format!(
                r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/clientInfo":{{"name":"e2e-bench","version":"0"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}"#
            ),
        };
        let list_params = if meta.is_empty() {
            String::new()
        } else {
            format!(r#","params":{{{meta}}}"#)
        };
        let call_meta = if meta.is_empty() {
            meta.clone()
        } else {
            format!(",{meta}")
        };
        let bodies = [
            (
                r#"{"jsonrpc":"2.0","id":"#.to_owned(),
                format!(r#","method":"tools/list"{list_params}}}"#),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"#.to_owned(),
                format!(
                    r#","method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}{call_meta}}}}}"#
                ),
            ),
        ];
        Client {
            http,
            uri: uri.to_owned(),
            era,
            session,
            next_id: 1,
            authorization,
            headers,
            bodies,
            body: String::new(),
        }
    }

    /// One request; checked in full when `check` (else its status only).
    /// `expected_tools` is the number of tools a `tools/list` must list.
    pub async fn request(&mut self, op: Op, check: bool, expected_tools: usize) {
        use std::fmt::Write as _;
        let id = self.next_id;
        self.next_id += 1;
        let (prefix, suffix) = &self.bodies[op as usize];
        self.body.clear();
        self.body.push_str(prefix);
        let _ = write!(self.body, "{id}");
        self.body.push_str(suffix);
        let response = self
            .http
            .post(&self.uri)
            .headers(self.headers[op as usize].clone())
            .body(self.body.clone())
            .send()
            .await
            .unwrap_or_else(|error| panic!("{} {:?}: {error}", op.method(), self.era));
        let status = response.status().as_u16();
        let body = response.bytes().await.expect("the response body");
        if status != 200 {
            panic!(
                "{} {:?}: HTTP {status}: {}",
                op.method(),
                self.era,
                String::from_utf8_lossy(&body)
            );
        }
        if check {
            check_response(&body, id, op, expected_tools);
        }
    }

    /// One `tools/call` of the client's tool, its answer classified rather
    /// than checked: a result, a JSON-RPC error's code, or no answer.
    pub async fn call(&mut self) -> Answer {
        use std::fmt::Write as _;
        let id = self.next_id;
        self.next_id += 1;
        let (prefix, suffix) = &self.bodies[Op::Call as usize];
        self.body.clear();
        self.body.push_str(prefix);
        let _ = write!(self.body, "{id}");
        self.body.push_str(suffix);
        let sent = self
            .http
            .post(&self.uri)
            .headers(self.headers[Op::Call as usize].clone())
            .body(self.body.clone())
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(error) => return Answer::Lost(with_sources(&error)),
        };
        let status = response.status().as_u16();
        let body = match response.bytes().await {
            Ok(body) => body,
            Err(error) => return Answer::Lost(with_sources(&error)),
        };
        if status != 200 {
            return Answer::Lost(format!("HTTP {status}: {}", String::from_utf8_lossy(&body)));
        }
        match find_message(&body, id) {
            Some(message) => match message["error"]["code"].as_i64() {
                Some(code) => Answer::Error(code),
                None if message.get("result").is_some() => Answer::Result {
                    is_error: message["result"]["isError"] == true,
                },
                None => Answer::Lost(format!("neither result nor error: {message}")),
            },
            None => Answer::Lost(format!(
                "no response with id {id} in: {}",
                String::from_utf8_lossy(&body)
            )),
        }
    }

    /// The 2025-era session's id (`None` in the 2026 era), the rest of the
    /// client dropped: what a memory measurement keeps of a session.
    pub fn into_session(self) -> Option<String> {
        self.session
    }

    /// Whether request number `n` of this client is checked in full.
    pub fn checks(&self) -> bool {
        self.next_id == 1 || self.next_id.is_multiple_of(CHECK_EVERY)
    }

    /// Ends the 2025-era session (rmcp then drops its state).
    pub async fn close(self) {
        if let Some(id) = &self.session {
            let mut request = self
                .http
                .delete(&self.uri)
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", LEGACY);
            if let Some(value) = &self.authorization {
                request = request.header(reqwest::header::AUTHORIZATION, value.clone());
            }
            let response = request.send().await.expect("DELETE of the session");
            let _ = response.bytes().await;
        }
    }

    /// The tool names a `tools/list` answers, sorted.
    pub async fn tool_names(&mut self) -> Vec<String> {
        let mut names: Vec<String> = self
            .tools()
            .await
            .iter()
            .map(|tool| tool["name"].as_str().expect("a tool name").to_owned())
            .collect();
        names.sort();
        names
    }

    /// The tools a `tools/list` answers, as listed (names, descriptions,
    /// schemas): what the `peers` bench gives the other SDKs' servers.
    pub async fn tools(&mut self) -> Vec<serde_json::Value> {
        match self.result(Op::List).await["tools"].take() {
            serde_json::Value::Array(tools) => tools,
            other => panic!("tools/list answered no tools array: {other}"),
        }
    }

    /// The `result` of one `op` request, whole.
    pub async fn result(&mut self, op: Op) -> serde_json::Value {
        let body = self.answer(op).await;
        let mut message =
            find_message(&body, 0).unwrap_or_else(|| panic!("no {} response", op.method()));
        message["result"].take()
    }

    /// The size of one `op` response's HTTP body as the server sent it
    /// (SSE framing included, transfer encoding not): what an answer costs
    /// on the wire beside its time.
    pub async fn response_bytes(&mut self, op: Op) -> usize {
        self.answer(op).await.len()
    }

    /// The body of one `op` request with id 0.
    async fn answer(&mut self, op: Op) -> Vec<u8> {
        let (prefix, suffix) = &self.bodies[op as usize];
        self.body = format!("{prefix}0{suffix}");
        let response = self
            .http
            .post(&self.uri)
            .headers(self.headers[op as usize].clone())
            .body(self.body.clone())
            .send()
            .await
            .unwrap_or_else(|error| panic!("{}: {error}", op.method()));
        response.bytes().await.expect("a body").to_vec()
    }
}

/// `error` and every error under it: reqwest's own message names only the
/// URL, the cause (a reset, a closed connection) is its sources'.
fn with_sources(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The JSON-RPC message with id `id` in an SSE or JSON body.
fn find_message(body: &[u8], id: u64) -> Option<serde_json::Value> {
    let text = std::str::from_utf8(body).ok()?;
    let candidates: Box<dyn Iterator<Item = &str>> = if text.trim_start().starts_with('{') {
        Box::new(std::iter::once(text))
    } else {
        Box::new(
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .filter(|data| !data.is_empty()),
        )
    };
    candidates
        .filter_map(|data| serde_json::from_str::<serde_json::Value>(data).ok())
        .find(|message| message["id"] == id)
}

fn check_response(body: &[u8], id: u64, op: Op, expected_tools: usize) {
    let message = find_message(body, id).unwrap_or_else(|| {
        panic!(
            "no response with id {id} in: {}",
            String::from_utf8_lossy(body)
        )
    });
    let result = &message["result"];
    let ok = match op {
        Op::List => result["tools"].as_array().map(Vec::len) == Some(expected_tools),
        Op::Call => {
            result["isError"] != true && result["content"].as_array().is_some_and(|c| !c.is_empty())
        }
    };
    assert!(ok, "unexpected {} response: {message}", op.method());
}

/// One server's run of one load cell: median and 99th-percentile latency,
/// and requests per second.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Median latency, µs.
    pub p50_us: f64,
    /// 99th-percentile latency, µs.
    pub p99_us: f64,
    /// Requests answered per second of the whole run.
    pub rps: f64,
}

/// `requests` requests of `op` from `clients` concurrent clients of `era`,
/// each on its own keep-alive connection, calling `tool` (expecting
/// `tools` listed); sessions are opened before the clock starts and closed
/// after it stops.
pub async fn run(
    uri: &str,
    era: Era,
    (op, tool): (Op, &str),
    clients: usize,
    requests: usize,
    tools: usize,
) -> Sample {
    let mut connected = Vec::with_capacity(clients);
    for _ in 0..clients {
        connected.push(Client::connect(uri, era, tool).await);
    }
    let remaining = Arc::new(AtomicIsize::new(requests as isize));
    let started = Instant::now();
    let tasks: Vec<_> = connected
        .into_iter()
        .map(|mut client| {
            let remaining = Arc::clone(&remaining);
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(requests / clients + 1);
                while remaining.fetch_sub(1, Ordering::Relaxed) > 0 {
                    let check = client.checks();
                    let sent = Instant::now();
                    client.request(op, check, tools).await;
                    latencies.push(sent.elapsed());
                }
                (client, latencies)
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = Vec::with_capacity(requests);
    let mut finished = Vec::with_capacity(clients);
    for task in tasks {
        let (client, own) = task.await.expect("a client task");
        latencies.extend(own);
        finished.push(client);
    }
    let wall = started.elapsed();
    for client in finished {
        client.close().await;
    }
    latencies.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    Sample {
        p50_us: us(quantile(&latencies, 0.5)),
        p99_us: us(quantile(&latencies, 0.99)),
        rps: latencies.len() as f64 / wall.as_secs_f64(),
    }
}

/// How much load each server of [`interleaved`] gets.
#[derive(Clone, Copy, Debug)]
pub struct Rounds {
    /// Requests each server gets before any is measured.
    pub warmup: usize,
    /// Requests of each measured run.
    pub requests: usize,
    /// Measured runs of each server.
    pub rounds: usize,
}

/// [`run`] on every server at `uris`, interleaved: a warm-up each, then
/// `rounds.rounds` rounds, the servers' order reversed every other round so
/// neither side always goes first. Each server's samples, in `uris` order.
pub async fn interleaved(
    uris: &[&str],
    era: Era,
    (op, tool): (Op, &str),
    clients: usize,
    rounds: Rounds,
    tools: usize,
) -> Vec<Vec<Sample>> {
    if rounds.warmup > 0 {
        for uri in uris {
            run(uri, era, (op, tool), clients, rounds.warmup, tools).await;
        }
    }
    let mut samples = vec![Vec::new(); uris.len()];
    for round in 0..rounds.rounds {
        let mut order: Vec<usize> = (0..uris.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for index in order {
            let sample = run(
                uris[index],
                era,
                (op, tool),
                clients,
                rounds.requests,
                tools,
            )
            .await;
            samples[index].push(sample);
        }
    }
    samples
}
