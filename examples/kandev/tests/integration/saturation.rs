//! A saturated MCP listener never starves the control API: past its cap the
//! MCP port answers 503 at once, the control API (its own listener, its own
//! bounds) still answers, idle sockets are closed after the timeouts, and
//! MCP serves again once they are.

use crate::common::{LIMIT, Server};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

#[tokio::test]
async fn a_saturated_mcp_port_leaves_the_control_api_reachable() {
    let server = Server::start_with_args(&[
        "--max-connections",
        "4",
        "--header-timeout-ms",
        "600",
        "--idle-timeout-ms",
        "600",
    ])
    .await;
    let mcp_addr = server
        .mcp
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();

    // Four idle connections fill the cap (accepted in order); a fifth is
    // refused.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(&mcp_addr).await.unwrap());
    }
    let mut extra = TcpStream::connect(&mcp_addr).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(LIMIT, extra.read_to_end(&mut answer))
        .await
        .expect("a connection past the cap is answered at once")
        .ok();
    let refusal = String::from_utf8_lossy(&answer);
    assert!(refusal.starts_with("HTTP/1.1 503"), "{refusal:?}");

    // The control API answers meanwhile.
    let http = reqwest::Client::new();
    server.profile(&http).await;

    // The idle sockets are closed by the server after the timeouts.
    for socket in &mut idle {
        let mut byte = [0; 1];
        let read = tokio::time::timeout(LIMIT, socket.read(&mut byte))
            .await
            .expect("an idle socket is closed after the timeout");
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    }

    // And MCP serves again.
    let session = server.connect().await;
    assert!(!session.tool_names().await.is_empty());
}
