//! Input-required results (MCP 2026-07-28, SEP-2322): a tool or prompt that
//! first answers with the requests the client must fulfil, then completes
//! when the client retries with their responses.
//!
//! `requestState` is a random handle into [`Rounds`], kept server-side: an
//! echoed handle the server never issued (a tampered one) is refused, and no
//! client-controlled data is trusted.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, PromptMessage, Role,
};
use serde_json::{Value, json};

/// The prompt that asks for input first.
pub const PROMPT: &str = "test_input_required_result_prompt";

/// At most this many rounds wait for their retry; older ones are dropped.
const MAX_PENDING: usize = 1024;

/// The rounds that issued a `requestState` and await the client's retry.
#[derive(Clone, Default)]
pub struct Rounds {
    pending: Arc<Mutex<HashMap<String, Step>>>,
}

/// Where a multi-step flow stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Waits for the first answers of a flow named by the tool.
    First(&'static str),
    /// Waits for the second answer of the multi-round tool.
    Second,
}

impl Rounds {
    /// A fresh `requestState` for `step`.
    pub fn issue(&self, step: Step) -> String {
        let state = uuid::Uuid::new_v4().simple().to_string();
        let mut pending = self.lock();
        if pending.len() >= MAX_PENDING {
            pending.clear();
        }
        pending.insert(state.clone(), step);
        state
    }

    /// The step an echoed `requestState` stands for, consuming it: a state
    /// this server never issued, or one already used, is refused.
    pub fn redeem(&self, state: Option<&str>) -> Result<Step, ErrorData> {
        let Some(state) = state else {
            return Err(ErrorData::invalid_params(
                "requestState is missing: echo the requestState of the input-required result",
                None,
            ));
        };
        self.lock().remove(state).ok_or_else(|| {
            ErrorData::invalid_params(
                "requestState failed its integrity check: it is not one this server issued, or it was used already",
                Some(json!({ "requestState": state })),
            )
        })
    }

    /// Answers the input-required prompt.
    pub fn prompt(&self, request: GetPromptRequestParams) -> Result<GetPromptResponse, ErrorData> {
        match accepted(request.input_responses.as_ref(), "user_context") {
            Some(content) => {
                let context = content
                    .get("context")
                    .and_then(Value::as_str)
                    .unwrap_or("none");
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("A prompt in the context: {context}"),
                )])
                .into())
            }
            None => Ok(ask([(
                "user_context",
                elicit("What context should the prompt use?", "context", "string"),
            )])
            .into()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Step>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An input-required result asking for `requests`, each under its key.
pub fn ask<'a>(requests: impl IntoIterator<Item = (&'a str, InputRequest)>) -> InputRequiredResult {
    let requests: InputRequests = requests
        .into_iter()
        .map(|(key, request)| (key.to_owned(), request))
        .collect();
    InputRequiredResult::from_input_requests(requests)
}

/// Like [`ask`], with a `requestState` to echo.
pub fn ask_with_state<'a>(
    requests: impl IntoIterator<Item = (&'a str, InputRequest)>,
    state: String,
) -> InputRequiredResult {
    let mut result = ask(requests);
    result.request_state = Some(state);
    result
}

fn request(method: &str, params: Value) -> InputRequest {
    serde_json::from_value(json!({ "method": method, "params": params }))
        .unwrap_or_else(|error| unreachable!("a well-formed {method} request: {error}"))
}

/// An `elicitation/create` asking for one required field.
pub fn elicit(message: &str, field: &str, kind: &str) -> InputRequest {
    request(
        "elicitation/create",
        json!({
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": kind } },
                "required": [field],
            },
        }),
    )
}

/// A `sampling/createMessage` with one user message.
pub fn sample(text: &str, max_tokens: u32) -> InputRequest {
    request(
        "sampling/createMessage",
        json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
            "maxTokens": max_tokens,
        }),
    )
}

/// A `roots/list`.
pub fn list_roots() -> InputRequest {
    request("roots/list", json!({}))
}

/// The content of an accepted elicitation answered under `key`, if the
/// client sent one; anything else (missing, declined, malformed) is `None`.
pub fn accepted<'a>(
    responses: Option<&'a InputResponses>,
    key: &str,
) -> Option<&'a serde_json::Map<String, Value>> {
    let response = responses?.get(key)?.as_object()?;
    if response.get("action")?.as_str()? != "accept" {
        return None;
    }
    response.get("content")?.as_object()
}

/// The text of a sampling result answered under `key`.
pub fn sampled<'a>(responses: Option<&'a InputResponses>, key: &str) -> Option<&'a str> {
    let content = responses?.get(key)?.get("content")?;
    // One content block or a list of them.
    let block = content
        .as_array()
        .and_then(|all| all.first())
        .unwrap_or(content);
    block.get("text")?.as_str()
}

/// The root URIs of a `roots/list` result answered under `key`.
pub fn roots(responses: Option<&InputResponses>, key: &str) -> Option<Vec<String>> {
    let roots = responses?.get(key)?.get("roots")?.as_array()?;
    roots
        .iter()
        .map(|root| root.get("uri")?.as_str().map(str::to_owned))
        .collect()
}

/// The requests a client that declared `capabilities` can fulfil.
pub fn supported_by(
    capabilities: Option<&ClientCapabilities>,
) -> Vec<(&'static str, InputRequest)> {
    let Some(capabilities) = capabilities else {
        return Vec::new();
    };
    let mut requests = Vec::new();
    if capabilities.elicitation.is_some() {
        requests.push(("user_name", elicit("What is your name?", "name", "string")));
    }
    if capabilities.sampling.is_some() {
        requests.push(("greeting", sample("Generate a greeting", 50)));
    }
    if capabilities.roots.is_some() {
        requests.push(("client_roots", list_roots()));
    }
    requests
}

/// A complete tool result of one text block.
pub fn done(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}
