//! `GET`/`PUT /api/v1/agents/{principal}/catalog`: each agent's runtime
//! catalog (feature `runtime-tools`), kept by the store in the wire form
//! the application's [`CatalogDecoder`](mcp_profiles::CatalogDecoder)
//! reads, and installed on every instance serving the agent. Served once
//! the application names that form's schema
//! ([`ControlApi::with_catalogs`](super::ControlApi::with_catalogs)).
//!
//! | route | body | answer |
//! |---|---|---|
//! | `GET` | — | `{"principal", "catalog": WIRE or null, "version"}` |
//! | `PUT` | `{"catalog": WIRE}`, optionally `"version": N` | `{"principal", "tools", "changed", "version"}` |
//!
//! `tools` is what the agent's sessions list now (profile and catalog,
//! under the store's name presentation); `version` the agent's, which
//! profile and catalog changes share, and with which the `PUT` is a
//! compare-and-set (409 when stale). 404 for an agent that does not exist;
//! 400 for a catalog the decoder refuses or whose names collide under the
//! presentation, naming why, and nothing is stored.

use std::marker::PhantomData;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, Method};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json};
use mcp_profiles::Vocabulary;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::agents::Shared;
use super::body::json_body;
use super::openapi;
use super::{
    ContextForm, ControlApi, Refusal, decode_json, failed, no_agent, path_principal, propagated,
};
use crate::Changed;
use crate::audit::Attribution;

/// The largest catalog body the routes read.
pub const MAX_CATALOG_BYTES: usize = 1024 * 1024;

const CATALOG: &str = "/api/v1/agents/{principal}/catalog";

/// `GET /api/v1/agents/{principal}/catalog`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(bound = "")]
#[schemars(rename = "StoredCatalog", bound = "W: JsonSchema")]
pub struct StoredCatalog<W> {
    /// The principal.
    pub principal: String,
    /// The catalog as it was put; `null` before the first.
    #[schemars(with = "Option<W>")]
    pub catalog: Option<Value>,
    /// The agent's version: profile and catalog changes count alike.
    pub version: u64,
    #[serde(skip)]
    #[schemars(skip)]
    wire: PhantomData<fn() -> W>,
}

/// `PUT /api/v1/agents/{principal}/catalog`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "CatalogPut", bound = "W: JsonSchema")]
pub struct CatalogPut<W> {
    /// The catalog, in the application's wire form.
    #[schemars(with = "W")]
    pub catalog: Value,
    /// Install only if the agent is at this version; `null` is refused.
    #[serde(default, deserialize_with = "super::answers::version")]
    #[schemars(with = "u64", transform = super::answers::without_default)]
    pub version: Option<u64>,
    #[serde(skip)]
    #[schemars(skip)]
    wire: PhantomData<fn() -> W>,
}

/// `PUT /api/v1/agents/{principal}/catalog`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CatalogChanged {
    /// The principal.
    pub principal: String,
    /// What the agent's sessions list now.
    pub tools: Vec<String>,
    /// Whether that list changed.
    pub changed: bool,
    /// The agent's version now.
    pub version: u64,
}

impl<S: Vocabulary, F: ContextForm<S>> ControlApi<S, F> {
    /// Serves each agent's runtime catalog at
    /// `/api/v1/agents/{principal}/catalog` (see [`catalogs`](self)),
    /// described with `W`, the schema of the wire form the store's
    /// [`CatalogDecoder`](mcp_profiles::CatalogDecoder) reads. The store
    /// must have been built with that decoder
    /// ([`ProfileStore::with_catalogs`](crate::ProfileStore::with_catalogs)).
    pub fn with_catalogs<W: JsonSchema + 'static>(self) -> Self {
        let shared = Shared::<S, F>::new(std::sync::Arc::clone(self.store()), None);
        let principal = json!({"principal": "$request.path.principal"});
        self.route(
            CATALOG,
            [
                openapi::get::<StoredCatalog<W>>("An agent's runtime catalog, as it was put")
                    .refuses(&[404, 503]),
                openapi::put::<CatalogChanged>(
                    "Installs an agent's runtime catalog (with `version`: a compare-and-set)",
                )
                .body::<CatalogPut<W>>()
                .propagates()
                .refuses(&[404, 409, 503])
                .link("ReadCatalog", (Method::GET, CATALOG), principal, None),
            ],
            get(get_catalog::<S, F, W>)
                .put(put_catalog::<S, F, W>)
                .layer(DefaultBodyLimit::max(MAX_CATALOG_BYTES))
                .with_state(shared),
        )
    }
}

async fn get_catalog<S: Vocabulary, F, W>(
    State(shared): State<Shared<S, F>>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let stored = shared.store.catalog(&principal).await.map_err(failed)?;
    let stored = stored.ok_or_else(|| no_agent(&principal))?;
    Ok(Json(StoredCatalog::<W> {
        principal,
        catalog: stored.wire,
        version: stored.version,
        wire: PhantomData,
    })
    .into_response())
}

async fn put_catalog<S: Vocabulary, F, W>(
    State(shared): State<Shared<S, F>>,
    Extension(by): Extension<Attribution>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let bytes = json_body(&headers, body, MAX_CATALOG_BYTES)?;
    let body: CatalogPut<W> = decode_json(&bytes)?;
    if shared
        .store
        .agent(&principal)
        .await
        .map_err(failed)?
        .is_none()
    {
        return Err(no_agent(&principal));
    }
    let change = shared
        .store
        .put_catalog_if(&principal, body.catalog, body.version, &by)
        .await
        .map_err(failed)?;
    tracing::info!(
        principal,
        version = change.version,
        changed = change.changed,
        "agent catalog put"
    );
    let replication = change.replication;
    let change = change.into_value();
    let answer = Json(CatalogChanged {
        principal: principal.clone(),
        tools: change.tools,
        changed: change.changed,
        version: change.version,
    })
    .into_response();
    let store = shared.store.as_ref();
    Ok(propagated(store, Changed::Agent(&principal), replication, answer).await)
}
