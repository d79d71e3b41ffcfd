//! The session book of a multi-agent router: which bearer opened which
//! 2025-era session, so that a session answers only its own token and a
//! revoked token's sessions and streams end.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};
use tokio::runtime::Handle;
use tokio_util::sync::WaitForCancellationFutureOwned;

use mcp_profiles::Clipped;

use crate::identity::{Grant, SessionBook};

/// The header carrying a 2025-era streamable-HTTP session's id.
const SESSION_ID: &str = "mcp-session-id";

/// The refusal of a request without a known bearer token.
pub(super) fn unauthorised() -> Response {
    (
        http::StatusCode::UNAUTHORIZED,
        [(http::header::WWW_AUTHENTICATE, "Bearer")],
        "missing or unknown bearer token",
    )
        .into_response()
}

/// The refusal of a request whose token could not be checked: the shared
/// profile store is out of reach.
pub(super) fn unavailable(why: &str) -> Response {
    (http::StatusCode::SERVICE_UNAVAILABLE, why.to_owned()).into_response()
}

/// The 2025-era sessions of one multi-agent router and the grant each was
/// opened with, so that revoking a token can close them.
pub(super) struct Tracker {
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
    /// An empty book over `sessions`, the session manager of the router.
    pub(super) fn new(sessions: Arc<LocalSessionManager>) -> Self {
        Tracker {
            sessions,
            owners: Mutex::default(),
            runtime: OnceLock::new(),
        }
    }

    /// Serves one request of `grant`'s bearer: a session id must be one that
    /// bearer opened; a new session is booked under it; the response body
    /// ends when the grant does.
    pub(super) async fn serve(
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Owners> {
        self.owners.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl SessionBook for Tracker {
    /// Closes every session opened with `grant` (already cancelled, so its
    /// ids are refused from now on, whether or not rmcp closed them yet).
    fn close_sessions_of(&self, grant: &Arc<Grant>) {
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
        format!(
            "Not Found: no session `{}` was opened with this bearer token",
            Clipped(id)
        ),
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
