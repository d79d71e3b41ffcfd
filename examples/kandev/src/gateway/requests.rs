//! What every route of the gateway's control API shares: its state, the
//! principal in its path, and store failures as answers.

use std::sync::Arc;

use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use mcp_profiles_serve::{AgentStore, Changed, Propagation, StoreError};
use serde::Deserialize;

use crate::control::Refusal;
use crate::server::Kandev;

/// The longest principal name.
pub const MAX_PRINCIPAL_BYTES: usize = 128;

/// What every route of the gateway's control API holds: the store it
/// changes, the control token and the name its changes are recorded under.
#[derive(Clone)]
pub(super) struct Control {
    pub(super) store: Arc<dyn AgentStore<Kandev>>,
    pub(super) token: Arc<str>,
    pub(super) actor: Arc<str>,
}

/// How many gateways confirmed that they apply a change, the one that
/// made it included.
const APPLIED_HEADER: &str = "mcp-profiles-applied";
/// The gateways that had not confirmed a change when the answer was given.
const PENDING_HEADER: &str = "mcp-profiles-pending";

/// `answer` to a change of `changed`, given once every gateway sharing the
/// store applies it (see `AgentStore::propagated`): as it is, with
/// `Mcp-Profiles-Applied: N`. When a live gateway had not confirmed it
/// within the store's wait, or the store could not be asked, the change
/// still stands but the answer is 202 with the same body, naming those
/// gateways in `Mcp-Profiles-Pending` (`unknown` when it could not ask):
/// they serve what they served before until their feed reaches them.
pub(super) async fn propagated(
    control: &Control,
    changed: Changed<'_>,
    mut answer: Response,
) -> Response {
    let propagation = confirmations(control, changed).await;
    let headers = answer.headers_mut();
    if let Some(propagation) = &propagation {
        headers.insert(APPLIED_HEADER, HeaderValue::from(propagation.applied));
    }
    let pending = match propagation {
        None => "unknown".to_owned(),
        Some(propagation) if propagation.is_complete() => return answer,
        Some(propagation) => propagation.pending.join(", "),
    };
    headers.insert(
        PENDING_HEADER,
        HeaderValue::from_str(&pending).unwrap_or_else(|_| HeaderValue::from_static("unknown")),
    );
    *answer.status_mut() = StatusCode::ACCEPTED;
    answer
}

/// How far the change of `changed` has reached the gateways sharing the
/// store (see `AgentStore::propagated`), logged when not every one
/// confirmed it; `None` when the store could not be asked.
pub(super) async fn confirmations(control: &Control, changed: Changed<'_>) -> Option<Propagation> {
    match control.store.propagated(changed).await {
        Ok(propagation) => {
            if !propagation.is_complete() {
                tracing::warn!(
                    pending = ?propagation.pending,
                    "a change is made, but not every gateway confirmed it in time"
                );
            }
            Some(propagation)
        }
        Err(error) => {
            tracing::warn!(%error, "a change is made, but the gateways could not be asked whether they apply it");
            None
        }
    }
}

pub(super) fn refusal(status: StatusCode, message: impl Into<String>) -> Refusal {
    Refusal::new(status, message.into())
}

/// A store failure as the caller sees it.
pub(super) fn failed(error: StoreError) -> Refusal {
    let status = match error {
        // A snapshot the store refused (one whose tool names collide under
        // the gateway's name presentation, say) is the caller's to fix.
        StoreError::UnknownPrincipal(_)
        | StoreError::InvalidKillSwitch(_)
        | StoreError::InvalidCatalog(_) => StatusCode::BAD_REQUEST,
        // Unreachable, or reached and refusing writes (a full memory, say).
        StoreError::Unavailable(_) | StoreError::Refused(_) => StatusCode::SERVICE_UNAVAILABLE,
        StoreError::Conflict { .. } | StoreError::KillSwitchConflict { .. } => StatusCode::CONFLICT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    refusal(status, error.to_string())
}

/// `principal` if it is a name the gateway accepts; else 400 naming it
/// (cut short).
pub(super) fn principal_name(principal: &str) -> Result<&str, Refusal> {
    // Made of accepted characters, but URL clients and proxies remove these
    // path segments (RFC 3986, 5.2.4): no ordinary client could address
    // such an agent at `/api/v1/agents/{principal}`.
    if matches!(principal, "." | "..") {
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            format!(
                "principal `{principal}` is a dot segment, which URL clients remove from paths"
            ),
        ));
    }
    let valid = !principal.is_empty()
        && principal.len() <= MAX_PRINCIPAL_BYTES
        && principal
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '@' | '-'));
    if valid {
        return Ok(principal);
    }
    let shown: String = principal.chars().take(64).collect();
    let cut = if shown.len() < principal.len() {
        "…"
    } else {
        ""
    };
    Err(refusal(
        StatusCode::BAD_REQUEST,
        format!(
            "principal `{}{cut}` is not 1 to {MAX_PRINCIPAL_BYTES} characters of A-Z a-z 0-9 . _ @ -",
            shown.escape_debug()
        ),
    ))
}

/// The principal named in a route's path, checked as [`principal_name`]
/// checks it.
pub(super) fn path_principal(path: Result<Path<String>, PathRejection>) -> Result<String, Refusal> {
    let Path(principal) =
        path.map_err(|rejection| refusal(rejection.status(), rejection.body_text()))?;
    principal_name(&principal)?;
    Ok(principal)
}

/// 404 for a principal without an agent.
pub(super) fn no_agent(principal: &str) -> Refusal {
    refusal(StatusCode::NOT_FOUND, format!("no agent `{principal}`"))
}

/// A `"version"` that is there: a whole number from 0 to `u64::MAX`.
/// `null` is refused, not read as "any version", which would turn a
/// compare-and-set into an unconditional write.
pub(crate) fn version<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    value.as_u64().map(Some).ok_or_else(|| {
        let text = value.to_string();
        let shown: String = text.chars().take(40).collect();
        let cut = if shown.len() < text.len() { "…" } else { "" };
        serde::de::Error::custom(format!(
            "`version` must be a whole number from 0 to {}, not {shown}{cut}",
            u64::MAX
        ))
    })
}
