//! A change's answer once the instances sharing the store apply it, and a
//! store failure as the caller sees it.

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use mcp_profiles::Vocabulary;

use super::Refusal;
use crate::{AgentStore, Changed, Propagation, StoreError};

/// How many instances confirmed that they apply a change, the one that
/// made it included.
pub const APPLIED_HEADER: &str = "mcp-profiles-applied";
/// The instances that had not confirmed a change when the answer was given.
pub const PENDING_HEADER: &str = "mcp-profiles-pending";

/// `answer` to a change of `changed`, given once every instance sharing
/// `store` applies it (see [`AgentStore::propagated`]): as it is, with
/// `Mcp-Profiles-Applied: N`. When a live instance had not confirmed it
/// within the store's wait, or the store could not be asked, the change
/// still stands but the answer is 202 with the same body, naming those
/// instances in `Mcp-Profiles-Pending` (`unknown` when it could not ask):
/// they serve what they served before until their feed reaches them.
///
/// For an extension route that changes an agent through the store.
pub async fn propagated<S: Vocabulary>(
    store: &dyn AgentStore<S>,
    changed: Changed<'_>,
    mut answer: Response,
) -> Response {
    let propagation = confirmations(store, changed).await;
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

/// How far the change of `changed` has reached the instances sharing the
/// store (see [`AgentStore::propagated`]), logged when not every one
/// confirmed it; `None` when the store could not be asked. For a page that
/// waits for a change to reach every instance before it shows it.
pub async fn confirmations<S: Vocabulary>(
    store: &dyn AgentStore<S>,
    changed: Changed<'_>,
) -> Option<Propagation> {
    match store.propagated(changed).await {
        Ok(propagation) => {
            if !propagation.is_complete() {
                tracing::warn!(
                    pending = ?propagation.pending,
                    "a change is made, but not every instance confirmed it in time"
                );
            }
            Some(propagation)
        }
        Err(error) => {
            tracing::warn!(%error, "a change is made, but the instances could not be asked whether they apply it");
            None
        }
    }
}

/// A store failure as the caller sees it: 400 for what the caller must fix
/// (an unknown principal, kill switch or catalog the store refused), 409
/// for a stale compare-and-set, 503 when the store is unreachable or
/// refused the write (nothing changed), else 500.
pub fn failed(error: StoreError) -> Refusal {
    let status = match error {
        StoreError::UnknownPrincipal(_)
        | StoreError::InvalidKillSwitch(_)
        | StoreError::InvalidCatalog(_) => StatusCode::BAD_REQUEST,
        StoreError::Unavailable(_) | StoreError::Refused(_) => StatusCode::SERVICE_UNAVAILABLE,
        StoreError::Conflict { .. } | StoreError::KillSwitchConflict { .. } => StatusCode::CONFLICT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    Refusal::new(status, error.to_string())
}
