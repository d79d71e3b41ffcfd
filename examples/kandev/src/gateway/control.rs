//! The gateway's control API: agents and their tokens, JSON in and out,
//! every route behind the control token, with the single-agent control
//! API's refusals (401, 400, 404, 405, 409, 413, 415, 503, all
//! `{"error", "code", "status", "pointer"}`: see [`crate::control::codes`]).
//!
//! The whole API, every route, body, answer and refusal, is described in
//! OpenAPI 3.1 by the same types (`openapi.rs`): `GET /api/v1/openapi.json`,
//! committed as `docs/openapi/gateway.json`.
//!
//! | route | body | answer |
//! |---|---|---|
//! | `PUT /api/v1/agents/{principal}` | `{"profile": CONTEXT}` (ours, or with Kandev's `coordinator_tool_policy` or `managed_tool_policy`), optionally `"version": N` | `{"principal", "profile", "tools", "changed", "version"}` |
//! | `GET /api/v1/agents/{principal}` | — | `{"principal", "profile", "tools", "version"}` |
//! | `DELETE /api/v1/agents/{principal}` | — | `{"principal", "removed": true}` |
//! | `PUT /api/v1/agents/{principal}/plugin-tools` | a plugin-tool snapshot | `{"principal", "generation", "revision", "tools", "changed", "version"}` |
//! | `GET /api/v1/agents/{principal}/plugin-tools` | — | the installed plugin-tool snapshot |
//! | `POST /api/v1/tokens` | `{"token", "principal"}` | `{"principal", "granted": true}` |
//! | `POST /api/v1/tokens/revoke` | `{"token"}` | `{"revoked": bool}` |
//! | `GET /api/v1/kill-switch` | — | `{"deny", "version"}` |
//! | `PUT /api/v1/kill-switch` | `{"deny": [NAME, ...], "version": N}` | `{"deny", "version"}` |
//! | `GET /api/v1/audit?principal=&since=&before=&order=&limit=` | — | `{"records", "next"}`, see [`crate::control::audit`] |
//!
//! Every change (an agent put or deleted, a token granted or revoked, a
//! plugin-tool snapshot, the kill switch) is answered once every gateway
//! sharing the store confirms that it applies it (`Mcp-Profiles-Applied:
//! N`), or, when a live one did not within `--propagation-wait-ms`, with
//! 202, the same body and `Mcp-Profiles-Pending` naming it: see
//! `requests::propagated`. Every change is recorded in the store's audit
//! trail in the same step as the change: who made it (the control token's
//! name, `--control-token-name`), the request's id (its `X-Request-Id`, or
//! a fresh one; answered back in `X-Request-Id`), what it replaced and
//! made, and the tools it added and removed. Tokens are recorded only as a
//! short SHA-256 fingerprint.
//!
//! The listener also serves the admin page, `/admin`: HTML for a browser,
//! a login with the control token kept in a cookie, forms that preview a
//! change and then apply it through the same audited path (see the
//! README's "The admin page").
//!
//! `GET /metrics` is merged into this listener by [`super::run`] (see
//! [`crate::prometheus`]), behind the same token unless `--metrics-public`.
//!
//! The kill-switch routes (`gateway/kill.rs`) hold the operator's deny list
//! over every agent; its `PUT` is always a compare-and-set on the switch's
//! own version (409 when stale).
//!
//! An agent's `"tools"` are its profile's compiled tools; its plugin tools
//! are set and read through the plugin-tool routes (`gateway/plugins.rs`),
//! whose `"tools"` is everything its sessions list.
//!
//! With `"version"` the PUT is a compare-and-set: applied only if the agent
//! is at that version now (0: only if it does not exist), else 409.
//!
//! Further refusals: 404 for an agent that does not exist, 400 for a
//! principal name outside `[A-Za-z0-9._@-]{1,128}` (or `.` or `..`, which
//! URL clients remove from paths), a `"version"` that is not a whole number
//! (`null` included) or a grant naming an unknown principal, 503 when the
//! profile store is unreachable (nothing changed). Tokens travel only in
//! bodies and never appear in an answer or a log line.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::{AgentStore, Changed, StoredAgent};

