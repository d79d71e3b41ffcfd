//! A TCP proxy that can stall: what the `gateway_load` bench puts between
//! one gateway instance and Redis to freeze that instance's link to the
//! shared store for a while (no byte either way, connections kept open),
//! as a paused VM or a long garbage-collection pause would, while the
//! instance itself goes on serving its sessions.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A running proxy to one address; dropped, it stops accepting (the
/// connections it made end with their peers).
pub struct StallProxy {
    addr: SocketAddr,
    stalled: Arc<watch::Sender<bool>>,
    accepting: tokio::task::JoinHandle<()>,
}

impl StallProxy {
    /// Proxies a free loopback port to `target`.
    pub async fn start(target: SocketAddr) -> StallProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let addr = listener.local_addr().expect("its address");
        let stalled = Arc::new(watch::channel(false).0);
        let accepting = tokio::spawn({
            let stalled = Arc::clone(&stalled);
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    let Ok(server) = TcpStream::connect(target).await else {
                        continue;
                    };
                    let _ = (client.set_nodelay(true), server.set_nodelay(true));
                    let (client_read, client_write) = client.into_split();
                    let (server_read, server_write) = server.into_split();
                    tokio::spawn(pipe(client_read, server_write, stalled.subscribe()));
                    tokio::spawn(pipe(server_read, client_write, stalled.subscribe()));
                }
            }
        });
        StallProxy {
            addr,
            stalled,
            accepting,
        }
    }

    /// Where to connect instead of the target.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Holds every byte, both ways, for `duration`, then lets them through
    /// in order.
    pub async fn stall(&self, duration: Duration) {
        self.stalled.send_replace(true);
        tokio::time::sleep(duration).await;
        self.stalled.send_replace(false);
    }
}

impl Drop for StallProxy {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

/// Copies `from` to `to`, holding each chunk while stalled.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut stalled: watch::Receiver<bool>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if stalled.wait_for(|stalled| !*stalled).await.is_err() {
            return;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}
