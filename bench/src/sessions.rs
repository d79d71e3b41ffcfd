//! Connecting many real rmcp client/server session pairs: in-process over
//! in-memory duplex pipes, or streamable HTTP clients to a served URL.

use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientHandler, ServerHandler, ServiceExt};

/// Connects `sessions` client/server pairs over in-memory duplex pipes of
/// `buffer` bytes each way. Server `i` is `make_server(i)`, served in its own
/// task until its client goes; client `i` is `make_client(i)`. Returns the
/// clients in order, handshakes complete (dropping one ends its session).
pub async fn connect_in_process<S, C>(
    sessions: usize,
    buffer: usize,
    make_server: impl Fn(usize) -> S,
    make_client: impl Fn(usize) -> C,
) -> Vec<RunningService<RoleClient, C>>
where
    S: ServerHandler,
    C: ClientHandler,
{
    let mut clients = Vec::with_capacity(sessions);
    for index in 0..sessions {
        let (server_io, client_io) = tokio::io::duplex(buffer);
        let server = make_server(index);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = make_client(index)
            .serve(client_io)
            .await
            .expect("client handshake");
        clients.push(client);
    }
    clients
}

/// Connects `sessions` clients, `batch` handshakes at a time, each over the
/// transport `transport(i)` makes (e.g. a streamable HTTP client to one
/// URL). Client `i` is `make_client(i)`; returns them in order.
pub async fn connect_clients<C, T, E, A>(
    sessions: usize,
    batch: usize,
    transport: impl Fn(usize) -> T,
    make_client: impl Fn(usize) -> C,
) -> Vec<RunningService<RoleClient, C>>
where
    C: ClientHandler,
    T: rmcp::transport::IntoTransport<RoleClient, E, A> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    A: 'static,
{
    let mut clients = Vec::with_capacity(sessions);
    let mut start = 0;
    while start < sessions {
        let end = (start + batch.max(1)).min(sessions);
        let handshakes = (start..end).map(|index| make_client(index).serve(transport(index)));
        for client in join_spawned(handshakes).await {
            clients.push(client.expect("a session connects"));
        }
        start = end;
    }
    clients
}

/// Runs every future of `futures` in its own task and awaits them all, in
/// order.
pub async fn join_spawned<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::with_capacity(handles.len());
    for handle in handles {
        outputs.push(handle.await.expect("a spawned task completes"));
    }
    outputs
}
