//! The fixture task server over stdio, for child-process tests.
//!
//! `task-server '<profile json>'` serves MCP on stdin/stdout and a line
//! protocol for the test on 127.0.0.1: it prints `control <port>` on stderr,
//! then answers each line `replace <profile json>` with
//! `changed <bool> <added>,<removed>`, `calls <tool>` with the count, and
//! `current` with the profile JSON in force.

use mcp_profiles::{ProfileContext, ProfileController};
use mcp_profiles_tests::TaskServer;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let profile = std::env::args()
        .nth(1)
        .ok_or("usage: task-server '<profile json>'")?;
    let controller = ProfileController::<TaskServer>::new(ProfileContext::from_json(&profile)?);
    let handler = TaskServer::default();
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    eprintln!("control {}", listener.local_addr()?.port());
    let control = tokio::spawn(control_loop(listener, controller.clone(), handler.clone()));
    let running = controller
        .server(handler)
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    control.abort();
    Ok(())
}

async fn control_loop(
    listener: TcpListener,
    controller: ProfileController<TaskServer>,
    handler: TaskServer,
) {
    while let Ok((stream, _)) = listener.accept().await {
        let (controller, handler) = (controller.clone(), handler.clone());
        tokio::spawn(async move {
            let (read, mut write) = stream.into_split();
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let answer = match line.split_once(' ') {
                    Some(("replace", json)) => match ProfileContext::from_json(json) {
                        Ok(context) => {
                            let change = controller.replace(context);
                            format!(
                                "changed {} {},{}",
                                change.changed(),
                                change.diff.added.len(),
                                change.diff.removed.len()
                            )
                        }
                        Err(error) => format!("error {error}"),
                    },
                    Some(("calls", tool)) => format!("calls {}", handler.calls(tool)),
                    None if line == "current" => {
                        format!("current {}", controller.current().context().to_json())
                    }
                    _ => format!("error unknown command `{line}`"),
                };
                if write
                    .write_all(format!("{answer}\n").as_bytes())
                    .await
                    .is_err()
                {
                    return;
                }
            }
        });
    }
}
