//! What the load and hostile-input tests share: a `kandev-mcp serve --http
//! --control` child process on 127.0.0.1, rmcp clients over streamable HTTP
//! (the shared [`mcp_profiles_tests::client::Session`], which counts
//! `notifications/tools/list_changed`), a control-API caller, and SQLite
//! databases made by `kandev-mcp init` in temporary directories.

pub mod gateway;
pub mod raw;

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_profiles_tests::client::{Session, http_transport};
use rmcp::ServiceExt;
use rmcp::service::{RoleClient, RunningService};
use serde_json::Value;

/// The control API's token in every test.
pub const TOKEN: &str = "test-token-0123456789";

/// `Authorization` header value carrying [`TOKEN`].
pub const BEARER: &str = "Bearer test-token-0123456789";

/// How long a test waits for something that must happen.
pub const LIMIT: Duration = Duration::from_secs(20);

/// How long a test waits to be sure something does not happen.
pub const QUIET: Duration = Duration::from_millis(500);

/// Sends `signal` (`TERM`, `INT`) to process `pid` with `kill`.
pub fn send_signal(pid: u32, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -{signal} {pid} failed");
}

/// A Kandev server over `store`, bound to `task_id`, in the legacy `task`
/// mode, with a plain rmcp client connected in-process (`tokio::io::duplex`);
/// for tests that shape the board directly. The client and the controller.
pub async fn in_process(
    store: Arc<kandev_mcp::store::Store>,
    task_id: &str,
) -> (RunningService<RoleClient, ()>, kandev_mcp::control::Single) {
    let context = kandev_mcp::legacy::context_for_mode("task", false).expect("task mode");
    let (client_io, single) = serve_in_process(store, task_id, context);
    let client = ().serve(client_io).await.expect("the MCP handshake succeeds");
    (client, single)
}

/// A Kandev server over `store`, bound to `task_id`, with profile
/// `context`, serving one end of an in-process pipe (`tokio::io::duplex`):
/// the other end, for a client, and the agent it serves (what a control
/// API changes).
pub fn serve_in_process(
    store: Arc<kandev_mcp::store::Store>,
    task_id: &str,
    context: mcp_profiles::ProfileContext<kandev_mcp::Kandev>,
) -> (tokio::io::DuplexStream, kandev_mcp::control::Single) {
    let single = kandev_mcp::control::Single::demo(context);
    let controller = single.controller();
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let server = controller.server(kandev_mcp::Kandev::new(store, task_id));
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    (client_io, single)
}

/// Calls `tool` with `arguments` (a JSON object): whether the result is an
/// error, and its text. Panics on a transport or protocol error.
pub async fn call<C: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, C>,
    tool: &str,
    arguments: Value,
) -> (bool, String) {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object: {arguments}");
    };
    let params = rmcp::model::CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let result = client
        .call_tool(params)
        .await
        .unwrap_or_else(|err| panic!("{tool}: {err}"));
    let text = result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect();
    (result.is_error == Some(true), text)
}

/// A running `kandev-mcp serve --http 127.0.0.1:0 --control 127.0.0.1:0`
/// (or `gateway`, with the same listeners).
pub struct Server {
    child: tokio::process::Child,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub mcp: String,
    /// The control API's base, `http://127.0.0.1:PORT`.
    pub control: String,
    stderr: Arc<Mutex<Vec<String>>>,
    /// Collects stderr until the child closes it.
    collector: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

impl Server {
    /// Starts the server with `RUST_LOG=warn` and waits for its addresses.
    pub async fn start() -> Server {
        Server::start_with(&[]).await
    }

    /// Like [`start`](Self::start), with more environment variables.
    pub async fn start_with(env: &[(&str, &str)]) -> Server {
        Server::spawn(&[], env).await
    }

    /// Like [`start`](Self::start), with more `serve` arguments.
    pub async fn start_with_args(args: &[&str]) -> Server {
        Server::spawn(args, &[]).await
    }

    async fn spawn(args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::spawn_command("serve", args, env).await
    }

    /// `kandev-mcp gateway` with more arguments (e.g. `--store URL`).
    pub async fn start_gateway(args: &[&str]) -> Server {
        Server::spawn_command("gateway", args, &[]).await
    }

    /// Like [`start_gateway`](Self::start_gateway), its MCP listener on
    /// `http` (`127.0.0.1:PORT`) instead of a port of its choosing: for an
    /// OAuth gateway, whose resource URI names its port before it starts.
    pub async fn start_gateway_on(http: &str, args: &[&str]) -> Server {
        let program = tokio::process::Command::new(env!("CARGO_BIN_EXE_kandev-mcp"));
        Server::spawn_on(program, "gateway", http, args, &[]).await
    }

