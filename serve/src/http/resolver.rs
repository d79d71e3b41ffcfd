//! How a multi-agent router's server finds each request's profile: the
//! router's middleware resolves the bearer token once and leaves the
//! principal's profile in the request ([`Served`]); the resolver reads it
//! back through the HTTP request parts rmcp hands the server.

use std::sync::Arc;

use mcp_profiles::rmcp::ErrorData;
use mcp_profiles::rmcp::model::Extensions;
use mcp_profiles::{ProfileHandle, ProfileResolver, Vocabulary};

use crate::ProfileStore;
use crate::identity::Grant;

/// A request admitted by a router's gate: the identity it is bound to,
/// the profile it is served, and the request itself.
pub(super) type Admitted<S> = (Arc<Grant>, ProfileHandle<S>, axum::extract::Request);

/// The profile a request was admitted with, and whose it is, in its HTTP
/// extensions.
pub(super) struct Served<S: Vocabulary> {
    pub(super) handle: ProfileHandle<S>,
    /// Whose agent it is: what the store must still be able to serve, and
    /// what the spans of its MCP requests name.
    pub(super) principal: crate::Principal,
}

impl<S: Vocabulary> Clone for Served<S> {
    fn clone(&self) -> Self {
        Served {
            handle: self.handle.clone(),
            principal: self.principal.clone(),
        }
    }
}

/// Serves each request the profile it was admitted with, while the store
/// may serve at all.
pub(super) struct StoreResolver<S: Vocabulary> {
    store: Arc<ProfileStore<S>>,
}

impl<S: Vocabulary> StoreResolver<S> {
    pub(super) fn new(store: &Arc<ProfileStore<S>>) -> Self {
        StoreResolver {
            store: Arc::clone(store),
        }
    }
}

impl<S: Vocabulary> ProfileResolver<S> for StoreResolver<S> {
    fn resolve(&self, extensions: &Extensions) -> Result<ProfileHandle<S>, ErrorData> {
        let parts = extensions.get::<http::request::Parts>();
        let served = parts
            .and_then(|parts| parts.extensions.get::<Served<S>>())
            .ok_or_else(|| {
                ErrorData::invalid_request(
                    "the request's bearer token names no known principal",
                    None,
                )
            })?;
        // Refused once the part of a shared store behind this one that the
        // principal depends on has been out of reach past its grace period:
        // the profile held here may have been narrowed since, or its token
        // revoked (a store hears a principal's revocations with its agent).
        self.store
            .serving(Some(&served.principal))
            .map_err(|refusal| ErrorData::internal_error(refusal.to_string(), None))?;
        #[cfg(feature = "metrics")]
        crate::telemetry::record_principal(&served.principal);
        Ok(served.handle.clone())
    }
}
