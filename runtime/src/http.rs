//! Streamable HTTP: an axum router serving a [`ProfiledServer`] at `/mcp`.
//!
//! Every HTTP session gets its own clone of the server, so all of them share
//! one profile and each is notified on its own.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::response::{IntoResponse, Response};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::runtime::Handle;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::principals::{Grant, bearer_token};
use crate::{ProfileStore, ProfiledServer, Vocabulary};

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// The header carrying a 2025-era streamable-HTTP session's id.
const SESSION_ID: &str = "mcp-session-id";

/// An axum router serving `server` at [`MCP_PATH`] with rmcp's streamable
/// HTTP transport (sessions kept in memory, loopback `Host`s only unless
/// `config` says otherwise).
pub fn router<S>(server: ProfiledServer<S>, config: StreamableHttpServerConfig) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    mcp_router(server, Arc::default(), config)
}

fn mcp_router<S>(
    server: ProfiledServer<S>,
    sessions: Arc<LocalSessionManager>,
    config: StreamableHttpServerConfig,
) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    let service = StreamableHttpService::new(move || Ok(server.clone()), sessions, config);
    axum::Router::new().nest_service(MCP_PATH, service)
}

/// An axum router serving many agents at [`MCP_PATH`]: every request must
/// carry `Authorization: Bearer <token>` for a principal of `store` (else 401
/// before MCP sees it) and is served with that principal's profile, looked up
/// per request. Works for 2025-era sessions and 2026-07-28 stateless
/// requests alike.
///
/// A 2025-era session belongs to the token that initialised it: a request
/// naming its session id with any other token gets 404, as an unknown
/// session would. [`ProfileStore::revoke`] ends the token's sessions and
/// response streams on every router serving the store.
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
/// use mcp_profiles::{ProfileContext, ProfileStore};
///
/// let store = ProfileStore::<Demo>::new();
/// store.add_agent("alice", ProfileContext::new(Surface::Ticket));
/// store.grant("token-for-alice", "alice").unwrap();
/// let app = mcp_profiles::http::multi_agent_router(&store, Demo, Default::default());
/// // Nest `app` in a larger axum app, or serve it: see `serve_multi_agent`.
/// # drop(app);
/// ```
pub fn multi_agent_router<S>(
    store: &Arc<ProfileStore<S>>,
    handler: S,
    config: StreamableHttpServerConfig,
) -> axum::Router
where
    S: Vocabulary + ServerHandler,
{
    let sessions = Arc::new(LocalSessionManager::default());
    let tracker = Arc::new(Tracker {
        sessions: Arc::clone(&sessions),
        owners: Mutex::default(),
        runtime: OnceLock::new(),
    });
    store.attach(&tracker);
    let gate = Arc::clone(store);
    mcp_router(store.server(handler), sessions, config).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let grant = bearer_token(request.headers()).and_then(|token| gate.grant_for(token));
            let tracker = Arc::clone(&tracker);
            async move {
                match grant {
                    Some(grant) => tracker.serve(grant, request, next).await,
                    None => unauthorised(),
                }
            }
        },
    ))
}

fn unauthorised() -> Response {
    (
        http::StatusCode::UNAUTHORIZED,
        [(http::header::WWW_AUTHENTICATE, "Bearer")],
        "missing or unknown bearer token",
    )
        .into_response()
}

/// The 2025-era sessions of one multi-agent router and the grant each was
/// opened with, so that revoking a token can close them.
pub(crate) struct Tracker {
    sessions: Arc<LocalSessionManager>,
    owners: Mutex<Owners>,
    /// Where closes run: the runtime the router serves on.
    runtime: OnceLock<Handle>,
}

#[derive(Default)]
struct Owners {
    by_session: HashMap<SessionId, Arc<Grant>>,
    /// Sessions rmcp has ended on its own (client DELETE, idle timeout) are
    /// dropped from the book once it grows to this size.
    prune_at: usize,
}

/// The book is pruned at no fewer entries than this.
const PRUNE_FLOOR: usize = 64;

