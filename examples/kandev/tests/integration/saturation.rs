//! A saturated MCP listener never starves the control API: past its cap the
//! MCP port answers 503 at once, the control API (its own listener, its own
//! bounds) still answers, idle sockets are closed after the timeouts, and
//! MCP serves again once they are. Also under an open-file limit lower than
//! the cap asked for (issue 22), through `prlimit` (util-linux).

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

/// The MCP port of a `serve` child, `127.0.0.1:PORT`.
fn mcp_addr(server: &Server) -> String {
    server
        .mcp
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// Panics unless a new connection to `addr` is answered 503 and closed.
async fn assert_refused(addr: &str) {
    let mut probe = TcpStream::connect(addr).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(LIMIT, probe.read_to_end(&mut answer))
        .await
        .expect("a connection past the cap is answered at once")
        .ok();
    let refusal = String::from_utf8_lossy(&answer);
    assert!(refusal.starts_with("HTTP/1.1 503"), "{refusal:?}");
}

/// The lowered cap the server warned about at start (`effective=N`).
fn lowered_cap(stderr: &[String]) -> usize {
    let line = stderr
        .iter()
        .find(|line| line.contains("lowered to fit the open-file limit"))
        .unwrap_or_else(|| panic!("no warning of a lowered cap:\n{}", stderr.join("\n")));
    assert!(line.contains("asked=512"), "{line}");
    assert!(line.contains("file_limit=128"), "{line}");
    let effective = line
        .split_once("effective=")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|number| number.parse().ok());
    effective.unwrap_or_else(|| panic!("no effective=N in {line}"))
}

/// Issue 22: under `prlimit --nofile=128:128` the default cap (512) is above
/// what the process may open. The cap is lowered to fit, so 150 idle MCP
/// connections fill the MCP share and the rest are refused with 503, the
/// control API still answers, and MCP serves again after the idle timeout.
///
/// The idle and header timeouts (5 s) only need to outlast opening 150
/// loopback connections and one control request, which take milliseconds:
/// the saturation must still hold when the control API is asked.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn under_a_low_file_limit_a_saturated_mcp_port_leaves_the_control_api_reachable() {
    let mut server = Server::start_limited(
        "128:128",
        "serve",
        &["--header-timeout-ms", "5000", "--idle-timeout-ms", "5000"],
    )
    .await;
    let cap = lowered_cap(&server.stderr_lines());
    assert!(0 < cap && cap < 128, "{cap}");
    let addr = mcp_addr(&server);

    // More idle connections than the cap: the first `cap` are held, the
    // rest answered 503 and closed.
    let mut idle = Vec::new();
    for _ in 0..150 {
        idle.push(TcpStream::connect(&addr).await.unwrap());
    }
    assert_refused(&addr).await;

    // The control API answers while MCP is saturated: the MCP cap left the
    // control listener its descriptors.
    let http = reqwest::Client::new();
    let answered = tokio::time::timeout(LIMIT, server.profile(&http)).await;
    assert!(answered.is_ok(), "the control API did not answer");
    // Still saturated afterwards, so saturated throughout the request.
    assert_refused(&addr).await;

    // The server closes every socket: the refused ones at once, the held
    // ones after the idle timeout; exactly `cap` were held.
    let mut refused = 0;
    for socket in &mut idle {
        let mut answer = Vec::new();
        let read = tokio::time::timeout(LIMIT, socket.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "the server left a socket open");
        if answer.starts_with(b"HTTP/1.1 503") {
            refused += 1;
        }
    }
    assert_eq!(idle.len() - refused, cap, "held connections");

    // And MCP serves again.
    let session = server.connect().await;
    assert!(!session.tool_names().await.is_empty());
    server.assert_alive();
}

/// At start the soft open-file limit is raised to the hard one, so a low
/// soft limit alone lowers nothing.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_soft_file_limit_is_raised_to_the_hard_one_at_start() {
    let mut server = Server::start_limited("64:", "gateway", &[]).await;
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.pid()))
        .expect("/proc/<pid>/limits is readable");
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .expect("a Max open files line");
    let numbers: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers.len(), 2, "{line}");
    assert_eq!(numbers[0], numbers[1], "soft is not the hard limit: {line}");
    assert_ne!(numbers[0], "64", "{line}");
    let stderr = server.stderr_lines().join("\n");
    assert!(!stderr.contains("lowered to fit"), "{stderr}");
    server.assert_alive();
}

/// A limit that leaves no descriptor for MCP connections once the control
/// listener and the rest are provided for stops the server at start, with
/// an error naming the limit and the reserve.
#[cfg(target_os = "linux")]
#[test]
fn a_file_limit_within_the_reserve_is_refused_at_start() {
    let output = crate::common::run_limited(
        "40:40",
        &[
            "gateway",
            "--http",
            "127.0.0.1:0",
            "--control",
            "127.0.0.1:0",
            "--control-token",
            crate::common::TOKEN,
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("open-file limit is 40"), "{stderr}");
    assert!(stderr.contains("descriptors are reserved"), "{stderr}");
    assert!(!stderr.contains("mcp: "), "it must not serve: {stderr}");
}
