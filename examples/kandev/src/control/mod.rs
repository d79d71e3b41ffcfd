//! The control API: the backend's path to a live profile update, on its own
//! listener, JSON in and out, every route behind a bearer token.
//!
//! The whole API, every route, body, answer and refusal, is described in
//! OpenAPI 3.1 by the same types (`openapi.rs`): `GET /api/v1/openapi.json`,
//! committed as `docs/openapi/serve.json`.
//!
//! | route | body | answer |
//! |---|---|---|
//! | `GET /api/v1/mcp/profile` | — | `{"profile": {...}, "tools": [...]}` |
//! | `PUT /api/v1/mcp/profile` | a profile context | `{"profile", "tools", "changed"}` |
//! | `PUT /api/v1/mcp/mode` | `{"mode": "...", "disable_ask_question": false}` | same |
//! | `PUT /api/v1/mcp/providers` | `{"mcp_providers": ["github"]}` | same |
//! | `GET /api/v1/mcp/policy` | — | `{"policy": {...}}`, see [`policy`] |
//! | `PUT /api/v1/mcp/policy` | `{"read_only": true, "no_destructive": false, "deny": [...]}` | `{"policy", "profile", "tools", "changed"}` |
//! | `GET /api/v1/mcp/kill-switch` | — | `{"deny": [...]}` |
//! | `PUT /api/v1/mcp/kill-switch` | `{"deny": ["delete_task_kandev"]}` | `{"deny", "profile", "tools", "changed", "notified_sessions"}` |
//! | `PUT /api/v1/tasks/{id}/autopilot` | `{"autopilot": true}` | see [`tasks`] |
//! | `PUT /api/v1/tasks/{id}/title-owner` | `{"session": "session-2"}` or `null` | see [`tasks`] |
//! | `PUT /api/v1/tasks/{id}/tool-policy` | `{"coordinator_tool_policy": {...}}`, `{"managed_tool_policy": {...}}` or `{}` | see [`tasks`] |
//! | `GET /api/v1/mcp/plugin-tools` | — | the installed plugin-tool snapshot |
//! | `PUT /api/v1/mcp/plugin-tools` | a plugin-tool snapshot | `{"generation", "revision", "tools", "changed"}` |
//! | `GET /api/v1/audit?principal=&since=&before=&order=&limit=` | — | `{"records", "next"}`, see [`audit`] |
//!
//! Every change (the profile, mode, providers, policy, kill switch, plugin
//! tools, a task's autopilot, title owner or tool policy) is recorded in
//! the audit trail in the same step (`control/audited.rs`): in the database's
//! `audit` table with `--db`, in memory otherwise. A record names the
//! control token's name (`--control-token-name`, `control` unless told),
//! the request's id (its `X-Request-Id`, else a fresh one, answered back
//! in `X-Request-Id`), what it replaced and made, and the tools it added
//! and removed; a record that cannot be saved refuses its change (500).
//!
//! The listener also serves the admin page, `/admin`: HTML for a browser,
//! a login with the control token kept in a cookie, forms that preview a
//! change and then apply it through the same audited path (see the
//! README's "The admin page"), built of the library's
//! ([`mcp_profiles_serve::admin`]) in `control/admin.rs`.
//!
//! `serve` merges `GET /metrics` into this listener (see
//! [`crate::prometheus`]), behind the same token unless `--metrics-public`.
//!
//! The plugin-tool routes are described in `control/plugins.rs`, the
//! snapshot in [`crate::plugins::Snapshot`]; the policy and kill-switch
//! routes in [`policy`]. A mode or provider change keeps the policy.
//!
//! Every refusal answers `{"error": "...", "code": "...", "status": N}`
//! naming the problem, with `"pointer"`, the JSON pointer of the offending
//! part of the body, where there is one (the codes: [`codes`]):
//!
//! | status | when |
//! |---|---|
//! | 401 | missing or wrong token |
//! | 400 | malformed body (every body is a JSON object), unknown field or name |
//! | 404 | no such route (`no route <METHOD> <path>`, the path cut at 256 bytes) |
//! | 405 | wrong method on a route |
//! | 413 | body over 64 KiB (1 MiB for a plugin-tool snapshot) |
//! | 415 | a `PUT` whose `Content-Type` is not `application/json` (parameters such as `; charset=utf-8` allowed) |
//!
//! In every error case the profile is unchanged and nothing is sent.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Extension, Json, Router};
use mcp_profiles::{Profile, ProfileContext, ProfileController, Replacement};
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::control::{
    OPENAPI_PATH, audit, decode_json, guarded, json_body, method_not_allowed, no_route,
};

