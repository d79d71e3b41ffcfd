//! `serve`'s control API: the library's ([`mcp_profiles_serve::control`])
//! over a store holding one agent, the task `serve` serves, with what is
//! Kandev's mounted on it as extensions. One API, the gateway's, over a
//! store of one principal.
//!
//! The library's routes for one agent
//! ([`ControlApi::serving_one`]: `GET`/`PUT /api/v1/agents/{principal}`,
//! the kill switch, the audit trail, `/exposure`, the admin page at
//! `/admin`) name the agent by its principal: the served task's id
//! (`--task`), `task-2` on the demo board. Kandev's own, each changing that one agent through
//! the same store, so every change is recorded in the same audit trail:
//!
//! | route | body | answer |
//! |---|---|---|
//! | `GET /api/v1/mcp/profile` | — | `{"profile": {...}, "tools": [...]}` |
//! | `PUT /api/v1/mcp/profile` | a profile context (or Kandev's tool-policy form) | `{"profile", "tools", "changed"}` |
//! | `PUT /api/v1/mcp/mode` | `{"mode": "...", "disable_ask_question": false}` | same |
//! | `PUT /api/v1/mcp/providers` | `{"mcp_providers": ["github"]}` | same |
//! | `GET /api/v1/mcp/policy` | — | `{"policy": {...}}`, see [`policy`] |
//! | `PUT /api/v1/mcp/policy` | `{"read_only": true, "no_destructive": false, "deny": [...]}` | `{"policy", "profile", "tools", "changed"}` |
//! | `GET /api/v1/mcp/kill-switch` | — | `{"deny": [...]}` |
//! | `PUT /api/v1/mcp/kill-switch` | `{"deny": ["delete_task_kandev"]}` | `{"deny", "profile", "tools", "changed"}` |
//! | `GET /api/v1/mcp/plugin-tools` | — | the installed plugin-tool snapshot |
//! | `PUT /api/v1/mcp/plugin-tools` | a plugin-tool snapshot | `{"principal", "generation", "revision", "tools", "changed", "version"}`, see `control/plugins.rs` |
//! | `PUT /api/v1/tasks/{id}/autopilot` | `{"autopilot": true}` | see [`tasks`] |
//! | `PUT /api/v1/tasks/{id}/title-owner` | `{"session": "session-2"}` or `null` | see [`tasks`] |
//! | `PUT /api/v1/tasks/{id}/tool-policy` | `{"coordinator_tool_policy": {...}}`, `{"managed_tool_policy": {...}}` or `{}` | see [`tasks`] |
//!
//! Every change is recorded in the board's audit trail (the database's
//! `audit` table with `--db`, in memory otherwise) before it is made: a
//! record that cannot be saved refuses its change (503, nothing moved, no
//! session told). A mode or provider change keeps the policy. The whole
//! API is described in OpenAPI 3.1 by the same types:
//! `GET /api/v1/openapi.json`, committed as `docs/openapi/serve.json`.
//! `serve` merges `GET /metrics` into this listener (see
//! [`crate::prometheus`]), behind the same token unless `--metrics-public`.
//! Refusals are the library's ([`Refusal`], the codes in [`codes`]).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Extension, Json, Router};
use mcp_profiles::{ProfileContext, ProfileController};
use mcp_profiles_serve::audit::{Attribution, AuditQuery};
use mcp_profiles_serve::control::{ControlApi, decode_json, failed, json_body, no_agent};
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore, StoreError, StoredAgent};

pub use mcp_profiles_serve::control::{
    MAX_BODY_BYTES, MAX_ECHOED_PATH_BYTES, Refusal, codes, decode,
};

use crate::legacy;
use crate::openapi;
use crate::served::ServedTask;
use crate::server::Kandev;
use crate::tool_policies::KandevContext;

pub(crate) mod answers;
pub mod attribution;
pub(crate) mod plugins;
pub mod policy;
pub mod tasks;

pub use plugins::MAX_SNAPSHOT_BYTES;

/// The control listener's connection bounds: the library's (one backend
/// talks to it, so a few connections and short timeouts, on its own
/// listener, so a saturated MCP port cannot starve it).
pub fn limits() -> mcp_profiles_serve::http::Limits {
    mcp_profiles_serve::gateway::control_limits()
}

/// The agent `serve` serves: one principal of a store, whose controller
/// its sessions are served by.
#[derive(Clone)]
pub struct Single {
    store: Arc<MemoryStore<Kandev>>,
    /// The same store, as the control API changes it.
    agents: plugins::Store,
    principal: Arc<str>,
}

