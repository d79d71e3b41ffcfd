//! The official TypeScript MCP SDK, run by Node: the tests that check our
//! servers against a client that is not rmcp's (OAuth, tool search).
//!
//! `scripts/oauth-sdk.sh install` installs Node and the SDK with npm under
//! `$CARGO_TARGET_DIR/oauth-sdk` (default `target/oauth-sdk`). Without them
//! [`Sdk::find`] says on the terminal that the test was skipped and how to
//! run it, and returns `None`; with `MCP_PROFILES_REQUIRE_OAUTH_SDK=1` (set
//! by CI) it panics instead.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::Command;

/// The variable that turns a missing SDK into a failure.
pub const REQUIRE: &str = "MCP_PROFILES_REQUIRE_OAUTH_SDK";

/// Node and the SDK under `target/oauth-sdk`.
pub struct Sdk {
    prefix: PathBuf,
}

impl Sdk {
    /// The installed SDK, or `None` after saying that `test` (a
    /// description) was skipped and that `run_it` runs it (panics under
    /// [`REQUIRE`]).
    pub fn find(test: &str, run_it: &str) -> Option<Sdk> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace root");
        // Where scripts/oauth-sdk.sh installs: $CARGO_TARGET_DIR/oauth-sdk.
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| root.join("target"), |dir| root.join(dir));
        let sdk = Sdk {
            prefix: target.join("oauth-sdk"),
        };
        if sdk.node_binary().is_file()
            && sdk
                .prefix
                .join("node_modules/@modelcontextprotocol/sdk/package.json")
                .is_file()
        {
            return Some(sdk);
        }
        let missing = format!(
            "node and @modelcontextprotocol/sdk are not installed in {}",
            sdk.prefix.display()
        );
        if std::env::var(REQUIRE).is_ok_and(|value| value == "1") {
            panic!("{REQUIRE}=1 but {missing}: run scripts/oauth-sdk.sh install");
        }
        // Straight to the terminal: libtest captures `eprintln!`.
        let message = format!(
            "\nSKIPPED: {test} did not run: {missing}. Run it with:\n    bash scripts/oauth-sdk.sh install && {run_it}\n\n"
        );
        let _ = std::io::stderr().write_all(message.as_bytes());
        None
    }

    fn node_binary(&self) -> PathBuf {
        self.prefix.join("node_modules/.bin/node")
    }

    /// The node scripts `names` of `tests/node/<dir>`, copied beside
    /// `node_modules` so that their imports resolve there (Node resolves an
    /// ES module's imports from its own directory up, not from
    /// `NODE_PATH`); removed when dropped.
    pub fn scripts(&self, dir: &str, names: &[&str]) -> Scripts {
        let copy = self
            .prefix
            .join(format!("run-{dir}-{}", std::process::id()));
        std::fs::create_dir_all(&copy).expect("a directory for the node scripts");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("node").join(dir);
        for name in names {
            std::fs::copy(source.join(name), copy.join(name)).expect("the node script is copied");
        }
        Scripts(copy)
    }

    /// `node SCRIPT`, its stdout and stderr piped, killed when dropped.
    pub fn node(&self, script: &Path) -> Command {
        let mut command = Command::new(self.node_binary());
        command
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("NO_COLOR", "1")
            .kill_on_drop(true);
        command
    }
}

/// Copies of node scripts, removed when dropped.
pub struct Scripts(PathBuf);

impl Scripts {
    /// The copy of script `name`.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scripts {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