    /// Like [`start_with_args`](Self::start_with_args) for `COMMAND`
    /// (`serve` or `gateway`), run under `prlimit --nofile=NOFILE` (e.g.
    /// `128:128`, or `64:` for the soft limit alone), so the server starts
    /// with that open-file limit.
    pub async fn start_limited(nofile: &str, command: &str, args: &[&str]) -> Server {
        let mut prlimit = tokio::process::Command::new("prlimit");
        // prlimit execs the server, so the child is the server itself.
        prlimit
            .arg(format!("--nofile={nofile}"))
            .arg(env!("CARGO_BIN_EXE_kandev-mcp"));
        Server::spawn_from(prlimit, command, args, &[]).await
    }

    /// `kandev-mcp COMMAND --http 127.0.0.1:0 --control 127.0.0.1:0
    /// --control-token TOKEN ARGS...`, waiting for both addresses.
    async fn spawn_command(command: &str, args: &[&str], env: &[(&str, &str)]) -> Server {
        let program = tokio::process::Command::new(env!("CARGO_BIN_EXE_kandev-mcp"));
        Server::spawn_from(program, command, args, env).await
    }

    /// `program` (the server, or a launcher that execs it) with
    /// [`spawn_command`](Self::spawn_command)'s arguments appended.
    async fn spawn_from(
        program: tokio::process::Command,
        command: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        Server::spawn_on(program, command, "127.0.0.1:0", args, env).await
    }

    /// [`spawn_from`](Self::spawn_from) with the MCP listener on `http`.
    async fn spawn_on(
        mut program: tokio::process::Command,
        command: &str,
        http: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        program
            .args([command, "--http", http, "--control", "127.0.0.1:0"])
            .args(["--control-token", TOKEN])
            .args(args)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied());
        let announced = mcp_profiles_tests::announced::Announced::spawn(program).await;
        Server {
            child: announced.child,
            mcp: announced.mcp,
            control: announced.control,
            stderr: announced.stderr,
            collector: Some(announced.collector),
        }
    }

    /// The lines the server wrote to stderr so far.
    pub fn stderr_lines(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }

    /// Kills the process with SIGKILL and waits for it.
    pub async fn kill(&mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(LIMIT, self.child.wait()).await;
    }

