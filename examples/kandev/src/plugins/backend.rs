//! Forwarding a plugin tool's call to the backend that owns the plugin:
//! `POST URL {"plugin_id","local_name","invocation_id","surface","arguments"}`
//! answered `{"text","structured_content"?,"is_error"}`.
//!
//! Whatever the backend does (down, slow, garbage), the agent gets a tool
//! error result saying so, within the timeout: never a hang, never a crash.

use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The default for `serve --plugin-timeout-ms`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest answer read from the backend.
pub const MAX_REPLY_BYTES: usize = 1024 * 1024;

/// Where plugin calls go, and how long they may take.
#[derive(Clone, Debug)]
pub struct Backend {
    url: Option<reqwest::Url>,
    client: reqwest::Client,
    timeout: Duration,
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
        Ok(Backend {
            url: Some(parsed),
            client: reqwest::Client::new(),
            timeout,
        })
    }

    /// No backend: every plugin call answers a tool error saying so.
    pub fn none() -> Self {
        Backend {
            url: None,
            client: reqwest::Client::new(),
            timeout: DEFAULT_TIMEOUT,
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
        match tokio::time::timeout(self.timeout, self.post(url, &invocation)).await {
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
