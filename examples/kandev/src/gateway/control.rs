//! The gateway's control API: the library's
//! ([`mcp_profiles_serve::control`]: agents, tokens, the kill switch, the
//! audit trail, the propagation answer, the refusals), over Kandev's
//! vocabulary, with what is Kandev's mounted on it:
//!
//! - an agent's `"profile"` may also be Kandev's tool-policy form (ours
//!   plus `coordinator_tool_policy` or `managed_tool_policy`, see
//!   [`crate::tool_policies`]);
//! - each agent's plugin tools (`control/plugins.rs`):
//!   `GET`/`PUT /api/v1/agents/{principal}/plugin-tools`, whose `"tools"`
//!   is everything its sessions list;
//! - the library's admin page, `/admin`
//!   ([`ControlApi::with_admin_named`], [`mcp_profiles_serve::admin`]):
//!   HTML for a browser, a login with the control token kept in a cookie,
//!   forms that preview a change and then apply it through the same
//!   audited path (see the README's "The admin page").
//!
//! The whole API is described in OpenAPI 3.1 by the same types:
//! `GET /api/v1/openapi.json`, committed as `docs/openapi/gateway.json`.
//! `GET /metrics` is merged into this listener by [`super::run`] (see
//! [`crate::prometheus`]), behind the same token unless `--metrics-public`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, Method};
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Router};
use mcp_profiles_serve::AgentStore;
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::control::{ControlApi, DEFAULT_TOKEN_NAME, Refusal, path_principal};
use serde_json::json;

pub use mcp_profiles_serve::control::{MAX_PRINCIPAL_BYTES, MAX_TOKEN_BYTES};

use crate::control::answers::{AgentPluginTools, InstalledSnapshot};
use crate::control::plugins::{self, MAX_SNAPSHOT_BYTES};
use crate::openapi;
use crate::server::Kandev;
use crate::tool_policies::KandevContext;

const PLUGIN_TOOLS: &str = "/api/v1/agents/{principal}/plugin-tools";

/// The gateway's control router over `store`, its changes recorded as
/// the control token's ([`DEFAULT_TOKEN_NAME`]). `token` must be non-empty.
pub fn router(store: Arc<dyn AgentStore<Kandev>>, token: &str) -> Router {
    router_with_name(store, token, DEFAULT_TOKEN_NAME)
}

/// [`router`], its changes recorded in the audit trail as `name`'s (see
/// [`mcp_profiles_serve::control::token_name`]).
pub fn router_with_name(store: Arc<dyn AgentStore<Kandev>>, token: &str, name: &str) -> Router {
    api(store, token, name).router()
}

/// The gateway's control API's OpenAPI 3.1 description, as
/// `GET /api/v1/openapi.json` answers it (and `docs/openapi/gateway.json`
/// holds it).
pub fn openapi() -> serde_json::Value {
    let store: Arc<dyn AgentStore<Kandev>> =
        Arc::new(mcp_profiles_serve::MemoryStore::<Kandev>::default());
    api(store, "describing", DEFAULT_TOKEN_NAME).openapi()
}

/// The library's API with Kandev's context form and plugin tools, the
/// library's admin pages called Kandev's, and `/metrics` described.
fn api(
    store: Arc<dyn AgentStore<Kandev>>,
    token: &str,
    name: &str,
) -> ControlApi<Kandev, KandevContext> {
    let principal = json!({"principal": "$request.path.principal"});
    ControlApi::new(Arc::clone(&store), token)
        .context_form::<KandevContext>()
        .recorded_as(name)
        .titled(
            "kandev-mcp gateway: control API",
            "Agents, their tokens, their plugin tools and the operator's kill switch, \
             for every gateway sharing the store, with the audit trail of every change. \
             Every route takes the control token as a bearer token.",
        )
        .route(
            PLUGIN_TOOLS,
            [
                openapi::get::<InstalledSnapshot>("An agent's installed plugin-tool snapshot")
                    .refuses(&[404, 503]),
                openapi::put::<AgentPluginTools>("Installs an agent's plugin-tool snapshot")
                    .body::<crate::plugins::Snapshot>()
                    .propagates()
                    .refuses(&[404, 409, 503])
                    .link(
                        "ReadPluginTools",
                        (Method::GET, PLUGIN_TOOLS),
                        principal,
                        None,
                    ),
            ],
            get(get_plugin_tools)
                .put(put_plugin_tools)
                .layer(DefaultBodyLimit::max(MAX_SNAPSHOT_BYTES))
                .with_state(store),
        )
        .with_admin_named(openapi::admin_naming())
        .beside(openapi::METRICS, [openapi::metrics()])
}

async fn get_plugin_tools(
    State(store): State<plugins::Store>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, Refusal> {
    plugins::installed(&store, &path_principal(path)?).await
}

async fn put_plugin_tools(
    State(store): State<plugins::Store>,
    Extension(by): Extension<Attribution>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    plugins::install(&store, &path_principal(path)?, &by, &headers, body).await
}
