//! The accept loop behind every `serve*` function: hyper connections with a
//! per-listener cap, a header-read timer, an idle timer and a bounded drain.
//!
//! The header-read timer is ours (`head.rs`), not hyper's: hyper starts its
//! timer whenever a connection waits for a request head, so on a keep-alive
//! connection it runs from the end of the previous response and closes any
//! connection idle past it, racing a client that reuses the connection just
//! then (a lost request: the `gateway_load` bench lost 2 calls in 90,000 to
//! it). Ours runs from the accept until the first head, and from the first
//! byte of each later one; an idle connection is the idle timer's.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::Limits;
use super::head::{HeadState, HeadWatch};

/// What a connection past the cap is told before it is closed.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
Connection: close\r\nContent-Length: 0\r\nRetry-After: 1\r\n\r\n";

/// How long the loop pauses after an accept error such as `EMFILE`, which
/// would otherwise repeat at once and spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// A running HTTP server; dropping it does not stop it, [`shutdown`](Self::shutdown) does.
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServer {
    /// The address it listens on (the port chosen when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting, ends every MCP session it serves, lets requests in
    /// flight finish for up to the [drain timeout](Limits::with_drain_timeout),
    /// then closes whatever is left. Returns within about the drain timeout.
    pub async fn shutdown(self) -> io::Result<()> {
        self.stop.cancel();
        self.task.await.map_err(io::Error::other)
    }
}

/// Binds `addr` and serves `app` on it under `limits` until `stop` is
/// cancelled (by [`HttpServer::shutdown`]).
pub(super) async fn spawn(
    app: axum::Router,
    addr: SocketAddr,
    limits: Limits,
    stop: CancellationToken,
) -> io::Result<HttpServer> {
    let listener = TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let task = tokio::spawn(accept_loop(listener, app, limits, stop.clone()));
    Ok(HttpServer {
        local_addr,
        stop,
        task,
    })
}

async fn accept_loop(
    listener: TcpListener,
    app: axum::Router,
    limits: Limits,
    stop: CancellationToken,
) {
    let permits = Arc::new(Semaphore::new(
        limits.max_connections().min(Semaphore::MAX_PERMITS),
    ));
    let mut builder = Builder::new(TokioExecutor::new());
    // Request heads are timed by `Connection::serve` (see the module docs).
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(None);
    let builder = Arc::new(builder);
    let mut connections = JoinSet::new();
    // Warn once per stretch of refusals, not once per refused connection.
    let mut saturated = false;
    loop {
        let accepted = tokio::select! {
            biased;
            () = stop.cancelled() => break,
            // Reaps finished connections so the set stays as small as the cap.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => match Arc::clone(&permits).try_acquire_owned() {
                Ok(permit) => {
                    saturated = false;
                    let connection = Connection {
                        builder: Arc::clone(&builder),
                        app: app.clone(),
                        idle_timeout: limits.idle_timeout(),
                        header_read_timeout: limits.header_read_timeout(),
                        stop: stop.clone(),
                        _permit: permit,
                    };
                    connections.spawn(connection.serve(stream));
                }
                Err(_) => {
                    if !saturated {
                        tracing::warn!(
                            max_connections = limits.max_connections(),
                            "HTTP listener at its connection cap; refusing new connections with 503"
                        );
                        saturated = true;
                    }
                    tracing::debug!(%peer, "connection refused: at the cap");
                    // Best effort and never waiting: the socket is new, so its
                    // send buffer has room; then dropping it closes it.
                    let _ = stream.try_write(REFUSAL);
                }
            },
            // The peer gave up before we accepted; nothing to do.
            Err(error) if is_per_connection(&error) => {}
            Err(error) => {
                tracing::warn!(%error, "accepting an HTTP connection failed; retrying shortly");
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(ACCEPT_BACKOFF) => {}
                }
            }
        }
    }
    drop(listener);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(limits.drain_timeout(), drained)
        .await
        .is_err()
    {
        tracing::debug!(
            left = connections.len(),
            "drain timeout passed; closing the connections left"
        );
    }
    connections.shutdown().await;
}

fn is_per_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// One accepted connection and what it needs to run.
struct Connection {
    builder: Arc<Builder<TokioExecutor>>,
    app: axum::Router,
    idle_timeout: Duration,
    header_read_timeout: Duration,
    stop: CancellationToken,
    /// Its place under the cap, given back when the connection ends.
    _permit: OwnedSemaphorePermit,
}

