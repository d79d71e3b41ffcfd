//! The control API: the backend's path to a live profile update, on its own
//! listener, JSON in and out, every route behind a bearer token.
//!
//! | route | body | answer |
//! |---|---|---|
//! | `GET /api/v1/mcp/profile` | — | `{"profile": {...}, "tools": [...]}` |
//! | `PUT /api/v1/mcp/profile` | a profile context | `{"profile", "tools", "changed"}` |
//! | `PUT /api/v1/mcp/mode` | `{"mode": "...", "disable_ask_question": false}` | same |
//! | `PUT /api/v1/mcp/providers` | `{"mcp_providers": ["github"]}` | same |
//!
//! Missing or wrong token: 401. Malformed body, unknown field or name: 400
//! with `{"error": "..."}` naming it. Body over 64 KiB: 413. Wrong method:
//! 405. In every error case the profile is unchanged and nothing is sent.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Json, Router};
use mcp_profiles::{Profile, ProfileContext, ProfileController};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::legacy;
use crate::server::Kandev;

/// The largest body the control API reads.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// What the routes share.
#[derive(Clone)]
struct Control {
    controller: ProfileController<Kandev>,
    token: Arc<str>,
}

/// The control API's router. `token` must be non-empty.
pub fn router(controller: ProfileController<Kandev>, token: &str) -> Router {
    assert!(!token.is_empty(), "the control API needs a token");
    let state = Control {
        controller,
        token: Arc::from(token),
    };
    Router::new()
        .route("/api/v1/mcp/profile", get(get_profile).put(put_profile))
        .route("/api/v1/mcp/mode", put(put_mode))
        .route("/api/v1/mcp/providers", put(put_providers))
        .route_layer(middleware::from_fn_with_state(state.clone(), authorise))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .method_not_allowed_fallback(|| async {
            error(
                StatusCode::METHOD_NOT_ALLOWED,
                "method not allowed on this route",
            )
        })
        .with_state(state)
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    Refusal(status, message.into()).into_response()
}

/// A refused request: its status and the `{"error": ...}` message.
struct Refusal(StatusCode, String);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

/// Compares in time independent of where the inputs differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

async fn authorise(State(control): State<Control>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    match presented {
        Some(token) if constant_time_eq(token.as_bytes(), control.token.as_bytes()) => {
            next.run(request).await
        }
        Some(_) => error(StatusCode::UNAUTHORIZED, "wrong bearer token"),
        None => error(
            StatusCode::UNAUTHORIZED,
            "missing `Authorization: Bearer <token>` header",
        ),
    }
}

fn answer(profile: &Profile<Kandev>, changed: Option<bool>) -> Response {
    let mut body = json!({ "profile": profile.context(), "tools": profile.tool_names() });
    if let Some(changed) = changed {
        body["changed"] = Value::Bool(changed);
    }
    Json(body).into_response()
}

/// Decodes a body strictly, or says why not.
fn decode<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, Refusal> {
    let bytes = body.map_err(|rejection| {
        let status = rejection.status();
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("body larger than {MAX_BODY_BYTES} bytes")
        } else {
            rejection.body_text()
        };
        Refusal(status, message)
    })?;
    serde_json::from_slice(&bytes).map_err(|err| Refusal(StatusCode::BAD_REQUEST, err.to_string()))
}

async fn get_profile(State(control): State<Control>) -> Response {
    answer(&control.controller.current(), None)
}

async fn put_profile(
    State(control): State<Control>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let context: ProfileContext<Kandev> = decode(body)?;
    let change = control.controller.replace(context);
    Ok(answer(&change.new, Some(change.changed())))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeBody {
    mode: String,
    #[serde(default)]
    disable_ask_question: bool,
}

async fn put_mode(
    State(control): State<Control>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: ModeBody = decode(body)?;
    let change = legacy::set_mode(&control.controller, &body.mode, body.disable_ask_question)
        .map_err(|err| Refusal(StatusCode::BAD_REQUEST, err.to_string()))?;
    Ok(answer(&change.new, Some(change.changed())))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProvidersBody {
    mcp_providers: Vec<String>,
}

async fn put_providers(
    State(control): State<Control>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: ProvidersBody = decode(body)?;
    let change = legacy::set_providers(&control.controller, &body.mcp_providers)
        .map_err(|err| Refusal(StatusCode::BAD_REQUEST, err.to_string()))?;
    Ok(answer(&change.new, Some(change.changed())))
}

#[cfg(test)]
mod tests {
    use super::constant_time_eq;

    #[test]
    fn constant_time_eq_compares_whole_values() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }
}
