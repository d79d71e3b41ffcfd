//! `GET`/`PUT /api/v1/agents/{principal}/plugin-tools`: each agent's
//! plugin-tool snapshot, kept in the gateway's store beside its profile and
//! installed on every gateway serving the agent.
//!
//! The bodies, checks and answers are `serve`'s (`control/plugins.rs`):
//! `PUT` takes Kandev's snapshot and answers `{"principal", "generation",
//! "revision", "tools", "changed", "version"}`, where `tools` is what the
//! agent's sessions list now (without `_kandev` under
//! `--present-without-suffix`) and `version` the agent's version (profile
//! replacements and snapshots count alike); a stale revision of the
//! installed generation is ignored (`"changed": false`, the installed
//! version in the answer). `GET` answers the installed snapshot, or
//! `{"generation": null, "revision": null, "tools": []}` before the first.
//! 404 for an agent that does not exist; 400 naming both tools for a
//! snapshot whose names would collide under the gateway's name
//! presentation, and nothing is stored.

use std::sync::Arc;

use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp_profiles::{KillSwitch, ProfileController};
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::{AgentStore, Changed, StoreError, StoredCatalog};
use serde::Deserialize;

use crate::control::answers::{AgentPluginTools, InstalledSnapshot};
use serde_json::Value;

use mcp_profiles_serve::control::{Refusal, failed, no_agent, path_principal, propagated};

use crate::control::plugins::snapshot_body;
use crate::plugins::{Backend, Plugins, Snapshot};

/// How many times a `PUT` reads and compares again when another change
/// of the agent slipped in between; past it, 409.
const ATTEMPTS: usize = 8;

/// Every agent's store.
type Store = Arc<dyn AgentStore<crate::Kandev>>;

pub(super) async fn get_plugin_tools(
    State(store): State<Store>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let stored = stored(store.as_ref(), &principal).await?;
    let installed = stored.wire.as_ref().and_then(decoded);
    Ok(Json(InstalledSnapshot::of(installed)).into_response())
}

pub(super) async fn put_plugin_tools(
    State(store): State<Store>,
    Extension(by): Extension<Attribution>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let snapshot = snapshot_body(&headers, body)?;
    let wire = serde_json::to_value(&snapshot)
        .map_err(|err| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string()))?;
    for _ in 0..ATTEMPTS {
        let stored = stored(store.as_ref(), &principal).await?;
        let installed = stored.wire.as_ref().and_then(decoded);
        if let Some(installed) = installed.filter(|installed| !supersedes(&snapshot, installed)) {
            return stale(store.as_ref(), &principal, installed, stored.version).await;
        }
        match store
            .put_catalog_if(&principal, wire.clone(), Some(stored.version), &by)
            .await
        {
            Ok(written) => {
                let replication = written.replication;
                let change = written.into_value();
                tracing::info!(
                    principal,
                    version = change.version,
                    changed = change.changed,
                    "agent plugin tools put"
                );
                let answer = answer(
                    &principal,
                    &snapshot,
                    change.tools,
                    change.changed,
                    change.version,
                );
                let changed = Changed::Agent(&principal);
                return Ok(propagated(store.as_ref(), changed, replication, answer).await);
            }
            // Another change of the agent came first: compare again.
            Err(StoreError::Conflict { .. }) => {}
            Err(error) => return Err(failed(error)),
        }
    }
    Err(Refusal::new(
        StatusCode::CONFLICT,
        format!("the agent `{principal}` kept changing; try again"),
    ))
}

/// `principal`'s stored snapshot and version, or 404.
async fn stored(
    store: &dyn AgentStore<crate::Kandev>,
    principal: &str,
) -> Result<StoredCatalog, Refusal> {
    store
        .catalog(principal)
        .await
        .map_err(failed)?
        .ok_or_else(|| no_agent(principal))
}

/// A stored snapshot; it was checked when it was put.
fn decoded(wire: &Value) -> Option<Snapshot> {
    Snapshot::deserialize(wire).ok()
}

/// Whether `new` replaces `installed`: another generation, or a newer
/// revision of the same one.
fn supersedes(new: &Snapshot, installed: &Snapshot) -> bool {
    new.generation != installed.generation || new.revision > installed.revision
}

/// The answer to a stale snapshot: nothing changed, the installed version.
async fn stale(
    store: &dyn AgentStore<crate::Kandev>,
    principal: &str,
    installed: Snapshot,
    version: u64,
) -> Result<Response, Refusal> {
    let agent = store
        .agent(principal)
        .await
        .map_err(failed)?
        .ok_or_else(|| no_agent(principal))?;
    // Under the kill switch and name presentation in force, as the agent's
    // sessions list.
    let switch = KillSwitch::new();
    switch.set(store.profiles().killed());
    let controller = ProfileController::with_kill_switch(*agent.profile.context(), &switch);
    if let Some(presentation) = store.profiles().presentation() {
        controller
            .set_presentation(presentation.clone())
            .map_err(|err| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string()))?;
    }
    // Listing only: no call reaches this catalog's backend.
    let catalog = Plugins::new(Backend::none())
        .catalog(&installed)
        .map_err(|err| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string()))?;
    controller.install(&catalog);
    let tools = controller
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    Ok(answer(principal, &installed, tools, false, version))
}

fn answer(
    principal: &str,
    snapshot: &Snapshot,
    tools: Vec<String>,
    changed: bool,
    version: u64,
) -> Response {
    Json(AgentPluginTools {
        principal: principal.to_owned(),
        generation: snapshot.generation.clone(),
        revision: snapshot.revision,
        tools,
        changed,
        version,
    })
    .into_response()
}
