//! `GET`/`PUT /api/v1/kill-switch`: the operator's kill switch, one deny
//! list of tool and tool group names over every agent on every gateway
//! sharing the store.
//!
//! | route | body | answer |
//! |---|---|---|
//! | `GET /api/v1/kill-switch` | — | `{"deny": [...], "version": N}` (`[]` and 0 before the first put) |
//! | `PUT /api/v1/kill-switch` | `{"deny": [...], "version": N}` | `{"deny": [...], "version": N + 1}` |
//!
//! A `PUT` replaces the whole list (`[]` turns the switch off), so it is
//! always a compare-and-set: `"version"` is required and must be the
//! version now in force (from the `GET`, 0 before the first put), else 409
//! saying the current one. An unconditional put would let one operator's
//! list silently drop a tool another had just killed, serving it again.
//!
//! Every session whose visible tools change gets one `list_changed`; a
//! call of a killed tool is refused with JSON-RPC -32602 saying the
//! operator disabled it. 400 for an unknown field, a name that is neither
//! a tool nor a tool group of Kandev (naming it, with the closest name) or
//! one given twice; nothing changes.

use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::{Changed, StoredKillSwitch};

use super::requests::{Control, failed, propagated};
use crate::control::{Refusal, decode};

fn answer(stored: &StoredKillSwitch) -> Response {
    Json(crate::control::answers::StoredKillSwitch {
        deny: stored.names.clone(),
        version: stored.version,
    })
    .into_response()
}

pub(super) async fn get_kill_switch(State(control): State<Control>) -> Result<Response, Refusal> {
    let stored = control.store.kill_switch().await.map_err(failed)?;
    Ok(answer(
        &stored.unwrap_or_else(|| StoredKillSwitch::new(Vec::new(), 0)),
    ))
}

pub(super) async fn put_kill_switch(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: crate::control::answers::KillSwitchPut = decode(&headers, body)?;
    let stored = control
        .store
        .put_kill_switch_if(&body.deny, body.version, &by)
        .await
        .map_err(failed)?;
    tracing::info!(
        deny = ?stored.names,
        version = stored.version,
        "kill switch put"
    );
    Ok(propagated(&control, Changed::KillSwitch, answer(&stored)).await)
}
