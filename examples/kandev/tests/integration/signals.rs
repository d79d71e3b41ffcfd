//! `serve` ends gracefully on SIGTERM as on SIGINT: sessions are closed, the
//! process exits 0 in bounded time, and its logs carry no colour codes when
//! stderr is not a terminal.

use crate::common;

use std::process::Stdio;

use crate::common::{LIMIT, Server};
use rmcp::ServiceExt;
use tokio::io::AsyncReadExt;

#[tokio::test]
async fn sigterm_and_sigint_drain_a_live_session_and_exit_0() {
    for signal in ["TERM", "INT"] {
        // `info` so the log has lines to check for colour codes.
        let mut server = Server::start_with(&[("RUST_LOG", "info")]).await;
        let session = server.connect().await;
        assert!(!session.tool_names().await.is_empty());
        let http = reqwest::Client::new();
        server.profile(&http).await;

        let (status, stderr) = server.signal_and_wait(signal).await;
        assert_eq!(status.code(), Some(0), "SIG{signal}: {status}\n{stderr}");
        assert!(
            !stderr.contains("panicked"),
            "SIG{signal}: a panic on shutdown:\n{stderr}"
        );
        assert!(
            !stderr.contains("\x1b["),
            "SIG{signal}: ANSI codes in a non-terminal log:\n{stderr:?}"
        );
        assert!(
            stderr.lines().any(|line| line.contains("INFO")),
            "SIG{signal}: no log line to check:\n{stderr}"
        );
        // The session and both listeners are gone.
        let after = tokio::time::timeout(LIMIT, session.service.list_all_tools())
            .await
            .expect("the client learns the server is gone");
        assert!(
            after.is_err(),
            "SIG{signal}: tools/list after exit: {after:?}"
        );
        assert!(
            http.get(format!("{}/api/v1/mcp/profile", server.control))
                .send()
                .await
                .is_err(),
            "SIG{signal}: the control API still answers"
        );
    }
}

#[tokio::test]
async fn sigterm_ends_a_stdio_session_and_exits_0() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_kandev-mcp"))
        .args(["serve", "--stdio"])
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("kandev-mcp starts");
    let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let client = ().serve((stdout, stdin)).await.expect("the MCP handshake");
    assert!(!client.list_all_tools().await.unwrap().is_empty());

    common::send_signal(child.id().expect("running"), "TERM");
    let status = tokio::time::timeout(LIMIT, child.wait())
        .await
        .expect("the server exits after SIGTERM")
        .unwrap();
    assert_eq!(status.code(), Some(0), "{status}");
    // The client sees its session end.
    tokio::time::timeout(LIMIT, client.waiting())
        .await
        .expect("the client session ends")
        .expect("the client task ends cleanly");
    let mut log = String::new();
    stderr.read_to_string(&mut log).await.unwrap();
    assert!(
        !log.contains("\x1b["),
        "ANSI codes in a non-terminal log: {log:?}"
    );
    assert!(!log.contains("panicked"), "{log}");
}

/// What a stdio session logs on stderr, without `RUST_LOG`, given `args`.
async fn stdio_log(args: &[&str]) -> String {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_kandev-mcp"))
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("kandev-mcp starts");
    let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let client = ().serve((stdout, stdin)).await.expect("the MCP handshake");
    assert!(!client.list_all_tools().await.unwrap().is_empty());
    common::send_signal(child.id().expect("running"), "TERM");
    tokio::time::timeout(LIMIT, child.wait())
        .await
        .expect("the server exits after SIGTERM")
        .unwrap();
    let mut log = String::new();
    stderr.read_to_string(&mut log).await.unwrap();
    log
}

#[tokio::test]
async fn a_stdio_server_is_quiet_unless_asked() {
    let quiet = stdio_log(&["serve", "--stdio"]).await;
    assert!(
        !quiet.contains(" INFO "),
        "info lines over stdio by default: {quiet}"
    );
    let verbose = stdio_log(&["serve", "--stdio", "-v"]).await;
    assert!(
        verbose.contains(" INFO "),
        "no info line with -v: {verbose}"
    );
}
