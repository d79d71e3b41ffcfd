//! Runtime catalogs through the store: each principal's catalog is kept
//! beside its context, in the JSON wire form the backend chose, and every
//! instance serving the principal turns it into a verified [`Catalog`] with
//! the store's [`CatalogDecoder`](mcp_profiles::CatalogDecoder) and installs it.
//!
//! A catalog change is a change of the agent: it bumps the same version as
//! a profile replacement, takes the same compare-and-set and travels on the
//! same feed, so an instance applies profiles and catalogs in one order and
//! never serves a catalog with a profile it was not stored with.

use serde_json::Value;

use super::StoreError;
use crate::ProfileStore;
use mcp_profiles::{Catalog, CatalogDecoder, PresentationError, ProfileController, Vocabulary};
#[cfg(feature = "redis")]
use mcp_profiles::{DenyList, KillSwitch, Presentation, ProfileContext};

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
    /// tools and the catalog's tools it enables, by their presented names
    /// under the store's name presentation.
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

/// `catalog`, if `store`'s name presentation and tool search admit it;
/// else why not, naming both colliding tools. For a store that keeps a catalog before
/// the controllers serving it install it.
pub(crate) fn presentable<S: Vocabulary>(
    store: &ProfileStore<S>,
    catalog: &Catalog<S>,
) -> Result<(), StoreError> {
    if let Some(presentation) = store.presentation() {
        presentation
            .verify_catalog(catalog)
            .map_err(|refused| not_presentable(&refused))?;
    }
    if let Some(search) = store.tool_search() {
        search
            .verify_catalog(catalog, store.presentation())
            .map_err(|refused| not_presentable(&refused))?;
    }
    Ok(())
}

/// The refusal of a catalog whose tools collide under the store's name
/// presentation, as its caller gets it.
pub(crate) fn not_presentable(refused: &PresentationError) -> StoreError {
    StoreError::InvalidCatalog(format!("under the agent's name presentation, {refused}"))
}

/// What a session of `context` lists with `after` installed instead of
/// `before`, under the operator's `killed` list and the store's listing
/// (its presentation and tool search): its tool names and whether they
/// changed. Computed on a controller of its own, so no session is told.
#[cfg(feature = "redis")]
pub(crate) fn listed_change<S: Vocabulary>(
    context: ProfileContext<S>,
    killed: DenyList<S>,
    (presentation, search): (Option<&Presentation>, Option<&mcp_profiles::ToolSearch<S>>),
    before: Option<&Catalog<S>>,
    after: Option<&Catalog<S>>,
) -> (Vec<String>, bool) {
    let switch = KillSwitch::new();
    switch.set(killed);
    let controller = ProfileController::with_kill_switch(context, &switch);
    // Both proven over the registry when the store took them; `after` was
    // checked against them before it was stored.
    if let Some(presentation) = presentation {
        let _ = controller.set_presentation(presentation.clone());
    }
    if let Some(search) = search {
        let _ = controller.set_tool_search(search.clone());
    }
    controller.set_catalog(before);
    let installation = controller.set_catalog(after);
    (tool_names(&controller), installation.changed())
}

/// What `controller`'s sessions list, by name (presented, under a name
/// presentation).
pub(crate) fn tool_names<S: Vocabulary>(controller: &ProfileController<S>) -> Vec<String> {
    controller
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect()
}
