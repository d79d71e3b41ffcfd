//! Streamable HTTP: an axum router serving a [`ProfiledServer`] at `/mcp`.
//!
//! Every HTTP session gets its own clone of the server, so all of them share
//! one profile and each is notified on its own.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::principals::bearer_token;
use crate::{ProfileStore, ProfiledServer, Vocabulary};

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// An axum router serving `server` at [`MCP_PATH`] with rmcp's streamable
/// HTTP transport (sessions kept in memory, loopback `Host`s only unless
/// `config` says otherwise).
pub fn router<S>(server: ProfiledServer<S>, config: StreamableHttpServerConfig) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    axum::Router::new().nest_service(MCP_PATH, service)
}

/// An axum router serving many agents at [`MCP_PATH`]: every request must
/// carry `Authorization: Bearer <token>` for a principal of `store` (else 401
/// before MCP sees it) and is served with that principal's profile, looked up
/// per request. Works for 2025-era sessions and 2026-07-28 stateless
/// requests alike.
pub fn multi_agent_router<S>(
    store: &Arc<ProfileStore<S>>,
    handler: S,
    config: StreamableHttpServerConfig,
) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    let gate = Arc::clone(store);
    router(store.server(handler), config).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let known = bearer_token(request.headers()).and_then(|token| gate.principal(token));
            async move {
                match known {
                    Some(_) => next.run(request).await,
                    None => unauthorised(),
                }
            }
        },
    ))
}

fn unauthorised() -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        http::StatusCode::UNAUTHORIZED,
        [(http::header::WWW_AUTHENTICATE, "Bearer")],
        "missing or unknown bearer token",
    )
        .into_response()
}

/// A running HTTP server; dropping it does not stop it, [`shutdown`](Self::shutdown) does.
pub struct HttpServer {
    /// The address it listens on (useful with port 0).
    pub local_addr: SocketAddr,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl HttpServer {
    /// Stops accepting, ends every session, and waits for the server task.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.cancel.cancel();
        self.task.await.map_err(std::io::Error::other)?
    }
}

/// Binds `addr` (use `127.0.0.1:0` for any free port) and serves `server`
/// at `/mcp` in a background task.
pub async fn serve<S>(server: ProfiledServer<S>, addr: SocketAddr) -> std::io::Result<HttpServer>
where
    S: Vocabulary + ServerHandler,
{
    let cancel = CancellationToken::new();
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token());
    spawn(router(server, config), addr, cancel).await
}

/// Like [`serve`], for many agents: see [`multi_agent_router`].
pub async fn serve_multi_agent<S>(
    store: &Arc<ProfileStore<S>>,
    handler: S,
    addr: SocketAddr,
) -> std::io::Result<HttpServer>
where
    S: Vocabulary + ServerHandler,
{
    let cancel = CancellationToken::new();
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token());
    spawn(multi_agent_router(store, handler, config), addr, cancel).await
}

async fn spawn(
    app: axum::Router,
    addr: SocketAddr,
    cancel: CancellationToken,
) -> std::io::Result<HttpServer> {
    let listener = TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let shutdown = cancel.clone();
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await
    });
    Ok(HttpServer {
        local_addr,
        cancel,
        task,
    })
}
