//! How many connections a listener holds, and for how long.

use std::time::Duration;

use std::io;

use super::{NoRoomForConnections, open_files, raise_file_limit};

/// The bounds a listener ([`Serve`](super::Serve), and the `serve*`
/// functions of this module) puts on its connections, so
/// that idle or slow clients cannot hold sockets, descriptors and memory
/// forever.
///
/// | Bound | Default | Builder |
/// |---|---|---|
/// | concurrent connections | 512 | [`with_max_connections`](Self::with_max_connections) |
/// | time to send a request head, from its first byte (the first: from the accept) | 10 s | [`with_header_read_timeout`](Self::with_header_read_timeout) |
/// | time a connection may sit with no request in flight | 60 s | [`with_idle_timeout`](Self::with_idle_timeout) |
/// | time [`HttpServer::shutdown`](super::HttpServer::shutdown) lets requests finish | 10 s | [`with_drain_timeout`](Self::with_drain_timeout) |
///
/// The defaults suit a server behind the usual descriptor limit (1024) that
/// also holds files and other listeners: 512 connections leave room for
/// them, honest clients send a request head in one packet (10 s is
/// generous), MCP clients keep a live session's stream open rather than an
/// idle socket (60 s), and a graceful stop should not outlast a
/// supervisor's patience (10 s). Under a lower open-file limit, fit the
/// cap to it with [`within_file_limit`](Self::within_file_limit).
///
/// ```
/// use std::time::Duration;
/// use mcp_profiles_serve::http::Limits;
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
    /// (default 10 s), from the accept for the first head and from a later
    /// head's first byte; past it the connection is closed. A keep-alive
    /// connection waiting for its next request is the
    /// [idle timeout](Self::with_idle_timeout)'s: hyper's own header timer,
    /// which runs from the end of the previous response, would close a
    /// connection idle past this timeout just as its client reused it,
    /// losing that request, so the listener times heads itself.
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

    /// Lowers the connection cap, if need be, to what an open-file limit of
    /// `file_limit` descriptors leaves once `reserve` of them are set aside
    /// for the rest of the process: the cap becomes
    /// `min(max_connections, file_limit - reserve)`.
    ///
    /// Each connection holds one descriptor. A cap above what the process
    /// may open is no cap: accepts fail with `EMFILE` first, on every
    /// listener of the process. The reserve is the caller's to count: its
    /// other listeners' caps, its files and client connections, the
    /// listeners themselves and whatever is open already (see
    /// [`open_files`](super::open_files)); take `file_limit` from
    /// [`raise_file_limit`](super::raise_file_limit).
    ///
    /// ```
    /// use mcp_profiles_serve::http::Limits;
    ///
    /// let fitted = Limits::default().within_file_limit(128, 50).unwrap();
    /// assert_eq!(fitted.max_connections(), 78);
    /// let roomy = Limits::default().within_file_limit(65_536, 50).unwrap();
    /// assert_eq!(roomy.max_connections(), 512);
    /// assert!(Limits::default().within_file_limit(50, 50).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`NoRoomForConnections`], naming both numbers, when `file_limit` is
    /// not above `reserve`: a listener that could hold no connection is a
    /// misconfiguration to report at start, not a server to run.
    pub fn within_file_limit(
        self,
        file_limit: u64,
        reserve: u64,
    ) -> Result<Limits, NoRoomForConnections> {
        match file_limit.checked_sub(reserve) {
            Some(room) if room > 0 => {
                let room = usize::try_from(room).unwrap_or(usize::MAX);
                let max = self.max_connections.min(room);
                Ok(self.with_max_connections(max))
            }
            _ => Err(NoRoomForConnections {
                file_limit,
                reserve,
            }),
        }
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

/// Counted in place of what is open at start where that cannot be counted
/// ([`open_files`] is `None`): the standard streams (3), the async
/// runtime's poller and waker (2), the signal pipe (2), and as many again
/// for what the environment passed in.
const UNCOUNTED_AT_START: u64 = 16;

/// At start, before the listeners and stores are opened: raises the soft
/// open-file limit to the hard one ([`raise_file_limit`]) and caps
/// `limits` (a listener's) at `min(max_connections, limit - open - reserve)`,
/// `open` being what is open now ([`open_files`]) and `reserve` what the
/// process will hold besides that listener's connections (`reserved_for`
/// names it, for the message). Logs a warning, once, when the cap comes out
/// lower than asked. A platform without such a limit keeps `limits`.
///
/// # Errors
///
/// When the limit cannot be read, or leaves no room for a connection: the
/// message names the limit, what is open and what the reserve is for.
pub fn fit_to_file_limit(limits: Limits, reserve: u64, reserved_for: &str) -> io::Result<Limits> {
    let Some(file_limit) = raise_file_limit()
        .map_err(|error| io::Error::other(format!("cannot read the open-file limit: {error}")))?
    else {
        return Ok(limits);
    };
    let open = open_files().unwrap_or(UNCOUNTED_AT_START);
    let asked = limits.max_connections();
    let fitted = limits
        .within_file_limit(file_limit, open.saturating_add(reserve))
        .map_err(|error| {
            io::Error::other(format!(
                "{error} ({open} open at start, {reserve} for {reserved_for})"
            ))
        })?;
    if fitted.max_connections() < asked {
        tracing::warn!(
            asked,
            effective = fitted.max_connections(),
            file_limit,
            reserve = open + reserve,
            "the MCP listener's connection cap is lowered to fit the open-file limit \
             (raise it with ulimit -n)"
        );
    }
    Ok(fitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(asked: usize, file_limit: u64, reserve: u64) -> Result<usize, NoRoomForConnections> {
        Limits::default()
            .with_max_connections(asked)
            .within_file_limit(file_limit, reserve)
            .map(|limits| limits.max_connections())
    }

    #[test]
    fn the_cap_is_the_smaller_of_the_asked_and_what_the_limit_leaves() {
        assert_eq!(cap(512, 128, 50), Ok(78));
        assert_eq!(cap(512, 1024, 100), Ok(512));
        assert_eq!(cap(60, 128, 50), Ok(60));
        // Exactly what is left.
        assert_eq!(cap(78, 128, 50), Ok(78));
        // One descriptor left is one connection.
        assert_eq!(cap(512, 51, 50), Ok(1));
        // "Unlimited" (RLIM_INFINITY) leaves the cap as asked.
        assert_eq!(cap(512, u64::MAX, 50), Ok(512));
        // An explicit 0 stays 0 (refuse every connection).
        assert_eq!(cap(0, 128, 50), Ok(0));
    }

    #[test]
    fn no_room_is_an_error_naming_both_numbers() {
        let none = NoRoomForConnections {
            file_limit: 50,
            reserve: 50,
        };
        assert_eq!(cap(512, 50, 50), Err(none));
        let below = NoRoomForConnections {
            file_limit: 40,
            reserve: 52,
        };
        assert_eq!(cap(512, 40, 52), Err(below));
    }

    #[test]
    fn fitting_keeps_the_other_bounds() {
        let limits = Limits::default()
            .with_idle_timeout(Duration::from_secs(5))
            .with_header_read_timeout(Duration::from_secs(2))
            .with_drain_timeout(Duration::from_secs(3));
        let fitted = limits.clone().within_file_limit(100, 90).unwrap();
        assert_eq!(fitted, limits.with_max_connections(10));
    }
}