impl Single {
    /// `principal`'s agent in `store`, serving `context`, its start
    /// recorded in the store's trail (`profile-put` from no agent, by
    /// `by`) at the version after the newest the trail holds for it, so a
    /// restarted server's versions go on from the last one's.
    ///
    /// # Errors
    ///
    /// The trail could not be read or refused the record.
    pub async fn launch(
        store: Arc<MemoryStore<Kandev>>,
        principal: &str,
        context: ProfileContext<Kandev>,
        by: &Attribution,
    ) -> Result<Self, StoreError> {
        let single = Single::of(store, principal);
        let newest = AuditQuery::new().of(principal).newest_first().with_limit(1);
        let last = single
            .agents
            .audit(&newest)
            .await?
            .first()
            .map_or(0, |record| {
                [&record.after, &record.before]
                    .iter()
                    .filter_map(|state| state["version"].as_u64())
                    .max()
                    .unwrap_or(0)
            });
        single.store.resume_versions(principal, last);
        single.agents.put_agent(principal, context, by).await?;
        Ok(single)
    }

    /// `principal`'s agent in `store`, serving `context` (put, recording
    /// nothing).
    pub fn new(
        store: Arc<MemoryStore<Kandev>>,
        principal: &str,
        context: ProfileContext<Kandev>,
    ) -> Self {
        store.profiles().add_agent(principal, context);
        Single::of(store, principal)
    }

    fn of(store: Arc<MemoryStore<Kandev>>, principal: &str) -> Self {
        Single {
            agents: Arc::clone(&store) as plugins::Store,
            store,
            principal: Arc::from(principal),
        }
    }

    /// The demo's: `task-2` serving `context` in a store of its own,
    /// recording in memory and taking plugin tools with no backend.
    pub fn demo(context: ProfileContext<Kandev>) -> Self {
        let store = ProfileStore::default().with_catalogs(crate::plugins::catalog_decoder(
            crate::plugins::Backend::none(),
        ));
        Single::new(Arc::new(MemoryStore::new(store)), "task-2", context)
    }

    /// The store it is kept in.
    pub fn store(&self) -> &Arc<MemoryStore<Kandev>> {
        &self.store
    }

    /// What the store serves from: the agent's controller and the kill
    /// switch over it.
    pub fn profiles(&self) -> &Arc<ProfileStore<Kandev>> {
        self.store.profiles()
    }

    /// Its principal.
    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// The controller its sessions are served by.
    ///
    /// # Panics
    ///
    /// If the control API deleted the agent.
    pub fn controller(&self) -> ProfileController<Kandev> {
        self.profiles()
            .controller(&*self.principal)
            .expect("the served agent was deleted")
    }

    fn agents(&self) -> &plugins::Store {
        &self.agents
    }

    async fn stored(&self) -> Result<StoredAgent<Kandev>, Refusal> {
        self.agents()
            .agent(&self.principal)
            .await
            .map_err(failed)?
            .ok_or_else(|| no_agent(&self.principal))
    }
}

/// What the routes share: the agent, and the stored task it serves.
#[derive(Clone)]
struct Control {
    single: Single,
    task: Option<Arc<ServedTask>>,
}

/// The control API's router over `single`, its changes recorded as
/// [`attribution::DEFAULT_TOKEN_NAME`]'s. `token` must be non-empty.
pub fn router(single: Single, token: &str) -> Router {
    router_with(single, token, Extras::default())
}

/// What a control API serves besides the library's routes.
#[derive(Clone)]
pub struct Extras {
    /// The stored task this process serves (`serve --db --task`), which
    /// adds the task routes ([`tasks`]).
    pub task: Option<Arc<ServedTask>>,
    /// The name the API's changes are recorded under: the control token's
    /// (see [`attribution::token_name`]).
    pub token_name: String,
}

impl Default for Extras {
    /// No stored task; the changes recorded as
    /// [`attribution::DEFAULT_TOKEN_NAME`]'s.
    fn default() -> Self {
        Extras {
            task: None,
            token_name: attribution::DEFAULT_TOKEN_NAME.to_owned(),
        }
    }
}

/// The control API's router with `extras`. `token` must be non-empty.
pub fn router_with(single: Single, token: &str, extras: Extras) -> Router {
    api(single, token, extras).router()
}

/// The control API's OpenAPI 3.1 description, as `GET /api/v1/openapi.json`
/// answers it (and `docs/openapi/serve.json` holds it).
pub fn openapi() -> serde_json::Value {
    let single = Single::demo(legacy::context_for_mode("task", false).expect("a legacy mode"));
    api(single, "describing", Extras::default()).openapi()
}