    /// The server's process ID.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("the server is running")
    }

    /// Sends `signal` (`TERM`, `INT`) with `kill` and waits up to [`LIMIT`]
    /// for the process to exit; its exit status and all it wrote to stderr.
    pub async fn signal_and_wait(&mut self, signal: &str) -> (std::process::ExitStatus, String) {
        send_signal(self.pid(), signal);
        let status = tokio::time::timeout(LIMIT, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("the server did not exit within {LIMIT:?} of SIG{signal}"))
            .expect("the child can be waited for");
        if let Some(collector) = self.collector.take() {
            let _ = tokio::time::timeout(LIMIT, collector).await;
        }
        (status, self.stderr.lock().unwrap().join("\n"))
    }

    /// Panics unless the process is still running and never printed a panic.
    pub fn assert_alive(&mut self) {
        let status = self.child.try_wait().expect("the child can be polled");
        assert!(status.is_none(), "the server exited: {status:?}");
        let stderr = self.stderr.lock().unwrap();
        assert!(
            !stderr.iter().any(|line| line.contains("panicked")),
            "the server panicked:\n{}",
            stderr.join("\n")
        );
    }

    /// The server's resident set size in KiB, from `/proc/<pid>/status`.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("/proc/<pid>/status is readable");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS is present")
    }

    /// Connects a 2025-era rmcp client over streamable HTTP.
    pub async fn connect(&self) -> Session {
        Session::connect(http_transport(&self.mcp, None)).await
    }

    /// Sends a control-API request with `authorization` as the header (if
    /// any) and `body` (if any); the status and the answer as JSON (or as a
    /// JSON string when it is not JSON).
    pub async fn control(
        &self,
        http: &reqwest::Client,
        method: reqwest::Method,
        path: &str,
        authorization: Option<&str>,
        body: Option<String>,
    ) -> (u16, Value) {
        let mut request = http.request(method, format!("{}{path}", self.control));
        if let Some(value) = authorization {
            request = request.header("Authorization", value);
        }
        if let Some(body) = body {
            request = request
                .header("Content-Type", "application/json")
                .body(body);
        }
        let response = request.send().await.expect("the control API answers");
        let status = response.status().as_u16();
        let text = response.text().await.expect("the answer is readable");
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// `GET /api/v1/mcp/profile` with the right token: `{"profile", "tools"}`.
    pub async fn profile(&self, http: &reqwest::Client) -> Value {
        let (status, answer) = self
            .control(
                http,
                reqwest::Method::GET,
                "/api/v1/mcp/profile",
                Some(BEARER),
                None,
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        answer
    }

    /// `GET /api/v1/audit?{query}` with the right token: the page, its
    /// records' JSON form and `next`; panics unless it answers 200.
    pub async fn audit(&self, http: &reqwest::Client, query: &str) -> Value {
        let path = format!("/api/v1/audit?{query}");
        let (status, answer) = self
            .control(http, reqwest::Method::GET, &path, Some(BEARER), None)
            .await;
        assert_eq!(status, 200, "GET {path}: {answer}");
        answer
    }

    /// `PUT path` with the right token and `body`: the status and answer.
    pub async fn put(&self, http: &reqwest::Client, path: &str, body: Value) -> (u16, Value) {
        let body = Some(body.to_string());
        self.control(http, reqwest::Method::PUT, path, Some(BEARER), body)
            .await
    }

    /// `PUT path` with the right token; panics unless it answers 200.
    pub async fn put_ok(&self, http: &reqwest::Client, path: &str, body: Value) -> Value {
        let (status, answer) = self.put(http, path, body.clone()).await;
        assert_eq!(status, 200, "PUT {path} {body}: {answer}");
        answer
    }

    /// `PUT /api/v1/mcp/profile` with the right token; the answer.
    pub async fn replace(&self, http: &reqwest::Client, context: &str) -> Value {
        let (status, answer) = self
            .control(
                http,
                reqwest::Method::PUT,
                "/api/v1/mcp/profile",
                Some(BEARER),
                Some(context.to_owned()),
            )
            .await;
        assert_eq!(status, 200, "{context}: {answer}");
        answer
    }
}

/// Runs `kandev-mcp ARGS` to its end with stdin closed; panics if it takes
/// longer than [`LIMIT`].
pub fn run(args: &[&str]) -> std::process::Output {
    run_from(
        std::process::Command::new(env!("CARGO_BIN_EXE_kandev-mcp")),
        args,
    )
}

/// Like [`run`], under `prlimit --nofile=NOFILE` (see [`Server::start_limited`]).
pub fn run_limited(nofile: &str, args: &[&str]) -> std::process::Output {
    let mut prlimit = std::process::Command::new("prlimit");
    prlimit
        .arg(format!("--nofile={nofile}"))
        .arg(env!("CARGO_BIN_EXE_kandev-mcp"));
    run_from(prlimit, args)
}

fn run_from(mut program: std::process::Command, args: &[&str]) -> std::process::Output {
    let mut child = program
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kandev-mcp starts");
    let started = std::time::Instant::now();
    while child.try_wait().expect("the child can be polled").is_none() {
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("kandev-mcp {args:?} did not exit within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().expect("the output is readable")
}

/// A database made by `kandev-mcp init` (the demo board) in a temporary
/// directory of its own, removed with it.
pub struct Db {
    /// The directory; removed on drop.
    pub dir: tempfile::TempDir,
    /// The database file.
    pub path: PathBuf,
}

impl Db {
    /// Runs `kandev-mcp init --db DIR/board.db`; its parsed stdout too.
    pub fn init() -> (Db, Value) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("board.db");
        let output = run(&["init", "--db", path.to_str().unwrap()]);
        assert!(
            output.status.success(),
            "init: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let printed = serde_json::from_slice(&output.stdout).expect("init prints JSON");
        (Db { dir, path }, printed)
    }

    /// A read-only connection to the file, to look at what it holds.
    pub fn read_only(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(
            &self.path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("the database opens read-only")
    }

    /// The path as text, for command lines.
    pub fn arg(&self) -> &str {
        self.path.to_str().expect("a UTF-8 temporary path")
    }

    /// `serve` for task `task` of this database, with more `extra` flags.
    pub async fn serve(&self, task: &str, extra: &[&str]) -> Server {
        let mut args = vec!["--db", self.arg(), "--task", task];
        args.extend_from_slice(extra);
        Server::start_with_args(&args).await
    }
}
