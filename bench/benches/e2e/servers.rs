//! The servers under load: `e2e-server` child processes on 127.0.0.1.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};

/// One running server; dropping it closes its stdin, which stops it.
pub struct ServerProcess {
    pub name: String,
    pub uri: String,
    child: Child,
    stdin: Option<ChildStdin>,
}

impl ServerProcess {
    /// Starts `e2e-server NAME --http 127.0.0.1:0` with `profile` and
    /// `threads` workers (on CPU 1 when `pin`) and waits for its address.
    pub fn spawn(name: &str, profile: &str, threads: usize, pin: bool) -> ServerProcess {
        let server = env!("CARGO_BIN_EXE_e2e-server");
        let mut command = if pin {
            let mut command = Command::new("taskset");
            command.args(["-c", "1", server]);
            command
        } else {
            Command::new(server)
        };
        let mut child = command
            .args([name, "--http", "127.0.0.1:0", "--profile", profile])
            .args(["--threads", &threads.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {server}: {error}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("the server's address");
        let addr = line.trim();
        assert!(!addr.is_empty(), "{name} exited before listening");
        ServerProcess {
            name: name.to_owned(),
            uri: format!("http://{addr}/mcp"),
            stdin: child.stdin.take(),
            child,
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Pins this process (every thread) to CPU 0.
pub fn pin_self() {
    let status = Command::new("taskset")
        .args(["-a", "-c", "-p", "0", &std::process::id().to_string()])
        .stdout(Stdio::null())
        .status();
    assert!(
        status.is_ok_and(|status| status.success()),
        "taskset could not pin the generator"
    );
}
