//! A server binary run as a child process that announces its listeners on
//! stderr (`mcp: URL`, `control: URL`, as `kandev-mcp` and the help desk
//! do), its stderr kept for the test to read.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};

/// How long a child may take to announce its addresses.
const ANNOUNCE_LIMIT: Duration = Duration::from_secs(30);

/// A running child server and what it announced.
#[derive(Debug)]
pub struct Announced {
    /// The child (killed when dropped).
    pub child: tokio::process::Child,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub mcp: String,
    /// The control API's base, `http://127.0.0.1:PORT`.
    pub control: String,
    /// Every line it wrote to stderr so far.
    pub stderr: Arc<Mutex<Vec<String>>>,
    /// Collects stderr until the child closes it.
    pub collector: tokio::task::JoinHandle<()>,
}

impl Announced {
    /// Spawns `program` (stdin and stdout closed, stderr piped, killed on
    /// drop) and waits until it announced both addresses.
    ///
    /// # Panics
    ///
    /// If it does not start, or closes stderr or takes over 30 s before
    /// announcing both.
    pub async fn spawn(mut program: tokio::process::Command) -> Announced {
        let mut child = program
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (mut mcp, mut control) = (None, None);
        while mcp.is_none() || control.is_none() {
            let line = tokio::time::timeout(ANNOUNCE_LIMIT, lines.next_line())
                .await
                .expect("the server announces its addresses")
                .expect("stderr reads")
                .unwrap_or_else(|| {
                    let said = stderr.lock().unwrap().join("\n");
                    panic!("the server closed stderr before announcing its addresses:\n{said}")
                });
            if let Some(url) = line.strip_prefix("mcp: ") {
                mcp = Some(url.to_owned());
            } else if let Some(url) = line.strip_prefix("control: ") {
                control = Some(url.to_owned());
            }
            stderr.lock().unwrap().push(line);
        }
        let collected = Arc::clone(&stderr);
        let collector = tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                collected.lock().unwrap().push(line);
            }
        });
        Announced {
            child,
            mcp: mcp.expect("announced"),
            control: control.expect("announced"),
            stderr,
            collector,
        }
    }
}
