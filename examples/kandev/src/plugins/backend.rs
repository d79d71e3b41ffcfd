//! Forwarding a plugin tool's call to the backend that owns the plugin:
//! `POST URL {"plugin_id","local_name","invocation_id","surface","arguments"}`
//! answered `{"text","structured_content"?,"is_error"}`.
//!
//! Whatever the backend does (down, slow, garbage), the agent gets a tool
//! error result saying so, within the timeout: never a hang, never a crash.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Semaphore;

/// The default for `serve --plugin-timeout-ms`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest answer read from the backend.
pub const MAX_REPLY_BYTES: usize = 1024 * 1024;

/// At most this many calls to the backend at once, each on a connection of
/// its own; more wait their turn (within their timeout). The bound is what
/// lets the open-file reserve (`crate::file_limit`) cover the backend: with
/// no idle pool (see [`Backend::new`]) the process holds at most this many
/// descriptors for it.
pub const MAX_CONCURRENT_CALLS: usize = 16;

/// Where plugin calls go, and how long they may take.
#[derive(Clone, Debug)]
pub struct Backend {
    url: Option<reqwest::Url>,
    client: reqwest::Client,
    timeout: Duration,
    /// Places for calls in flight, shared by clones.
    calls: Arc<Semaphore>,
}

/// One call, as the backend receives it.
#[derive(Debug, Serialize)]
pub struct Invocation<'a> {
    /// The plugin that owns the tool.
    pub plugin_id: &'a str,
    /// The tool's name inside its plugin.
    pub local_name: &'a str,
    /// Unique per call.
    pub invocation_id: String,
    /// The surface of the session making the call.
    pub surface: String,
    /// The validated arguments.
    pub arguments: &'a JsonObject,
}

/// The backend's answer.
#[derive(Debug, Deserialize)]
struct Reply {
    text: String,
    #[serde(default)]
    structured_content: Option<Value>,
    is_error: bool,
}

impl Backend {
    /// Calls go to `url` (plain `http://`), each bounded by `timeout`.
    pub fn new(url: &str, timeout: Duration) -> Result<Self, String> {
        let parsed = reqwest::Url::parse(url)
            .map_err(|err| format!("--plugin-backend `{url}` is not a URL: {err}"))?;
        if parsed.scheme() != "http" {
            return Err(format!(
                "--plugin-backend `{url}`: only http:// is supported (the backend runs beside kandev-mcp)"
            ));
        }
        // No idle connections kept: a pooled connection can race a new one
        // for the same call, so a pool would let the descriptors held
        // exceed the calls in flight. A loopback connect per call is cheap.
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|err| format!("--plugin-backend `{url}`: cannot build its client: {err}"))?;
        Ok(Backend {
            url: Some(parsed),
            client,
            timeout,
            calls: Arc::new(Semaphore::new(MAX_CONCURRENT_CALLS)),
        })
    }

    /// No backend: every plugin call answers a tool error saying so.
    pub fn none() -> Self {
        Backend {
            url: None,
            client: reqwest::Client::new(),
            timeout: DEFAULT_TIMEOUT,
            calls: Arc::new(Semaphore::new(MAX_CONCURRENT_CALLS)),
        }
    }

    /// Forwards `invocation`; any failure becomes a tool error result.
    pub async fn call(&self, invocation: Invocation<'_>) -> CallToolResult {
        let Some(url) = &self.url else {
            return failure(
                "no plugin backend is configured (start kandev-mcp serve with --plugin-backend URL)",
            );
        };
        let tool = format!("{}/{}", invocation.plugin_id, invocation.local_name);
        // The wait for a place counts against the timeout: the agent gets
        // an answer within it either way.
        let bounded = async {
            let _place = self
                .calls
                .acquire()
                .await
                .map_err(|_| "the plugin backend is shutting down".to_owned())?;
            self.post(url, &invocation).await
        };
        match tokio::time::timeout(self.timeout, bounded).await {
            Ok(Ok(reply)) => {
                let mut result = if reply.is_error {
                    CallToolResult::error(vec![ContentBlock::text(reply.text)])
                } else {
                    CallToolResult::success(vec![ContentBlock::text(reply.text)])
                };
                result.structured_content = reply.structured_content;
                result
            }
            Ok(Err(problem)) => failure(&format!("plugin tool {tool}: {problem}")),
            Err(_) => failure(&format!(
                "plugin tool {tool}: the plugin backend did not answer within {} ms",
                self.timeout.as_millis()
            )),
        }
    }

    async fn post(&self, url: &reqwest::Url, invocation: &Invocation<'_>) -> Result<Reply, String> {
        let mut response = self
            .client
            .post(url.clone())
            .json(invocation)
            .send()
            .await
            .map_err(|err| format!("the plugin backend is unreachable: {err}"))?;
        let status = response.status();
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|err| format!("the plugin backend's answer broke off: {err}"))?
        {
            if body.len() + chunk.len() > MAX_REPLY_BYTES {
                return Err(format!(
                    "the plugin backend's answer is larger than {MAX_REPLY_BYTES} bytes"
                ));
            }
            body.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            return Err(format!("the plugin backend answered HTTP {status}"));
        }
        serde_json::from_slice(&body).map_err(|err| {
            format!(
                "the plugin backend's answer is not {{\"text\", \"structured_content\"?, \"is_error\"}}: {err}"
            )
        })
    }
}

