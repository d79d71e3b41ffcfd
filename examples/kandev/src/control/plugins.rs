//! `GET`/`PUT /api/v1/mcp/plugin-tools`: the backend's plugin-tool catalog.
//!
//! `PUT` takes Kandev's snapshot ([`Snapshot`]), checks it by Kandev's
//! rules and as a runtime catalog (names, schemas, collisions), installs it
//! all or nothing and answers `{"generation", "revision", "tools",
//! "changed"}`: the installed version, the tool names the session lists
//! now, and whether that list changed. A stale revision is ignored
//! (`"changed": false`, the installed version in the answer). `GET` answers
//! the installed snapshot, or `{"generation": null, "revision": null,
//! "tools": []}` before the first.

use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp_profiles_serve::audit::Attribution;

use super::{Control, Refusal, audited, json_body};
use crate::plugins::Snapshot;

/// The largest snapshot read: a catalog of a few thousand tools.
pub const MAX_SNAPSHOT_BYTES: usize = 1024 * 1024;

pub(super) async fn get_plugin_tools(State(control): State<Control>) -> Response {
    Json(super::answers::InstalledSnapshot::of(
        control.plugins.installed(),
    ))
    .into_response()
}

/// A snapshot body, decoded strictly and checked by Kandev's rules, or
/// the refusal saying why not.
pub(crate) fn snapshot_body(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Snapshot, Refusal> {
    let bytes = json_body(headers, body, MAX_SNAPSHOT_BYTES)?;
    Snapshot::decode(&bytes).map_err(|err| Refusal::new(StatusCode::BAD_REQUEST, err.to_string()))
}

pub(super) async fn put_plugin_tools(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let snapshot = snapshot_body(&headers, body)?;
    // Verifying compiles every schema: CPU work kept off the async workers,
    // and done before the board is held to record the change.
    let install = tokio::task::spawn_blocking(move || {
        let bad = |err: crate::plugins::SnapshotError| {
            Refusal::new(StatusCode::BAD_REQUEST, err.to_string())
        };
        snapshot.check().map_err(bad)?;
        let catalog = control.plugins.catalog(&snapshot).map_err(bad)?;
        let installation = audited::install_plugins(&control, &by, snapshot, &catalog)?;
        let tools: Vec<String> = control
            .controller
            .tools()
            .iter()
            .map(|tool| tool.name.to_string())
            .collect();
        Ok::<_, Refusal>((installation, tools))
    });
    let (installation, tools) = install
        .await
        .map_err(|err| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string()))??;
    Ok(Json(super::answers::PluginToolsChanged {
        changed: installation.changed(),
        generation: installation.generation,
        revision: installation.revision,
        tools,
    })
    .into_response())
}