impl Tracker {
    /// Serves one request of `grant`'s bearer: a session id must be one that
    /// bearer opened; a new session is booked under it; the response body
    /// ends when the grant does.
    async fn serve(
        self: Arc<Self>,
        grant: Arc<Grant>,
        request: axum::extract::Request,
        next: axum::middleware::Next,
    ) -> Response {
        let _ = self.runtime.get_or_init(Handle::current);
        let asked = session_id(request.headers());
        if let Some(id) = &asked
            && !self.owned_by(id, &grant)
        {
            return session_not_found(id);
        }
        let deleting = request.method() == http::Method::DELETE;
        let response = next.run(request).await;
        match asked {
            // An `initialize` that opened a session.
            None => {
                if let Some(opened) = session_id(response.headers())
                    && !self.bind(opened, &grant).await
                {
                    return unauthorised();
                }
            }
            Some(id) if deleting && response.status().is_success() => self.unbind(&id),
            Some(_) => {}
        }
        let (parts, body) = response.into_parts();
        let body = EndsWith {
            body,
            ended: Box::pin(grant.ended().clone().cancelled_owned()),
        };
        Response::from_parts(parts, Body::new(body))
    }

    fn owned_by(&self, id: &SessionId, grant: &Arc<Grant>) -> bool {
        self.lock()
            .by_session
            .get(id)
            .is_some_and(|owner| Arc::ptr_eq(owner, grant))
    }

    /// Books a new session under `grant`; `false` (and the session closed)
    /// if the grant was revoked meanwhile.
    async fn bind(&self, id: SessionId, grant: &Arc<Grant>) -> bool {
        let prune = {
            let mut owners = self.lock();
            owners.by_session.insert(id.clone(), Arc::clone(grant));
            owners.by_session.len() >= owners.prune_at.max(PRUNE_FLOOR)
        };
        // Checked after booking: a revocation that searched the book before
        // this session was in it has cancelled the grant by now.
        if grant.ended().is_cancelled() {
            self.unbind(&id);
            close(&self.sessions, &id).await;
            return false;
        }
        if prune {
            self.prune().await;
        }
        true
    }

    fn unbind(&self, id: &SessionId) {
        self.lock().by_session.remove(id);
    }

    /// Forgets sessions rmcp no longer has.
    async fn prune(&self) {
        let live = self.sessions.sessions.read().await;
        let mut owners = self.lock();
        owners.by_session.retain(|id, _| live.contains_key(id));
        owners.prune_at = owners.by_session.len() * 2;
    }

    /// Closes every session opened with `grant` (already cancelled, so its
    /// ids are refused from now on, whether or not rmcp closed them yet).
    pub(crate) fn close_sessions_of(&self, grant: &Arc<Grant>) {
        let ids: Vec<SessionId> = {
            let mut owners = self.lock();
            let ids = owners
                .by_session
                .iter()
                .filter(|(_, owner)| Arc::ptr_eq(owner, grant))
                .map(|(id, _)| id.clone())
                .collect::<Vec<_>>();
            for id in &ids {
                owners.by_session.remove(id);
            }
            ids
        };
        // A booked session came through a request, which set the runtime.
        let (false, Some(runtime)) = (ids.is_empty(), self.runtime.get()) else {
            return;
        };
        let sessions = Arc::clone(&self.sessions);
        runtime.spawn(async move {
            for id in ids {
                close(&sessions, &id).await;
            }
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Owners> {
        self.owners.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Closes one rmcp session: its worker stops, its streams end, and its id
/// is unknown from then on.
async fn close(sessions: &LocalSessionManager, id: &SessionId) {
    match sessions.close_session(id).await {
        Ok(()) => tracing::debug!(session = %id, "session of a revoked token closed"),
        Err(error) => tracing::warn!(session = %id, %error, "closing a revoked session failed"),
    }
}

fn session_id(headers: &http::HeaderMap) -> Option<SessionId> {
    let id = headers.get(SESSION_ID)?.to_str().ok()?;
    Some(SessionId::from(id.to_owned()))
}

fn session_not_found(id: &SessionId) -> Response {
    (
        http::StatusCode::NOT_FOUND,
        format!("Not Found: no session `{id}` was opened with this bearer token"),
    )
        .into_response()
}

/// A response body that ends early once its grant is revoked; rmcp then
/// sees the stream dropped, as if the client had gone.
struct EndsWith {
    body: Body,
    ended: Pin<Box<WaitForCancellationFutureOwned>>,
}

impl HttpBody for EndsWith {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if this.ended.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut this.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A running HTTP server; dropping it does not stop it, [`shutdown`](Self::shutdown) does.
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl HttpServer {
    /// The address it listens on (the port chosen when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

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