pub use mcp_profiles_serve::control::{
    MAX_BODY_BYTES, MAX_ECHOED_PATH_BYTES, Refusal, codes, decode,
};

use crate::legacy;
use crate::openapi::{self, Api};
use crate::plugins::{Backend, Plugins};
use crate::served::ServedTask;
use crate::server::Kandev;
use crate::store::Store;

mod admin;
pub(crate) mod answers;
pub mod attribution;
mod audited;
pub(crate) mod plugins;
pub mod policy;

pub use plugins::MAX_SNAPSHOT_BYTES;
pub mod tasks;

/// The control listener's connection bounds: the library's (one backend
/// talks to it, so a few connections and short timeouts, on its own
/// listener, so a saturated MCP port cannot starve it).
pub fn limits() -> mcp_profiles_serve::http::Limits {
    mcp_profiles_serve::gateway::control_limits()
}

/// What the routes share.
#[derive(Clone)]
struct Control {
    controller: ProfileController<Kandev>,
    plugins: Arc<Plugins>,
    /// The name changes are recorded under (never the token).
    actor: Arc<str>,
    /// The stored task this process serves, if any (`serve --db --task`).
    task: Option<Arc<ServedTask>>,
    /// The board, which keeps the audit trail.
    board: Arc<Store>,
}

/// The control API's router, with no plugin backend (plugin tools can be
/// installed; their calls answer a tool error). `token` must be non-empty.
pub fn router(controller: ProfileController<Kandev>, token: &str) -> Router {
    router_with(controller, token, Extras::default())
}

/// What a control API serves besides the profile routes.
pub struct Extras {
    /// Where calls to the plugin tools installed through it go.
    pub plugins: Arc<Plugins>,
    /// The stored task this process serves (`serve --db --task`), which
    /// adds the task routes ([`tasks`]).
    pub task: Option<Arc<ServedTask>>,
    /// The board the sessions work on, which keeps the audit trail of the
    /// API's changes: the served task's database, or the demo board.
    pub board: Arc<Store>,
    /// The name the API's changes are recorded under: the control token's
    /// (see [`attribution::token_name`]).
    pub token_name: String,
}

impl Default for Extras {
    /// No plugin backend (plugin tools can be installed; their calls answer
    /// a tool error), no stored task, a demo board of its own, and the
    /// changes recorded as [`attribution::DEFAULT_TOKEN_NAME`]'s.
    fn default() -> Self {
        Extras {
            plugins: Arc::new(Plugins::new(Backend::none())),
            task: None,
            board: Arc::new(Store::demo()),
            token_name: attribution::DEFAULT_TOKEN_NAME.to_owned(),
        }
    }
}

/// The control API's router with `extras`. `token` must be non-empty.
pub fn router_with(controller: ProfileController<Kandev>, token: &str, extras: Extras) -> Router {
    assert!(!token.is_empty(), "the control API needs a token");
    let state = Control {
        controller,
        plugins: extras.plugins,
        actor: Arc::from(extras.token_name),
        task: extras.task,
        board: extras.board,
    };
    let (routes, _) = described();
    guarded(routes, token, &state.actor)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state.clone())
        .merge(admin::router(state, token))
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
}

/// The control API's OpenAPI 3.1 description, as `GET /api/v1/openapi.json`
/// answers it (and `docs/openapi/serve.json` holds it).
pub fn openapi() -> serde_json::Value {
    described().1
}

