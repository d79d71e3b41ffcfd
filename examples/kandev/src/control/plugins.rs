//! Plugin tools through the store: an agent's snapshot kept beside its
//! profile and installed on every instance serving it, at
//! `GET`/`PUT /api/v1/agents/{principal}/plugin-tools` on the gateway and
//! `GET`/`PUT /api/v1/mcp/plugin-tools` on `serve` (its one agent).
//!
//! `PUT` takes Kandev's snapshot ([`Snapshot`]), checks it by Kandev's
//! rules and as a runtime catalog (names, schemas, collisions), installs it
//! all or nothing and answers `{"principal", "generation", "revision",
//! "tools", "changed", "version"}`, where `tools` is what the agent's
//! sessions list now (without `_kandev` under `--present-without-suffix`)
//! and `version` the agent's version (profile replacements and snapshots
//! count alike); a stale revision of the installed generation is ignored
//! (`"changed": false`, the installed version in the answer). `GET`
//! answers the installed snapshot, or `{"generation": null, "revision":
//! null, "tools": []}` before the first. 404 for an agent that does not
//! exist; 400 naming both tools for a snapshot whose names would collide
//! under the name presentation, and nothing is stored.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp_profiles::{KillSwitch, ProfileController};
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::control::{Refusal, failed, json_body, no_agent, propagated};
use mcp_profiles_serve::{AgentStore, Changed, StoreError, StoredCatalog};
use serde::Deserialize;
use serde_json::Value;

use super::answers::{AgentPluginTools, InstalledSnapshot};
use crate::plugins::{Backend, Plugins, Snapshot};

/// The largest snapshot read: a catalog of a few thousand tools.
pub const MAX_SNAPSHOT_BYTES: usize = 1024 * 1024;

/// A snapshot body, decoded strictly and checked by Kandev's rules, or
/// the refusal saying why not.
pub(crate) fn snapshot_body(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Snapshot, Refusal> {
    let bytes = json_body(headers, body, MAX_SNAPSHOT_BYTES)?;
    Snapshot::decode(&bytes).map_err(|err| Refusal::new(StatusCode::BAD_REQUEST, err.to_string()))
}

/// How many times a `PUT` reads and compares again when another change
/// of the agent slipped in between; past it, 409.
const ATTEMPTS: usize = 8;

/// Every agent's store.
pub(crate) type Store = Arc<dyn AgentStore<crate::Kandev>>;

/// `GET`: `principal`'s installed snapshot.
pub(crate) async fn installed(store: &Store, principal: &str) -> Result<Response, Refusal> {
    let stored = stored(store.as_ref(), principal).await?;
    let installed = stored.wire.as_ref().and_then(decoded);
    Ok(Json(InstalledSnapshot::of(installed)).into_response())
}

/// `PUT`: installs a snapshot as `principal`'s catalog, through the store.
pub(crate) async fn install(
    store: &Store,
    principal: &str,
    by: &Attribution,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let snapshot = snapshot_body(headers, body)?;
    let wire = serde_json::to_value(&snapshot)
        .map_err(|err| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string()))?;
    for _ in 0..ATTEMPTS {
        let stored = stored(store.as_ref(), principal).await?;
        let installed = stored.wire.as_ref().and_then(decoded);
        if let Some(installed) = installed.filter(|installed| !supersedes(&snapshot, installed)) {
            // Ignored, but refused first if it could not be installed.
            Plugins::new(Backend::none())
                .catalog(&snapshot)
                .map_err(|err| Refusal::new(StatusCode::BAD_REQUEST, err.to_string()))?;
            return stale(store.as_ref(), principal, installed, stored.version).await;
        }
        match store
            .put_catalog_if(principal, wire.clone(), Some(stored.version), by)
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
                    principal,
                    &snapshot,
                    change.tools,
                    change.changed,
                    change.version,
                );
                let changed = Changed::Agent(principal);
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
