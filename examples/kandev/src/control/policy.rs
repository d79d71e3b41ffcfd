//! The policy and kill-switch routes: the backend's restrictions on the
//! served profile, and the operator's deny list over it.
//!
//! | route | body | answer |
//! |---|---|---|
//! | `GET /api/v1/mcp/policy` | — | `{"policy": {"read_only", "no_destructive", "deny"}}` |
//! | `PUT /api/v1/mcp/policy` | `{"read_only": bool, "no_destructive": bool, "deny": [names]}` | `{"policy", "profile", "tools", "changed"}` |
//! | `GET /api/v1/mcp/kill-switch` | — | `{"deny": [names]}` |
//! | `PUT /api/v1/mcp/kill-switch` | `{"deny": [names]}` | `{"deny", "profile", "tools", "changed"}` |
//!
//! `PUT /api/v1/mcp/policy` puts the whole policy (an omitted field is off
//! or empty) on the current profile, its surface, capabilities and
//! providers kept, in one replacement. `PUT /api/v1/mcp/kill-switch` puts
//! the operator's list in the store, as the library's
//! `PUT /api/v1/kill-switch` does without its compare-and-set. Names are tool or tool group
//! names. Either way each session whose tool list changed is sent one
//! `tools/list_changed`, and none is sent when it did not; a call of a
//! removed tool is refused with -32602.
//!
//! Decoding is strict: an unknown field, an unknown name (with the closest
//! declared one) or a name given twice is a 400 naming it, and nothing
//! changes. A later mode switch, provider change or stored-task re-resolve
//! keeps the policy; only `PUT /api/v1/mcp/profile`, which replaces the
//! whole context, sets it anew (from its `"policy"` field).

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use mcp_profiles::{DenyList, Policy};
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::control::failed;

use super::answers::{
    Changed, KillSwitchBody, KillSwitchChanged, PolicyAnswer, PolicyChanged, PolicyState, Profiled,
};
use super::{Control, Refusal, decode, replaced};
use crate::server::Kandev;

/// `policy` as the control API shows it, every field present.
fn state(policy: Policy<Kandev>) -> PolicyState {
    PolicyState {
        read_only: policy.read_only(),
        no_destructive: policy.no_destructive(),
        deny: policy.deny(),
    }
}

pub(super) async fn get_policy(State(control): State<Control>) -> Response {
    let policy = control.single.controller().current().context().policy();
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
    let change = replaced(&control.single, &by, |current| {
        Ok(current.with_policy(policy))
    })
    .await?;
    Ok(Json(PolicyChanged {
        policy: state(policy),
        change,
    })
    .into_response())
}

pub(super) async fn get_kill_switch(State(control): State<Control>) -> Response {
    let deny: DenyList<Kandev> = control.single.profiles().killed();
    Json(KillSwitchBody { deny }).into_response()
}

pub(super) async fn put_kill_switch(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let KillSwitchBody { deny } = decode(&headers, body)?;
    let names: Vec<String> = deny.names().iter().map(|name| (*name).to_owned()).collect();
    let controller = control.single.controller();
    let before = controller.current();
    control
        .single
        .agents()
        .put_kill_switch_if(&names, None, &by)
        .await
        .map_err(failed)?;
    let now = controller.current();
    Ok(Json(KillSwitchChanged {
        deny: control.single.profiles().killed(),
        change: Changed {
            changed: now.tool_names() != before.tool_names(),
            now: Profiled::of(&controller, &now),
        },
    })
    .into_response())
}