/// The control API's routes and their description.
fn described() -> (Router<Control>, serde_json::Value) {
    api().finish(
        OPENAPI_PATH,
        "kandev-mcp serve: control API",
        "The backend's path to a live profile update of one `kandev-mcp serve` process: \
         its profile, policy, kill switch, plugin tools, stored task and audit trail. \
         Every route takes the control token as a bearer token.",
    )
}

/// The control API's routes, each described (see [`crate::openapi`]), and
/// the admin pages beside them.
fn api() -> Api<Control> {
    use answers::*;
    admin::described(Api::default())
        .route(
            "/api/v1/mcp/profile",
            [
                openapi::get::<Profiled>("The live profile and the tools a session lists").link(
                    "PutItBack",
                    (Method::PUT, "/api/v1/mcp/profile"),
                    serde_json::json!({}),
                    Some(serde_json::json!("$response.body#/profile")),
                ),
                openapi::put::<Changed>("Replaces the live profile")
                    .body::<crate::tool_policies::KandevContext>(),
            ],
            get(get_profile).put(put_profile),
        )
        .route(
            "/api/v1/mcp/mode",
            [openapi::put::<Changed>("Replaces the live profile with a legacy mode's")
                .body::<ModeBody>()],
            put(put_mode),
        )
        .route(
            "/api/v1/mcp/providers",
            [openapi::put::<Changed>("Sets the live profile's providers").body::<ProvidersBody>()],
            put(put_providers),
        )
        .route(
            "/api/v1/mcp/policy",
            [
                openapi::get::<PolicyAnswer>("The live profile's policy").link(
                    "PutItBack",
                    (Method::PUT, "/api/v1/mcp/policy"),
                    serde_json::json!({}),
                    Some(serde_json::json!("$response.body#/policy")),
                ),
                openapi::put::<PolicyChanged>("Puts the whole policy on the live profile")
                    .body::<mcp_profiles::Policy<Kandev>>(),
            ],
            get(policy::get_policy).put(policy::put_policy),
        )
        .route(
            "/api/v1/mcp/kill-switch",
            [
                openapi::get::<KillSwitchBody>("The operator's kill switch").link(
                    "PutItBack",
                    (Method::PUT, "/api/v1/mcp/kill-switch"),
                    serde_json::json!({}),
                    Some(serde_json::json!({"deny": "$response.body#/deny"})),
                ),
                openapi::put::<KillSwitchChanged>("Puts the operator's kill switch")
                    .body::<KillSwitchBody>(),
            ],
            get(policy::get_kill_switch).put(policy::put_kill_switch),
        )
        .route(
            "/api/v1/mcp/plugin-tools",
            [
                openapi::get::<InstalledSnapshot>(
                    "The installed plugin-tool snapshot (`generation` and `revision` null before the first)",
                ),
                openapi::put::<PluginToolsChanged>("Installs a plugin-tool snapshot")
                    .body::<crate::plugins::Snapshot>()
                    .refuses(&[500]),
            ],
            get(plugins::get_plugin_tools)
                .put(plugins::put_plugin_tools)
                .layer(DefaultBodyLimit::max(plugins::MAX_SNAPSHOT_BYTES)),
        )
        .route(
            "/api/v1/tasks/{id}/autopilot",
            [openapi::put::<TaskChanged>("Sets the stored task's autopilot")
                .body::<AutopilotBody>()
                .refuses(&[404, 500])],
            put(tasks::put_autopilot),
        )
        .route(
            "/api/v1/tasks/{id}/title-owner",
            [openapi::put::<TaskChanged>("Sets or clears the session owning the task's title")
                .body::<TitleOwnerBody>()
                .refuses(&[404, 500])],
            put(tasks::put_title_owner),
        )
        .route(
            "/api/v1/tasks/{id}/tool-policy",
            [openapi::put::<TaskChanged>("Sets or clears the task's tool policy")
                .body::<ToolPolicyBody>()
                .refuses(&[404, 500])],
            put(tasks::put_tool_policy),
        )
        .route(
            "/api/v1/audit",
            [audit::described(openapi::get::<mcp_profiles_serve::control::answers::AuditPage>(
                "A page of the audit trail",
            ))
            .refuses(&[500])],
            get(get_audit),
        )
        .beside(openapi::METRICS, [openapi::metrics()])
}

