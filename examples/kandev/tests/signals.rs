//! `serve` ends gracefully on SIGTERM as on SIGINT: sessions are closed, the
//! process exits 0 in bounded time, and its logs carry no colour codes when
//! stderr is not a terminal.

mod common;

use common::{LIMIT, Server};

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