use crate::control::answers::{
    Agent, AgentChanged, AgentPut, AgentRemoved, GrantBody, Granted, RevokeBody, Revoked,
};

use crate::admin::Sessions;
use crate::control::attribution::{DEFAULT_TOKEN_NAME, attributed};
use crate::control::plugins::MAX_SNAPSHOT_BYTES;
use crate::control::{
    MAX_BODY_BYTES, OPENAPI_PATH, Refusal, audit, check_token, decode, method_not_allowed, no_route,
};
use crate::openapi::{self, Api};
use crate::server::Kandev;
use serde_json::json;

pub use super::requests::MAX_PRINCIPAL_BYTES;
use super::requests::{
    Control, failed, no_agent, path_principal, principal_name, propagated, refusal,
};

/// The longest agent token.
pub const MAX_TOKEN_BYTES: usize = 1024;

/// The gateway's control router over `store`, its changes recorded as
/// the control token's ([`DEFAULT_TOKEN_NAME`]). `token` must be non-empty.
pub fn router(store: Arc<dyn AgentStore<Kandev>>, token: &str) -> Router {
    router_with_name(store, token, DEFAULT_TOKEN_NAME)
}

/// [`router`], its changes recorded in the audit trail as `name`'s (see
/// [`crate::control::attribution::token_name`]).
pub fn router_with_name(store: Arc<dyn AgentStore<Kandev>>, token: &str, name: &str) -> Router {
    assert!(!token.is_empty(), "the control API needs a token");
    let state = Control {
        store,
        token: Arc::from(token),
        actor: Arc::from(name),
    };
    let (routes, _) = described();
    routes
        .route_layer(middleware::from_fn_with_state(state.clone(), authorise))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state.clone())
        .merge(super::admin::router(state, Sessions::new(token)))
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
}

/// The gateway's control API's OpenAPI 3.1 description, as
/// `GET /api/v1/openapi.json` answers it (and `docs/openapi/gateway.json`
/// holds it).
pub fn openapi() -> serde_json::Value {
    described().1
}

/// The gateway's control routes and their description.
fn described() -> (Router<Control>, serde_json::Value) {
    api().finish(
        OPENAPI_PATH,
        "kandev-mcp gateway: control API",
        "Agents, their tokens, their plugin tools and the operator's kill switch, \
         for every gateway sharing the store, with the audit trail of every change. \
         Every route takes the control token as a bearer token.",
    )
}

const AGENT: &str = "/api/v1/agents/{principal}";
const PLUGIN_TOOLS: &str = "/api/v1/agents/{principal}/plugin-tools";
const KILL_SWITCH: &str = "/api/v1/kill-switch";

/// A link's parameters: the same principal as the request's.
fn principal() -> serde_json::Value {
    json!({"principal": "$request.path.principal"})
}