fn failure(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_owned())])
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use axum::Json;
    use axum::routing::post;
    use tokio::sync::watch;

    use super::*;

    /// Calls in flight at a backend, and the most there were at once.
    #[derive(Default)]
    struct Load {
        now: usize,
        peak: usize,
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_most_max_concurrent_calls_reach_the_backend_at_once() {
        let load = Arc::new(Mutex::new(Load::default()));
        let (in_flight, mut watched) = watch::channel(0_usize);
        let (release, released) = watch::channel(false);
        let (counted, in_flight) = (Arc::clone(&load), Arc::new(in_flight));
        // Holds every call until released, counting them.
        let app = axum::Router::new().route(
            "/invoke",
            post(move |Json(_): Json<Value>| {
                let (load, in_flight) = (Arc::clone(&counted), Arc::clone(&in_flight));
                let mut released = released.clone();
                async move {
                    {
                        let mut load = load.lock().unwrap();
                        load.now += 1;
                        load.peak = load.peak.max(load.now);
                        in_flight.send_replace(load.now);
                    }
                    let _ = released.wait_for(|released| *released).await;
                    load.lock().unwrap().now -= 1;
                    Json(serde_json::json!({"text": "done", "is_error": false}))
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/invoke", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

        let backend = Backend::new(&url, Duration::from_secs(60)).unwrap();
        let calls: Vec<_> = (0..MAX_CONCURRENT_CALLS + 4)
            .map(|n| {
                let backend = backend.clone();
                tokio::spawn(async move {
                    let arguments = JsonObject::new();
                    let invocation = Invocation {
                        plugin_id: "acme",
                        local_name: "hold",
                        invocation_id: n.to_string(),
                        surface: "kanban-task".into(),
                        arguments: &arguments,
                    };
                    backend.call(invocation).await
                })
            })
            .collect();
        let limit = Duration::from_secs(20);
        let full = tokio::time::timeout(limit, watched.wait_for(|n| *n >= MAX_CONCURRENT_CALLS));
        assert!(full.await.is_ok(), "the first calls did not all arrive");
        // Give the extra calls every chance to get through, were they not held.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(load.lock().unwrap().now, MAX_CONCURRENT_CALLS);

        release.send_replace(true);
        for call in calls {
            let result = tokio::time::timeout(limit, call).await.unwrap().unwrap();
            assert_ne!(result.is_error, Some(true), "{result:?}");
        }
        assert_eq!(load.lock().unwrap().peak, MAX_CONCURRENT_CALLS);
    }
}
