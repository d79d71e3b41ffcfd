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
///
/// What the caller must fix is named; the store's own failures are logged
/// in full and answered without their text, which can name the store's
/// nodes and slots (`MOVED 1234 10.0.0.7:6379`, `CLUSTERDOWN`).
pub fn failed(error: StoreError) -> Refusal {
    let (status, said) = match &error {
        StoreError::UnknownPrincipal(_)
        | StoreError::InvalidKillSwitch(_)
        | StoreError::InvalidCatalog(_) => (StatusCode::BAD_REQUEST, None),
        StoreError::Conflict { .. } | StoreError::KillSwitchConflict { .. } => {
            (StatusCode::CONFLICT, None)
        }
        StoreError::Unavailable(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("the profile store could not be reached; nothing was changed"),
        ),
        StoreError::Refused(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("the profile store refused the change; nothing was changed"),
        ),
        _ => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Some("the profile store holds data this server cannot read"),
        ),
    };
    match said {
        None => Refusal::new(status, error.to_string()),
        Some(said) => {
            tracing::warn!(%error, "a control request is refused for the profile store");
            Refusal::new(status, said)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_failure_is_answered_without_the_stores_own_text() {
        for (error, said) in [
            (
                StoreError::Unavailable("MOVED 1234 10.0.0.7:6379".into()),
                "the profile store could not be reached; nothing was changed",
            ),
            (
                StoreError::Unavailable("CLUSTERDOWN The cluster is down".into()),
                "the profile store could not be reached; nothing was changed",
            ),
            (
                StoreError::Refused("OOM command not allowed at 10.0.0.7:6379".into()),
                "the profile store refused the change; nothing was changed",
            ),
        ] {
            let refusal = failed(error);
            assert_eq!(
                (refusal.status(), refusal.message()),
                (StatusCode::SERVICE_UNAVAILABLE, said)
            );
        }
        // What the caller must fix is named.
        let conflict = failed(StoreError::Conflict {
            principal: "alice".into(),
            current: 3,
        });
        assert_eq!(conflict.status(), StatusCode::CONFLICT);
        assert!(
            conflict.message().contains("`alice` is at version 3"),
            "{}",
            conflict.message()
        );
    }
}
