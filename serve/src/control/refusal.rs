//! A refused control request, answered as every control route answers one.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::codes;

/// A refused request: `{"error": message, "code": code, "status": status,
/// "pointer": "/field"}` (`pointer`, the JSON pointer of the offending part
/// of the body, only where there is one). Nothing was changed. See
/// [`codes`] for the codes.
///
/// Extension routes answer their refusals with it, so a client reads one
/// shape from every route:
///
/// ```
/// use mcp_profiles_serve::axum::http::StatusCode;
/// use mcp_profiles_serve::control::{Refusal, codes};
///
/// let refusal = Refusal::new(StatusCode::BAD_REQUEST, "no task `7`");
/// assert_eq!(refusal.code(), codes::INVALID_REQUEST);
/// assert_eq!(refusal.message(), "no task `7`");
/// ```
#[derive(Debug)]
pub struct Refusal {
    status: StatusCode,
    message: String,
    code: &'static str,
    pointer: Option<String>,
}

impl Refusal {
    /// A refusal whose code is its status's (see [`codes::of_status`]).
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Refusal {
            status,
            message: message.into(),
            code: codes::of_status(status),
            pointer: None,
        }
    }

    /// The same refusal with a more precise code.
    pub fn with_code(mut self, code: &'static str) -> Self {
        self.code = code;
        self
    }

    /// The same refusal, about the part of the body at `pointer` (a JSON
    /// pointer, RFC 6901).
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }

    /// The status it is answered with.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What is wrong, as the answer says it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Its code (see [`codes`]).
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The JSON pointer of the offending part of the body, if any.
    pub fn pointer(&self) -> Option<&str> {
        self.pointer.as_deref()
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut body = json!({
            "error": self.message,
            "code": self.code,
            "status": self.status.as_u16(),
        });
        if let Some(pointer) = self.pointer {
            body["pointer"] = Value::String(pointer);
        }
        (self.status, Json(body)).into_response()
    }
}

/// 405 for a method a route does not serve.
pub async fn method_not_allowed() -> Response {
    Refusal::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed on this route",
    )
    .into_response()
}

/// At most this much of an unknown path is echoed in the 404 answer.
pub const MAX_ECHOED_PATH_BYTES: usize = 256;

/// 404 for any path no route matches, naming it (cut short: the path is the
/// caller's, and an answer should not grow with it).
pub async fn no_route(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    let path = uri.path();
    let mut end = path.len().min(MAX_ECHOED_PATH_BYTES);
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    let cut = if end < path.len() { "…" } else { "" };
    Refusal::new(
        StatusCode::NOT_FOUND,
        format!("no route {method} {}{cut}", &path[..end]),
    )
    .with_code(codes::NO_ROUTE)
    .into_response()
}

/// `value` as a message shows it: escaped, cut at 64 characters.
pub(crate) fn clipped(value: &str) -> String {
    let shown: String = value.chars().take(64).collect();
    let cut = if shown.len() < value.len() { "…" } else { "" };
    format!("{}{cut}", shown.escape_debug())
}