/// Runs `work` off the async workers (it waits on the board, perhaps on
/// SQLite) and answers what it returns.
async fn off_workers<T: Send + 'static>(
    control: Control,
    work: impl FnOnce(&Control) -> Result<T, Refusal> + Send + 'static,
) -> Result<T, Refusal> {
    tokio::task::spawn_blocking(move || work(&control))
        .await
        .map_err(|error| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?
}

async fn get_audit(State(control): State<Control>, uri: Uri) -> Result<Response, Refusal> {
    let query = audit::query(uri.query(), |principal| {
        crate::store::check_name("principal", principal)
            .map_err(|error| Refusal::new(StatusCode::BAD_REQUEST, error.to_string()))
    })?;
    let records = off_workers(control, {
        let query = query.clone();
        move |control| control.board.audit(&query).map_err(audited::failed_read)
    })
    .await?;
    Ok(audit::answer(&query, records))
}

/// The answer to a replacement: its new profile, the tools a session
/// lists now, and whether they changed.
pub(crate) fn changed(
    controller: &ProfileController<Kandev>,
    profile: &Profile<Kandev>,
    changed: bool,
) -> answers::Changed {
    answers::Changed {
        now: answers::Profiled::of(controller, profile),
        changed,
    }
}

/// [`changed`] of a replacement.
fn answer_change(controller: &ProfileController<Kandev>, change: &Replacement<Kandev>) -> Response {
    Json(changed(controller, &change.new, change.changed())).into_response()
}

async fn get_profile(State(control): State<Control>) -> Response {
    let current = control.controller.current();
    Json(answers::Profiled::of(&control.controller, &current)).into_response()
}

async fn put_profile(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    // Kandev's form: ours plus a coordinator binding or a managed policy.
    let bytes = json_body(&headers, body, MAX_BODY_BYTES)?;
    let Ok(text) = std::str::from_utf8(&bytes) else {
        // Not text: the strict decoder says so as it does for every body.
        return Err(decode_json::<ProfileContext<Kandev>>(&bytes)
            .err()
            .unwrap_or_else(|| Refusal::new(StatusCode::BAD_REQUEST, "the body is not UTF-8")));
    };
    let context = crate::tool_policies::context_from_json(text)
        .map_err(|error| Refusal::new(StatusCode::BAD_REQUEST, error.to_string()))?;
    replaced(control, by, move |_| Ok(context)).await
}

/// Replaces the live profile with what `next` makes of it, recorded, and
/// answers the change.
async fn replaced(
    control: Control,
    by: Attribution,
    next: impl FnOnce(&ProfileContext<Kandev>) -> Result<ProfileContext<Kandev>, Refusal>
    + Send
    + 'static,
) -> Result<Response, Refusal> {
    let controller = control.controller.clone();
    let change = off_workers(control, move |control| {
        audited::replace_profile(control, &by, next)
    })
    .await?;
    Ok(answer_change(&controller, &change))
}

async fn put_mode(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: answers::ModeBody = decode(&headers, body)?;
    replaced(control, by, move |current| {
        legacy::apply_mode(current, &body.mode, body.disable_ask_question)
            .map_err(|err| Refusal::new(StatusCode::BAD_REQUEST, err.to_string()))
    })
    .await
}

async fn put_providers(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: answers::ProvidersBody = decode(&headers, body)?;
    replaced(control, by, move |current| {
        legacy::apply_providers(current, &body.mcp_providers)
            .map_err(|err| Refusal::new(StatusCode::BAD_REQUEST, err.to_string()))
    })
    .await
}
