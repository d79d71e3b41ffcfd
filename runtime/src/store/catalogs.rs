//! Runtime catalogs through the store: each principal's catalog is kept
//! beside its context, in the JSON wire form the backend chose, and every
//! instance serving the principal turns it into a verified [`Catalog`] with
//! the store's [`CatalogDecoder`] and installs it.
//!
//! A catalog change is a change of the agent: it bumps the same version as
//! a profile replacement, takes the same compare-and-set and travels on the
//! same feed, so an instance applies profiles and catalogs in one order and
//! never serves a catalog with a profile it was not stored with.

use std::sync::Arc;

use serde_json::Value;

use super::StoreError;
#[cfg(feature = "redis")]
use crate::ProfileContext;
use crate::{Catalog, ProfileController, Vocabulary};

/// Why a catalog's wire form could not be decoded: the decoder's own error.
pub type CatalogDecodeError = Box<dyn std::error::Error + Send + Sync>;

/// Turns a principal's stored catalog (its JSON wire form) into a verified
/// [`Catalog`] whose handlers serve that principal's calls.
///
/// The store decodes a catalog when it is put (a catalog it cannot decode
/// is refused and nothing is stored) and again on every instance that
/// serves the principal. It should be deterministic: the same wire form
/// must give the same tools on every instance.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use std::sync::Arc;
/// use mcp_profiles::{Catalog, CatalogDecoder, ProfileStore, Rule, RuntimeTool};
/// use mcp_profiles::rmcp::model::CallToolResult;
///
/// // The wire form here: `{"revision": N, "tools": ["name", ...]}`.
/// let decoder: CatalogDecoder<Demo> = Arc::new(|_principal, wire| {
///     let revision = wire["revision"].as_u64().ok_or("`revision` must be a number")?;
///     let names = wire["tools"].as_array().ok_or("`tools` must be a list")?;
///     let tools = names.iter().map(|name| {
///         let name = name.as_str().unwrap_or_default().to_owned();
///         let schema = serde_json::json!({"type": "object"}).as_object().unwrap().clone();
///         RuntimeTool::new(name, "a tool", schema, Rule::always(), |_, _| async {
///             Ok(CallToolResult::success(vec![]))
///         })
///     });
///     Ok(Catalog::new("wire", revision, tools)?)
/// });
/// let store = ProfileStore::<Demo>::with_catalogs(decoder);
/// # drop(store);
/// ```
pub type CatalogDecoder<S> =
    Arc<dyn Fn(&str, &Value) -> Result<Catalog<S>, CatalogDecodeError> + Send + Sync>;

/// A principal's catalog as the store holds it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct StoredCatalog {
    /// The principal.
    pub principal: String,
    /// The catalog's wire form, as it was put; `None` before the first.
    pub wire: Option<Value>,
    /// The agent's version: it counts profile replacements and catalog
    /// changes alike.
    pub version: u64,
}

/// The outcome of [`AgentStore::put_catalog_if`](super::AgentStore::put_catalog_if).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatalogChange {
    /// The principal.
    pub principal: String,
    /// The agent's version now.
    pub version: u64,
    /// What the agent's sessions list now, sorted: the profile's compiled
    /// tools and the catalog's tools it enables.
    pub tools: Vec<String>,
    /// Whether that list changed.
    pub changed: bool,
}

/// `wire` decoded by `decoder`, or why not (for the caller).
pub(crate) fn decode_catalog<S: Vocabulary>(
    decoder: Option<&CatalogDecoder<S>>,
    principal: &str,
    wire: &Value,
) -> Result<Catalog<S>, StoreError> {
    let decoder = decoder.ok_or_else(|| {
        StoreError::InvalidCatalog(
            "this store takes no catalogs: build it with a catalog decoder".to_owned(),
        )
    })?;
    decoder(principal, wire).map_err(|error| StoreError::InvalidCatalog(error.to_string()))
}

/// What a session of `context` lists with `after` installed instead of
/// `before`: its tool names and whether they changed. Computed on a
/// controller of its own, so no session is told.
#[cfg(feature = "redis")]
pub(crate) fn listed_change<S: Vocabulary>(
    context: ProfileContext<S>,
    before: Option<&Catalog<S>>,
    after: Option<&Catalog<S>>,
) -> (Vec<String>, bool) {
    let controller = ProfileController::new(context);
    controller.set_catalog(before);
    let installation = controller.set_catalog(after);
    (tool_names(&controller), installation.changed())
}

/// What `controller`'s sessions list, by name.
pub(crate) fn tool_names<S: Vocabulary>(controller: &ProfileController<S>) -> Vec<String> {
    controller
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect()
}
