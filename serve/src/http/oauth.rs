//! Many agents behind one endpoint, each request's OAuth access token
//! deciding its profile (feature `oauth`).

use std::sync::Arc;

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{Method, StatusCode};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

use mcp_profiles::Vocabulary;

use super::agents_router;
use crate::ProfileStore;
use crate::identity::bearer_token;
use crate::oauth::{Admission, OAuth, metadata_router};

/// The largest request body read to see which tool a call names: one
/// larger is refused (413) when its token could step up, and never read
/// whole otherwise.
const MAX_INSPECTED_BODY: usize = 4 * 1024 * 1024;

/// An axum router serving many agents at [`MCP_PATH`](super::MCP_PATH), as
/// an OAuth 2.1 resource server: every request's access token is validated
/// and mapped to its profile by `oauth` (see [`OAuth`]), and the Protected
/// Resource Metadata is served at `/.well-known/oauth-protected-resource`
/// (and its path-suffixed form).
///
/// - No token, or a token refused: 401 with `WWW-Authenticate: Bearer
///   resource_metadata="..."` (and `error="invalid_token"` for a refused
///   one); the issuer's keys out of reach: 503. Nothing reaches MCP.
/// - A valid token mapping to no profile: 403 saying why.
/// - A `tools/call` of a tool that one of the mapping's step-up scopes
///   would reveal: 403 `WWW-Authenticate: Bearer
///   error="insufficient_scope", scope="..."`. Any other hidden tool is
///   refused by MCP as unknown (-32602), revealing nothing.
/// - A 2025-era session belongs to the principal that opened it: a request
///   naming it with another principal's token gets 404. A token past its
///   `exp` is refused on its next request; nothing already answered ends.
///
/// ```no_run
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability { Refund }
/// #     #[providers] pub enum Provider {}
/// # }
/// use std::sync::Arc;
/// use mcp_profiles::ProfileContext;
/// use mcp_profiles_serve::ProfileStore;
/// use mcp_profiles_serve::oauth::OAuth;
///
/// let oauth = OAuth::<Demo>::from_json(r#"{
///     "token": {"issuer": "https://auth.example.com", "resource": "https://mcp.example.com/mcp"},
///     "claims": {"scopes": {"tickets:refund": ["refund"]}, "step_up": ["tickets:refund"]}
/// }"#)?;
/// let store = Arc::new(ProfileStore::<Demo>::default());
/// // The subject `alice` of the issuer's tokens.
/// store.add_agent("alice", ProfileContext::new(Surface::Ticket).with_capability(Capability::Refund)?);
/// let app = mcp_profiles_serve::http::oauth_router(&store, Demo, Arc::new(oauth), Default::default());
/// # drop(app);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn oauth_router<S>(
    store: &Arc<ProfileStore<S>>,
    handler: S,
    oauth: Arc<OAuth<S>>,
    config: StreamableHttpServerConfig,
) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    let metadata = metadata_router(&oauth.metadata_config());
    let gate = Arc::clone(store);
    let mcp = agents_router(store, handler, config, move |request: Request| {
        let (gate, oauth) = (Arc::clone(&gate), Arc::clone(&oauth));
        async move {
            let admission = oauth.admit(&gate, bearer_token(request.headers())).await?;
            let request = step_up(&oauth, &gate, &admission, request).await?;
            Ok((admission.grant, admission.handle, request))
        }
    });
    mcp.merge(metadata)
}

/// Answers a `tools/call` of a tool a step-up scope would reveal with the
/// scope challenge; passes every other request on, its body as read.
async fn step_up<S: Vocabulary>(
    oauth: &OAuth<S>,
    store: &ProfileStore<S>,
    admission: &Admission<S>,
    request: Request,
) -> Result<Request, Response> {
    // Only a token lacking a step-up scope can be asked for one: every
    // other request passes unread.
    if request.method() != Method::POST
        || oauth
            .mapping()
            .step_up_scopes()
            .all(|scope| admission.token.has_scope(scope))
    {
        return Ok(request);
    }
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_INSPECTED_BODY)
        .await
        .map_err(|_| {
            crate::telemetry::oauth_refused("body_too_large");
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                "request body larger than 4 MiB",
            )
                .into_response()
        })?;
    if let Some(tool) = called_tool(&bytes)
        && let Some(scope) = oauth.step_up_scope(store, &admission.handle, &admission.token, &tool)
    {
        crate::telemetry::oauth_refused("insufficient_scope");
        tracing::info!(tool, scope, "tool call needs a step-up scope");
        return Err(oauth.insufficient_scope(&admission.token, &scope));
    }
    Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
}

/// The tool a JSON-RPC `tools/call` request names.
fn called_tool(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Call {
        method: String,
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        name: String,
    }
    let call: Call = serde_json::from_slice(body).ok()?;
    (call.method == "tools/call").then_some(call.params?.name)
}
