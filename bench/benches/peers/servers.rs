//! The servers of the `peers` bench: child processes on 127.0.0.1 that all
//! speak the same side channel on their stdin and stdout.
//!
//! Each prints its bound address as its first stdout line; each stdin line
//! switches every session to the other profile and is answered with one
//! stdout line once the switch call returned; closing stdin stops it.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// One running server.
pub struct ServerProcess {
    pub name: String,
    pub uri: String,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
}

impl ServerProcess {
    /// Starts `command` (on CPU 1 when `pin`) and waits for its address.
    pub fn spawn(name: &str, program: &str, args: &[String], pin: bool) -> ServerProcess {
        let mut command = if pin {
            let mut command = Command::new("taskset");
            command.args(["-c", "1", program]);
            command
        } else {
            Command::new(program)
        };
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {name} ({program}): {error}"));
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the server's address");
        let addr = line.trim();
        assert!(!addr.is_empty(), "{name} exited before listening");
        ServerProcess {
            name: name.to_owned(),
            uri: format!("http://{addr}/mcp"),
            child,
            stdin,
            stdout: Some(stdout),
        }
    }

    /// Asks for a switch; returns once the request is written (the clock
    /// starts before this call).
    pub fn send_switch(&mut self) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(b"switch\n").expect("the switch request");
        stdin.flush().expect("the switch request");
    }

    /// The server's answer to the last switch, read off the runtime's
    /// threads (it may come after the notifications do).
    pub async fn switched(&mut self) -> String {
        let mut stdout = self.stdout.take().expect("stdout");
        let (stdout, line) = tokio::task::spawn_blocking(move || {
            let mut line = String::new();
            stdout.read_line(&mut line).expect("the switch answer");
            (stdout, line)
        })
        .await
        .expect("reading the switch answer");
        self.stdout = Some(stdout);
        let line = line.trim().to_owned();
        assert!(
            line.starts_with("switched"),
            "{}: unexpected switch answer `{line}`",
            self.name
        );
        line
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/peers.sh")
}

/// The version `scripts/peers.sh` pins in its variable `name` (`TS_SDK`,
/// `FASTMCP`, `UVICORN`): one place says which versions ran.
pub fn pinned(name: &str) -> String {
    let text = std::fs::read_to_string(script()).expect("scripts/peers.sh");
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("scripts/peers.sh pins no {name}"))
        .to_owned()
}

/// Runs `scripts/peers.sh` for `peers` (installing what is missing) and
/// returns each one's command line.
pub fn install(peers: &[&str]) -> Vec<(String, Vec<String>)> {
    if peers.is_empty() {
        return Vec::new();
    }
    let script = script();
    let output = Command::new("bash")
        .arg(&script)
        .args(peers)
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", script.display()));
    assert!(
        output.status.success(),
        "{} failed: the peers need npm (Node) and python3",
        script.display()
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8 command lines")
        .lines()
        .map(|line| {
            let mut words = line.split_whitespace().map(str::to_owned);
            let name = words.next().expect("a peer name");
            (name, words.collect())
        })
        .collect()
}