impl Connection {
    /// Serves the connection until it ends: on the client's side, after the
    /// idle timeout, when a request head takes longer than the header-read
    /// timeout (closed at once), or by a graceful shutdown when the server
    /// stops.
    async fn serve(self, stream: TcpStream) {
        // Small writes (SSE events) go out at once.
        let _ = stream.set_nodelay(true);
        let (in_flight, requests) = watch::channel(0);
        let head = Arc::new(HeadState::default());
        let service = Counted {
            inner: TowerToHyperService::new(self.app),
            in_flight: Arc::new(in_flight),
            head: Arc::clone(&head),
        };
        let stream = HeadWatch::new(stream, Arc::clone(&head));
        let mut connection = pin!(
            self.builder
                .serve_connection_with_upgrades(TokioIo::new(stream), service)
        );
        let mut idle = pin!(idle_for(requests, self.idle_timeout));
        // Armed from the accept: the first head must come in time too.
        let mut reading_head = pin!(tokio::time::sleep(self.header_read_timeout));
        let mut head_timed = true;
        let mut closing = false;
        loop {
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%error, "HTTP connection ended with an error");
                    }
                    return;
                }
                () = head.started(), if !head_timed => {
                    reading_head
                        .as_mut()
                        .reset(tokio::time::Instant::now() + self.header_read_timeout);
                    head_timed = true;
                    continue;
                }
                () = &mut reading_head, if head_timed => {
                    head_timed = false;
                    // The head arriving now may have started after the one
                    // this timer was set for: it gets its whole timeout.
                    match head.deadline(self.header_read_timeout) {
                        Some(deadline) if deadline <= std::time::Instant::now() => {
                            tracing::debug!("request head not read within the header-read timeout; closing");
                            return;
                        }
                        Some(deadline) => {
                            reading_head.as_mut().reset(deadline.into());
                            head_timed = true;
                        }
                        None => {}
                    }
                    continue;
                }
                () = self.stop.cancelled(), if !closing => {}
                () = &mut idle, if !closing => {}
            }
            // Requests in flight finish; an idle connection closes at once.
            closing = true;
            connection.as_mut().graceful_shutdown();
        }
    }
}

/// Completes once no request has been in flight for `timeout`.
async fn idle_for(mut requests: watch::Receiver<usize>, timeout: Duration) {
    loop {
        if requests.wait_for(|n| *n == 0).await.is_err() {
            // The service is gone, so the connection is ending anyway.
            return std::future::pending().await;
        }
        // Any change (a request starting, or one ending) restarts the wait.
        if tokio::time::timeout(timeout, requests.changed())
            .await
            .is_err()
        {
            return;
        }
    }
}

/// The connection's service: counts each request as in flight until its
/// response body ends or is dropped.
struct Counted<S> {
    inner: S,
    in_flight: Arc<watch::Sender<usize>>,
    /// Told when a head was read whole.
    head: Arc<HeadState>,
}

type Responding = Pin<Box<dyn Future<Output = Result<http::Response<Tracked>, Infallible>> + Send>>;

impl<S> hyper::service::Service<http::Request<Incoming>> for Counted<S>
where
    S: hyper::service::Service<
            http::Request<Incoming>,
            Response = http::Response<Body>,
            Error = Infallible,
        >,
    S::Future: Send + 'static,
{
    type Response = http::Response<Tracked>;
    type Error = Infallible;
    type Future = Responding;

    fn call(&self, request: http::Request<Incoming>) -> Self::Future {
        let in_flight = InFlight::start(&self.in_flight, &self.head);
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await?;
            Ok(response.map(|body| Tracked {
                body,
                _in_flight: in_flight,
            }))
        })
    }
}

/// One request in flight; dropping it ends it.
struct InFlight(Arc<watch::Sender<usize>>, Arc<HeadState>);

impl InFlight {
    fn start(counter: &Arc<watch::Sender<usize>>, head: &Arc<HeadState>) -> Self {
        head.request_started();
        counter.send_modify(|n| *n += 1);
        InFlight(Arc::clone(counter), Arc::clone(head))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.1.request_ended();
        self.0.send_modify(|n| *n -= 1);
    }
}

/// A response body that keeps its request in flight while it lives.
struct Tracked {
    body: Body,
    _in_flight: InFlight,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
