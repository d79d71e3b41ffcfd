//! What times a request head: the connection's reads tell when a head
//! starts arriving (the first bytes while no request is in flight), its
//! service when the head was read whole (a request is called).
//!
//! Why not hyper's `header_read_timeout`: hyper starts that timer whenever
//! the connection waits for a head, so on a keep-alive connection it runs
//! from the end of the previous response, and a connection idle past it is
//! closed even while its client is sending the next request.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

/// The start of an HTTP/2 connection, which has no heads of this kind.
const HTTP2_PREFACE: &[u8] = b"PRI * HTTP/2.0";

/// One connection's head state, shared by its reads, its service and its
/// serving loop.
#[derive(Debug)]
pub(super) struct HeadState {
    /// When the connection was accepted: the origin of `since`.
    accepted: Instant,
    /// Requests called and not yet answered whole.
    in_flight: AtomicUsize,
    /// A head is arriving and was not read whole yet (from the accept, the
    /// first one's).
    reading: AtomicBool,
    /// When the head now arriving started, in milliseconds since `accepted`.
    since: AtomicU64,
    /// An HTTP/2 connection: nothing to time.
    http2: AtomicBool,
    /// Whether the connection has read anything yet.
    read_any: AtomicBool,
    started: Notify,
}

impl Default for HeadState {
    fn default() -> Self {
        HeadState {
            accepted: Instant::now(),
            in_flight: AtomicUsize::new(0),
            reading: AtomicBool::new(true),
            since: AtomicU64::new(0),
            http2: AtomicBool::new(false),
            read_any: AtomicBool::new(false),
            started: Notify::new(),
        }
    }
}

impl HeadState {
    /// A head was read whole: its request is in flight.
    pub(super) fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.reading.store(false, Ordering::Release);
    }

    /// A request was answered whole (or its answer dropped).
    pub(super) fn request_ended(&self) {
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// Completes when a head starts arriving (it may have started before).
    pub(super) async fn started(&self) {
        self.started.notified().await;
    }

    /// When the head now arriving must have been read whole by, under
    /// `timeout`; `None` when no head is arriving.
    pub(super) fn deadline(&self, timeout: Duration) -> Option<Instant> {
        if !self.reading.load(Ordering::Acquire) || self.http2.load(Ordering::Acquire) {
            return None;
        }
        let since = Duration::from_millis(self.since.load(Ordering::Acquire));
        Some(self.accepted + since + timeout)
    }

    /// `bytes` were read.
    fn arrived(&self, bytes: &[u8]) {
        if !self.read_any.swap(true, Ordering::AcqRel) && bytes.starts_with(HTTP2_PREFACE) {
            self.http2.store(true, Ordering::Release);
            self.reading.store(false, Ordering::Release);
            return;
        }
        if self.http2.load(Ordering::Relaxed) || self.in_flight.load(Ordering::Acquire) > 0 {
            return;
        }
        if !self.reading.swap(true, Ordering::AcqRel) {
            let since = self.accepted.elapsed().as_millis();
            self.since
                .store(u64::try_from(since).unwrap_or(u64::MAX), Ordering::Release);
            self.started.notify_one();
        }
    }
}

/// A connection's stream, telling its [`HeadState`] what it reads.
pub(super) struct HeadWatch<T> {
    inner: T,
    state: Arc<HeadState>,
}

impl<T> HeadWatch<T> {
    pub(super) fn new(inner: T, state: Arc<HeadState>) -> Self {
        HeadWatch { inner, state }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for HeadWatch<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.state.arrived(&buf.filled()[before..]);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for HeadWatch<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