/// The gateway's control routes, each described (see [`crate::openapi`]).
fn api() -> Api<Control> {
    use crate::control::answers::*;
    Api::default()
        .route(
            AGENT,
            [
                openapi::get::<Agent>("An agent").refuses(&[404, 503]),
                openapi::put::<AgentChanged>(
                    "Creates or replaces an agent's profile (with `version`: a compare-and-set)",
                )
                .body::<AgentPut>()
                .propagates()
                .refuses(&[409, 503])
                .link("ReadAgent", (Method::GET, AGENT), principal(), None)
                .link(
                    "PutAgentAtVersion",
                    (Method::PUT, AGENT),
                    principal(),
                    Some(json!({"profile": "$response.body#/profile", "version": "$response.body#/version"})),
                )
                .link(
                    "GrantToken",
                    (Method::POST, "/api/v1/tokens"),
                    json!({}),
                    Some(json!({"token": "stateful-token", "principal": "$request.path.principal"})),
                )
                .link("ReadPluginTools", (Method::GET, PLUGIN_TOOLS), principal(), None)
                .link("DeleteAgent", (Method::DELETE, AGENT), principal(), None),
                openapi::delete::<AgentRemoved>("Removes an agent and every token naming it")
                    .propagates()
                    .refuses(&[404, 503]),
            ],
            get(get_agent).put(put_agent).delete(delete_agent),
        )
        .route(
            PLUGIN_TOOLS,
            [
                openapi::get::<InstalledSnapshot>("An agent's installed plugin-tool snapshot")
                    .refuses(&[404, 503]),
                openapi::put::<AgentPluginTools>("Installs an agent's plugin-tool snapshot")
                    .body::<crate::plugins::Snapshot>()
                    .propagates()
                    .refuses(&[404, 409, 503]),
            ],
            get(super::plugins::get_plugin_tools)
                .put(super::plugins::put_plugin_tools)
                .layer(DefaultBodyLimit::max(MAX_SNAPSHOT_BYTES)),
        )
        .route(
            "/api/v1/tokens",
            [
                openapi::post::<Granted>("Lets a token act as a principal on every gateway")
                    .body::<GrantBody>()
                    .propagates()
                    .refuses(&[503])
                    .link(
                        "RevokeToken",
                        (Method::POST, "/api/v1/tokens/revoke"),
                        json!({}),
                        Some(json!({"token": "$request.body#/token"})),
                    ),
            ],
            post(grant),
        )
        .route(
            "/api/v1/tokens/revoke",
            [
                openapi::post::<Revoked>("Stops a token everywhere, ending what it opened")
                    .body::<RevokeBody>()
                    .propagates()
                    .refuses(&[503]),
            ],
            post(revoke),
        )
        .route(
            KILL_SWITCH,
            [
                openapi::get::<StoredKillSwitch>("The operator's kill switch")
                    .refuses(&[503])
                    .link(
                        "PutKillSwitchAtVersion",
                        (Method::PUT, KILL_SWITCH),
                        json!({}),
                        Some(json!({"deny": "$response.body#/deny", "version": "$response.body#/version"})),
                    ),
                openapi::put::<StoredKillSwitch>(
                    "Puts the operator's kill switch (always a compare-and-set)",
                )
                .body::<KillSwitchPut>()
                .propagates()
                .refuses(&[409, 503]),
            ],
            get(super::kill::get_kill_switch).put(super::kill::put_kill_switch),
        )
        .route(
            "/api/v1/audit",
            [
                audit::described(openapi::get::<AuditPage>("A page of the audit trail"))
                    .refuses(&[503]),
            ],
            get(get_audit),
        )
        .beside(
            "/admin/agents/{principal}",
            [openapi::page(
                "One agent: its profile, explanation and audit",
                &[],
            )],
        )
        .beside(
            "/admin/agents/{principal}/profile",
            [openapi::page(
                "Previews an agent's profile change",
                &["profile", "csrf"],
            )],
        )
        .beside(
            "/admin/agents/{principal}/profile/apply",
            [openapi::page(
                "Applies a previewed profile change (409 if the agent's version moved)",
                &["profile", "version", "csrf"],
            )],
        )
        .beside_shared(openapi::page(
            "Applies a previewed kill switch (409 if its version moved)",
            &["deny", "version", "csrf"],
        ))
}

async fn authorise(State(control): State<Control>, request: Request, next: Next) -> Response {
    match check_token(request.headers(), &control.token) {
        Ok(()) => attributed(&control.actor, request, next).await,
        Err(refusal) => refusal.into_response(),
    }
}

async fn get_audit(State(control): State<Control>, uri: Uri) -> Result<Response, Refusal> {
    let query = audit::query(uri.query(), |principal| principal_name(principal).map(drop))?;
    let records = control.store.audit(&query).await.map_err(failed)?;
    Ok(audit::answer(&query, records))
}