/// The library's API with Kandev's context form and routes, the library's
/// admin pages called Kandev's, and `/metrics` described.
fn api(single: Single, token: &str, extras: Extras) -> ControlApi<Kandev, KandevContext> {
    use answers::*;
    let control = Control {
        single: single.clone(),
        task: extras.task,
    };
    let task_route =
        |summary: &'static str| openapi::put::<TaskChanged>(summary).refuses(&[404, 500, 503]);
    ControlApi::new(Arc::clone(single.agents()), token)
        .serving_one(&single.principal)
        .context_form::<KandevContext>()
        .recorded_as(&extras.token_name)
        .titled(
            "kandev-mcp serve: control API",
            "The backend's path to a live profile update of one `kandev-mcp serve` process: \
             its agent (the served task), its policy, the kill switch, plugin tools, the stored \
             task and the audit trail. Every route takes the control token as a bearer token.",
        )
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
                    .body::<KandevContext>()
                    .refuses(&[409, 503]),
            ],
            get(get_profile).put(put_profile).with_state(control.clone()),
        )
        .route(
            "/api/v1/mcp/mode",
            [openapi::put::<Changed>("Replaces the live profile with a legacy mode's")
                .body::<ModeBody>()
                .refuses(&[409, 503])],
            put(put_mode).with_state(control.clone()),
        )
        .route(
            "/api/v1/mcp/providers",
            [openapi::put::<Changed>("Sets the live profile's providers")
                .body::<ProvidersBody>()
                .refuses(&[409, 503])],
            put(put_providers).with_state(control.clone()),
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
                    .body::<mcp_profiles::Policy<Kandev>>()
                    .refuses(&[409, 503]),
            ],
            get(policy::get_policy)
                .put(policy::put_policy)
                .with_state(control.clone()),
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
                    .body::<KillSwitchBody>()
                    .refuses(&[503]),
            ],
            get(policy::get_kill_switch)
                .put(policy::put_kill_switch)
                .with_state(control.clone()),
        )
        .route(
            "/api/v1/mcp/plugin-tools",
            [
                openapi::get::<InstalledSnapshot>(
                    "The installed plugin-tool snapshot (`generation` and `revision` null before the first)",
                ),
                openapi::put::<AgentPluginTools>("Installs a plugin-tool snapshot")
                    .body::<crate::plugins::Snapshot>()
                    .refuses(&[409, 503]),
            ],
            get(get_plugin_tools)
                .put(put_plugin_tools)
                .layer(DefaultBodyLimit::max(MAX_SNAPSHOT_BYTES))
                .with_state(control.clone()),
        )
        .route(
            "/api/v1/tasks/{id}/autopilot",
            [task_route("Sets the stored task's autopilot").body::<AutopilotBody>()],
            put(tasks::put_autopilot).with_state(control.clone()),
        )
        .route(
            "/api/v1/tasks/{id}/title-owner",
            [task_route("Sets or clears the session owning the task's title")
                .body::<TitleOwnerBody>()],
            put(tasks::put_title_owner).with_state(control.clone()),
        )
        .route(
            "/api/v1/tasks/{id}/tool-policy",
            [task_route("Sets or clears the task's tool policy").body::<ToolPolicyBody>()],
            put(tasks::put_tool_policy).with_state(control),
        )
        .with_admin_named(openapi::admin_naming())
        .beside(openapi::METRICS, [openapi::metrics()])
}

/// How many times a change reads and compares again when another change
/// of the agent slipped in between; past it, 409.
const ATTEMPTS: usize = 8;

/// Replaces the agent's profile with what `next` makes of it, as a
/// compare-and-set on the version it was made from: the new profile as a
/// session lists it, and whether its tools changed.
async fn replaced(
    single: &Single,
    by: &Attribution,
    next: impl Fn(&ProfileContext<Kandev>) -> Result<ProfileContext<Kandev>, Refusal>,
) -> Result<answers::Changed, Refusal> {
    let store = single.agents();
    for _ in 0..ATTEMPTS {
        let agent = single.stored().await?;
        let context = next(agent.profile.context())?;
        match store
            .put_agent_if(&single.principal, context, Some(agent.version), by)
            .await
        {
            Ok(written) => {
                let change = written.into_value();
                return Ok(answers::Changed {
                    now: answers::Profiled::of(&single.controller(), &change.agent.profile),
                    changed: change.changed,
                });
            }
            Err(StoreError::Conflict { .. }) => {}
            Err(error) => return Err(failed(error)),
        }
    }
    Err(Refusal::new(
        StatusCode::CONFLICT,
        format!("the agent `{}` kept changing; try again", single.principal),
    ))
}

async fn get_profile(State(control): State<Control>) -> Response {
    let controller = control.single.controller();
    Json(answers::Profiled::of(&controller, &controller.current())).into_response()
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
    let change = replaced(&control.single, &by, |_| Ok(context)).await?;
    Ok(Json(change).into_response())
}

async fn put_mode(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: answers::ModeBody = decode(&headers, body)?;
    let change = replaced(&control.single, &by, |current| {
        legacy::apply_mode(current, &body.mode, body.disable_ask_question)
            .map_err(|err| Refusal::new(StatusCode::BAD_REQUEST, err.to_string()))
    })
    .await?;
    Ok(Json(change).into_response())
}

async fn put_providers(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: answers::ProvidersBody = decode(&headers, body)?;
    let change = replaced(&control.single, &by, |current| {
        legacy::apply_providers(current, &body.mcp_providers)
            .map_err(|err| Refusal::new(StatusCode::BAD_REQUEST, err.to_string()))
    })
    .await?;
    Ok(Json(change).into_response())
}

async fn get_plugin_tools(State(control): State<Control>) -> Result<Response, Refusal> {
    plugins::installed(control.single.agents(), &control.single.principal).await
}

async fn put_plugin_tools(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let single = &control.single;
    plugins::install(single.agents(), &single.principal, &by, &headers, body).await
}
