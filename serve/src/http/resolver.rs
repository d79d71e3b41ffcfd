//! How a multi-agent router's server finds each request's profile: the
//! router's middleware resolves the bearer token once and leaves the
//! principal's profile in the request ([`Admitted`]); the resolver reads it
//! back through the HTTP request parts rmcp hands the server.

use std::sync::Arc;

use mcp_profiles::rmcp::ErrorData;
use mcp_profiles::rmcp::model::Extensions;
use mcp_profiles::{ProfileHandle, ProfileResolver, Vocabulary};

use crate::ProfileStore;

/// The profile a request was admitted with, in its HTTP extensions.
pub(super) struct Admitted<S: Vocabulary>(pub(super) ProfileHandle<S>);

impl<S: Vocabulary> Clone for Admitted<S> {
    fn clone(&self) -> Self {
        Admitted(self.0.clone())
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
        // Refused once a shared store behind this one has been out of reach
        // past its grace period: the profile held here may have been
        // narrowed since.
        self.store
            .serving()
            .map_err(|refusal| ErrorData::internal_error(refusal.to_string(), None))?;
        extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Admitted<S>>())
            .map(|admitted| admitted.0.clone())
            .ok_or_else(|| {
                ErrorData::invalid_request(
                    "the request's bearer token names no known principal",
                    None,
                )
            })
    }
}
