//! Protected Resource Metadata (RFC 9728): how a client finds the
//! authorization server of this resource.

use axum::Router;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::{HeaderValue, header};
use serde::{Deserialize, Serialize};

use super::OAuthConfig;
use super::config::{WELL_KNOWN, well_known_path};

/// A resource's metadata document (RFC 9728 §2), as served at
/// `/.well-known/oauth-protected-resource`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource's URI, the `aud` its tokens carry.
    pub resource: String,
    /// The issuers whose tokens the resource accepts.
    pub authorization_servers: Vec<String>,
    /// The scopes a client may request for this resource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How the token is sent: only in the `Authorization` header, as the MCP
    /// specification requires (never in the query string).
    pub bearer_methods_supported: Vec<String>,
    /// The signing algorithms of accepted tokens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_signing_alg_values_supported: Vec<String>,
    /// A human-readable name of the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
}

impl ProtectedResourceMetadata {
    /// The metadata the configuration implies: its resource, its issuer as
    /// the one authorization server, its scopes and algorithms, bearer
    /// tokens in the header only.
    pub fn from_config(config: &OAuthConfig) -> Self {
        ProtectedResourceMetadata {
            resource: config.resource().to_owned(),
            authorization_servers: vec![config.issuer().to_owned()],
            scopes_supported: config.scopes_supported().to_vec(),
            bearer_methods_supported: vec!["header".to_owned()],
            resource_signing_alg_values_supported: config
                .algorithms()
                .map(|alg| alg.as_str().to_owned())
                .collect(),
            resource_name: None,
        }
    }
}

/// A router answering `GET /.well-known/oauth-protected-resource` and, for a
/// resource with a path (`https://host/mcp`), the path-suffixed form
/// (`/.well-known/oauth-protected-resource/mcp`) with the configuration's
/// metadata. Merge it into the server's router; it needs no token.
pub fn metadata_router(config: &OAuthConfig) -> Router {
    // Serialized once: the document does not change while served.
    let body = serde_json::to_vec(&ProtectedResourceMetadata::from_config(config))
        .expect("the metadata is plain strings");
    let serve = move || {
        let body = body.clone();
        async move { document_response(body) }
    };
    let suffixed = well_known_path(config.resource_path());
    let mut router = Router::new().route(WELL_KNOWN, get(serve.clone()));
    if suffixed != WELL_KNOWN {
        router = router.route(&suffixed, get(serve));
    }
    router
}

fn document_response(body: Vec<u8>) -> Response {
    let headers = [
        (
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        ),
        // The document is public and browser clients fetch it cross-origin
        // during discovery.
        (
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        ),
    ];
    (headers, body).into_response()
}