/// A token an HTTP client can present; the message never shows it.
fn token_value(token: &str) -> Result<&str, Refusal> {
    if token.is_empty() || token.len() > MAX_TOKEN_BYTES {
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            format!("`token` must be 1 to {MAX_TOKEN_BYTES} bytes"),
        ));
    }
    if let Some(position) = token.chars().position(|c| !matches!(c, '\x21'..='\x7e')) {
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            format!(
                "`token`'s character {} is not visible ASCII (0x21-0x7E), so no client could present it",
                position + 1
            ),
        ));
    }
    Ok(token)
}

fn agent_answer(agent: &StoredAgent<Kandev>) -> Agent {
    Agent {
        principal: agent.principal.clone(),
        profile: *agent.profile.context(),
        tools: agent
            .profile
            .tool_names()
            .iter()
            .map(|name| (*name).to_owned())
            .collect(),
        version: agent.version,
    }
}

async fn get_agent(
    State(control): State<Control>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let agent = control.store.agent(&principal).await.map_err(failed)?;
    let agent = agent.ok_or_else(|| no_agent(&principal))?;
    Ok(Json(agent_answer(&agent)).into_response())
}

async fn put_agent(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let body: AgentPut = decode(&headers, body)?;
    let change = control
        .store
        .put_agent_if(&principal, body.profile.0, body.version, &by)
        .await
        .map_err(failed)?;
    let answer = AgentChanged {
        agent: agent_answer(&change.agent),
        changed: change.changed,
    };
    tracing::info!(
        principal,
        version = change.agent.version,
        changed = change.changed,
        "agent profile put"
    );
    let answer = Json(answer).into_response();
    Ok(propagated(&control, Changed::Agent(&principal), answer).await)
}

async fn delete_agent(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    if !control
        .store
        .delete_agent(&principal, &by)
        .await
        .map_err(failed)?
    {
        return Err(no_agent(&principal));
    }
    tracing::info!(principal, "agent removed");
    let answer = Json(AgentRemoved {
        principal: principal.clone(),
        removed: true,
    })
    .into_response();
    Ok(propagated(&control, Changed::Agent(&principal), answer).await)
}

async fn grant(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: GrantBody = decode(&headers, body)?;
    let principal = principal_name(&body.principal)?;
    let token = token_value(&body.token)?;
    control
        .store
        .grant_token(token, principal, &by)
        .await
        .map_err(failed)?;
    tracing::info!(principal, "token granted");
    let answer = Json(Granted {
        principal: principal.to_owned(),
        granted: true,
    })
    .into_response();
    Ok(propagated(&control, Changed::Token(token), answer).await)
}

async fn revoke(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: RevokeBody = decode(&headers, body)?;
    let token = token_value(&body.token)?;
    let revoked = control
        .store
        .revoke_token(token, &by)
        .await
        .map_err(failed)?;
    tracing::info!(revoked, "token revoked");
    let answer = Json(Revoked { revoked }).into_response();
    Ok(propagated(&control, Changed::Token(token), answer).await)
}

#[cfg(test)]
mod tests {
    use super::super::requests::principal_name;
    use super::token_value;

    #[test]
    fn principal_names_are_checked_and_echoed_clipped() {
        assert!(principal_name("alice@team-1.dev_ops").is_ok());
        for bad in ["", "al ice", "a/b", "ünï", ".", ".."] {
            assert!(principal_name(bad).is_err(), "{bad}");
        }
        let long = "x".repeat(500);
        let refusal = principal_name(&long).err().unwrap();
        assert!(refusal.message.len() < 200, "{}", refusal.message);
    }

    #[test]
    fn token_errors_never_show_the_token() {
        let refusal = token_value("secret value").err().unwrap();
        assert!(!refusal.message.contains("secret"), "{}", refusal.message);
        assert!(
            refusal.message.contains("character 7"),
            "{}",
            refusal.message
        );
        assert!(token_value("").is_err());
        assert!(token_value("s3cret-token").is_ok());
    }
}
