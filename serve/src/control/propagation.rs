//! A change's answer once the instances sharing the store apply it (and
//! its replicas confirmed it), and a store failure as the caller sees it.

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use mcp_profiles::Vocabulary;

use super::Refusal;
use crate::store::Replication;
use crate::{AgentStore, Changed, Propagation, StoreError};

/// How many instances confirmed that they apply a change, the one that
/// made it included.
pub const APPLIED_HEADER: &str = "mcp-profiles-applied";
/// The instances that had not confirmed a change when the answer was given.
pub const PENDING_HEADER: &str = "mcp-profiles-pending";
/// On a change the store's replicas had not confirmed: `CONFIRMED/REQUIRED`
/// replicas (see [`Replication`]). The change is made and in force; a
/// failover of the store's primary before its replicas catch up may undo
/// it.
pub const UNCONFIRMED_HEADER: &str = "mcp-profiles-unconfirmed";

/// `answer` to a change of `changed`, made with `replication`, given once
/// every instance sharing `store` applies it (see
/// [`AgentStore::propagated`]): as it is, with `Mcp-Profiles-Applied: N`.
/// The change stands in every case; the answer is 202 with the same body
/// when it is not yet certain everywhere:
///
/// - a live instance had not confirmed it within the store's wait, or the
///   store could not be asked: `Mcp-Profiles-Pending` names those
///   instances (`unknown` when it could not ask); they serve what they
///   served before until their feed reaches them;
/// - the store's replicas had not confirmed it ([`Replication`]):
///   `Mcp-Profiles-Unconfirmed: CONFIRMED/REQUIRED`; a failover of the
///   store's primary before they catch up may undo it, so a client reads
///   the change back later and makes it again if it is gone.
///
/// For an extension route that changes an agent through the store, with
/// the [`Written::replication`](crate::store::Written::replication) its
/// store write answered.
pub async fn propagated<S: Vocabulary>(
    store: &dyn AgentStore<S>,
    changed: Changed<'_>,
    replication: Replication,
    mut answer: Response,
) -> Response {
    if !replication.is_confirmed() {
        let counted = format!("{}/{}", replication.confirmed, replication.required);
        if let Ok(counted) = HeaderValue::from_str(&counted) {
            answer.headers_mut().insert(UNCONFIRMED_HEADER, counted);
        }
        *answer.status_mut() = StatusCode::ACCEPTED;
    }
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
