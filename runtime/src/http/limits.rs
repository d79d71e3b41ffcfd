//! How many connections a listener holds, and for how long.

use std::time::Duration;

/// The bounds a listener of [`serve_router`](super::serve_router) (and of
/// every other `serve*` function of this module) puts on its connections, so
/// that idle or slow clients cannot hold sockets, descriptors and memory
/// forever.
///
/// | Bound | Default | Builder |
/// |---|---|---|
/// | concurrent connections | 512 | [`with_max_connections`](Self::with_max_connections) |
/// | time to send a request head | 10 s | [`with_header_read_timeout`](Self::with_header_read_timeout) |
/// | time a connection may sit with no request in flight | 60 s | [`with_idle_timeout`](Self::with_idle_timeout) |
/// | time [`HttpServer::shutdown`](super::HttpServer::shutdown) lets requests finish | 10 s | [`with_drain_timeout`](Self::with_drain_timeout) |
///
/// The defaults suit a server behind the usual descriptor limit (1024) that
/// also holds files and other listeners: 512 connections leave room for
/// them, honest clients send a request head in one packet (10 s is
/// generous), MCP clients keep a live session's stream open rather than an
/// idle socket (60 s), and a graceful stop should not outlast a
/// supervisor's patience (10 s).
///
/// ```
/// use std::time::Duration;
/// use mcp_profiles::http::Limits;
///
/// let limits = Limits::default()
///     .with_max_connections(64)
///     .with_idle_timeout(Duration::from_secs(30));
/// assert_eq!(limits.max_connections(), 64);
/// assert_eq!(limits.header_read_timeout(), Duration::from_secs(10));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    max_connections: usize,
    header_read_timeout: Duration,
    idle_timeout: Duration,
    drain_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 512,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            drain_timeout: Duration::from_secs(10),
        }
    }
}

impl Limits {
    /// At most `max` connections at once on this listener (default 512).
    /// Past it a new connection is answered `503 Service Unavailable` with
    /// `Connection: close` at once and closed; it is never queued, so a
    /// saturated listener costs no more descriptors and leaves other
    /// listeners of the process their share. `0` refuses every connection.
    pub fn with_max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// The time an HTTP/1 client has to send a complete request head
    /// (default 10 s); past it the connection is closed. The timer also runs
    /// while a keep-alive connection waits for its next request (hyper
    /// 1.12 starts it whenever it waits for a head), so an HTTP/1
    /// connection with no request in flight lasts at most this long.
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// A connection with no request in flight for this long is closed
    /// (default 60 s), HTTP/1 or HTTP/2. A request is in flight from the
    /// moment its head is read until its response body ends or is dropped,
    /// so a long-lived response such as an MCP session's SSE stream keeps its
    /// connection open however quiet it is.
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How long [`HttpServer::shutdown`](super::HttpServer::shutdown) lets
    /// requests in flight finish (default 10 s) before it drops the
    /// connections still open.
    pub fn with_drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// At most this many connections at once.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// The time a client has to send a request head.
    pub fn header_read_timeout(&self) -> Duration {
        self.header_read_timeout
    }

    /// The time a connection may sit with no request in flight.
    pub fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// The time shutdown lets requests in flight finish.
    pub fn drain_timeout(&self) -> Duration {
        self.drain_timeout
    }
}
