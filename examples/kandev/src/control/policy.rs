//! The policy and kill-switch routes: the backend's restrictions on the
//! served profile, and the operator's deny list over it.
//!
//! | route | body | answer |
//! |---|---|---|
//! | `GET /api/v1/mcp/policy` | — | `{"policy": {"read_only", "no_destructive", "deny"}}` |
//! | `PUT /api/v1/mcp/policy` | `{"read_only": bool, "no_destructive": bool, "deny": [names]}` | `{"policy", "profile", "tools", "changed"}` |
//! | `GET /api/v1/mcp/kill-switch` | — | `{"deny": [names]}` |
//! | `PUT /api/v1/mcp/kill-switch` | `{"deny": [names]}` | `{"deny", "profile", "tools", "changed", "notified_sessions"}` |
//!
//! `PUT /api/v1/mcp/policy` puts the whole policy (an omitted field is off
//! or empty) on the current profile, its surface, capabilities and
//! providers kept, in one replacement. `PUT /api/v1/mcp/kill-switch` sets
//! the operator's list through the controller's
//! [`KillSwitch`](mcp_profiles::KillSwitch). Names are tool or tool group
//! names. Either way each session whose tool list changed is sent one
//! `tools/list_changed`, and none is sent when it did not; a call of a
//! removed tool is refused with -32602.
//!
//! Decoding is strict: an unknown field, an unknown name (with the closest
//! declared one) or a name given twice is a 400 naming it, and nothing
//! changes. A later mode switch, provider change or stored-task re-resolve
//! keeps the policy; only `PUT /api/v1/mcp/profile`, which replaces the
//! whole context, sets it anew (from its `"policy"` field).

use super::answers::{KillSwitchBody, KillSwitchChanged, PolicyAnswer, PolicyChanged, PolicyState};
use super::{Control, Refusal, audited, changed, decode, off_workers};
use crate::server::Kandev;
use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use mcp_profiles::{DenyList, Policy};
use mcp_profiles_serve::audit::Attribution;

/// `policy` as the control API shows it, every field present.
fn state(policy: Policy<Kandev>) -> PolicyState {
    PolicyState {
        read_only: policy.read_only(),
        no_destructive: policy.no_destructive(),
        deny: policy.deny(),
    }
}

pub(super) async fn get_policy(State(control): State<Control>) -> Response {
    let policy = control.controller.current().context().policy();
    Json(PolicyAnswer {
        policy: state(policy),
    })
    .into_response()
}

pub(super) async fn put_policy(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let policy: Policy<Kandev> = decode(&headers, body)?;
    let controller = control.controller.clone();
    let change = off_workers(control, move |control| {
        audited::replace_profile(control, &by, |current| Ok(current.with_policy(policy)))
    })
    .await?;
    Ok(Json(PolicyChanged {
        policy: state(policy),
        change: changed(&controller, &change.new, change.changed()),
    })
    .into_response())
}

pub(super) async fn get_kill_switch(State(control): State<Control>) -> Response {
    let deny: DenyList<Kandev> = control.controller.kill_switch().killed();
    Json(KillSwitchBody { deny }).into_response()
}

pub(super) async fn put_kill_switch(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let KillSwitchBody { deny } = decode(&headers, body)?;
    let controller = control.controller.clone();
    let change = off_workers(control, move |control| {
        audited::set_kill_switch(control, &by, deny)
    })
    .await?;
    let any = !change.replacements.is_empty();
    Ok(Json(KillSwitchChanged {
        deny: change.killed,
        change: changed(&controller, &controller.current(), any),
        notified_sessions: change.notified_sessions(),
    })
    .into_response())
}
