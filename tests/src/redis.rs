//! A real `redis-server` for the tests, on a free loopback port with a
//! temporary directory, killed when dropped.
//!
//! It keeps an append-only file (`--appendonly yes --appendfsync always`):
//! the restart tests kill it with SIGKILL and start it again on the same
//! port and directory, and a deployment that must not lose profiles
//! persists them the same way; without it a restart would come back empty.
//!
//! Without `redis-server` on `PATH`, [`RedisServer::start`] says plainly on
//! the terminal that the Redis tests were skipped and which command runs
//! them, and returns `None`; with `MCP_PROFILES_REQUIRE_REDIS=1` (set by
//! CI) it panics instead, so CI never skips them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The variable that turns a missing `redis-server` into a failure.
pub const REQUIRE: &str = "MCP_PROFILES_REQUIRE_REDIS";

/// The command that runs the Redis tests.
pub const RUN_THEM: &str = "apt-get install -y redis-server && cargo test -p mcp-profiles-tests --test integration redis_ && cargo test -p kandev-mcp --test integration gateway";

/// One `redis-server` child process.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
    /// Arguments after the usual ones (the cluster's nodes add cluster
    /// mode), kept for [`restart`](Self::restart).
    extra: Vec<String>,
}

impl RedisServer {
    /// Starts a server, or says the tests were skipped and returns `None`
    /// when `redis-server` is not installed (panics under [`REQUIRE`]).
    pub fn start() -> Option<RedisServer> {
        if !available() {
            return None;
        }
        let port = free_port();
        let dir =
            std::env::temp_dir().join(format!("mcp-profiles-redis-{}-{port}", std::process::id()));
        Some(RedisServer::spawn_with(port, dir, &[]))
    }

    /// Starts a server on `port` in `dir` (created; removed on drop) with
    /// `extra` arguments after the usual ones, and waits until it answers.
    /// For [`crate::redis_cluster`], whose nodes need ports and arguments
    /// of their own.
    pub(crate) fn spawn_with(port: u16, dir: PathBuf, extra: &[&str]) -> RedisServer {
        std::fs::create_dir_all(&dir).expect("a temporary directory for redis-server");
        let mut server = RedisServer {
            child: None,
            port,
            dir,
            extra: extra.iter().map(|arg| (*arg).to_owned()).collect(),
        };
        server.spawn();
        server
    }

    /// `redis://127.0.0.1:PORT/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether it runs (was not [`kill`](Self::kill)ed since it started).
    pub(crate) fn running(&self) -> bool {
        self.child.is_some()
    }

    /// Kills the server with SIGKILL (no shutdown save) and waits for it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port and directory (its append-only
    /// file brings the data back).
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    fn spawn(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .arg("--dir")
            .arg(&self.dir)
            .args(&self.extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !answers(self.port) {
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer PING within 10 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends one command (e.g. `CLIENT KILL TYPE pubsub`) and returns the
    /// first line of the answer.
    pub fn command(&self, args: &[&str]) -> String {
        command(self.port, args)
    }

    /// Sends one command and returns its whole answer: a status, an error,
    /// an integer or a bulk string as one item (a nil as none), an array as
    /// its items in order (nested ones flattened). For tests that look at
    /// the keys themselves (`KEYS *`, `HGETALL key`).
    pub fn query(&self, args: &[&str]) -> Vec<String> {
        query(self.port, args)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Whether the Redis tests can run: `redis-server` is on `PATH`. When it is
/// not, says once that they were skipped, or panics under [`REQUIRE`].
pub(crate) fn available() -> bool {
    if installed() {
        return true;
    }
    if std::env::var(REQUIRE).is_ok_and(|value| value == "1") {
        panic!(
            "{REQUIRE}=1 but `redis-server` is not on PATH: install it (apt-get install -y redis-server)"
        );
    }
    // Once per test binary, in one write, straight to the terminal
    // (libtest captures `eprintln!`).
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        let message = format!(
            "\nSKIPPED: the Redis tests did not run: `redis-server` is not on PATH. Run them with:\n    {RUN_THEM}\n\n"
        );
        let _ = std::io::stderr().write_all(message.as_bytes());
    });
    false
}

fn installed() -> bool {
    Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// A port nothing listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}

/// [`RedisServer::command`] on the server at `port`.
pub(crate) fn command(port: u16, args: &[&str]) -> String {
    let mut stream = send(port, &[args]);
    let mut answer = Vec::new();
    let mut byte = [0u8; 1];
    while stream.read_exact(&mut byte).is_ok() && byte[0] != b'\n' {
        answer.push(byte[0]);
    }
    String::from_utf8_lossy(&answer).trim_end().to_owned()
}

/// [`RedisServer::query`] on the server at `port`.
pub(crate) fn query(port: u16, args: &[&str]) -> Vec<String> {
    pipeline(port, &[args]).remove(0)
}

/// Sends `commands` on one connection and returns each one's answer as
/// [`query`] does. For commands that depend on an earlier one of the same
/// connection: `WAIT` counts the replicas that have this connection's last
/// write, `READONLY` lets a cluster replica answer reads.
pub(crate) fn pipeline(port: u16, commands: &[&[&str]]) -> Vec<Vec<String>> {
    let mut reader = BufReader::new(send(port, commands));
    commands
        .iter()
        .map(|_| {
            let mut items = Vec::new();
            read_reply(&mut reader, &mut items);
            items
        })
        .collect()
}

/// A connection that has sent `commands`.
fn send(port: u16, commands: &[&[&str]]) -> TcpStream {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream = TcpStream::connect(addr).expect("redis-server accepts");
    let mut request = String::new();
    for args in commands {
        request.push_str(&format!("*{}\r\n", args.len()));
        for arg in *args {
            request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
    }
    stream
        .write_all(request.as_bytes())
        .expect("the command is sent");
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    stream
}

/// Whether the server at `port` answers `PING` with `PONG` (after loading
/// its data).
fn answers(port: u16) -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut answer = [0u8; 7];
    stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
}

/// Reads one RESP reply into `items` (see [`RedisServer::query`]).
fn read_reply(reader: &mut impl BufRead, items: &mut Vec<String>) {
    let mut line = String::new();
    reader.read_line(&mut line).expect("redis-server answers");
    let line = line.trim_end_matches(['\r', '\n']);
    let (kind, rest) = line.split_at(1.min(line.len()));
    let count = || -> i64 {
        rest.parse()
            .unwrap_or_else(|_| panic!("a length in {line:?}"))
    };
    match kind {
        "$" => {
            let Ok(length) = usize::try_from(count()) else {
                return;
            };
            let mut bulk = vec![0u8; length + 2];
            reader.read_exact(&mut bulk).expect("the whole bulk string");
            bulk.truncate(length);
            items.push(String::from_utf8_lossy(&bulk).into_owned());
        }
        "*" => {
            for _ in 0..count().max(0) {
                read_reply(reader, items);
            }
        }
        _ => items.push(rest.to_owned()),
    }
}
