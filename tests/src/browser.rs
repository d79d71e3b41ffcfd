//! Headless Chromium, driven over WebDriver through `chromedriver`: the
//! real browser the admin page's tests log in with and submit forms from.
//!
//! Without `chromedriver` and `chromium` on `PATH`, [`Browser::start`] says
//! on the terminal that the browser tests were skipped and which command
//! runs them, and returns `None`; with `MCP_PROFILES_REQUIRE_BROWSER=1`
//! (set by CI, which installs Debian's `chromium` and `chromium-driver`)
//! it panics instead, so CI never skips them.

use std::io::Write;
use std::net::TcpListener;
use std::process::Stdio;
use std::time::{Duration, Instant};

use fantoccini::error::{CmdError, ErrorStatus};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use tokio::process::{Child, Command};

/// The variable that turns a missing browser into a failure.
pub const REQUIRE: &str = "MCP_PROFILES_REQUIRE_BROWSER";

/// The command that runs the browser tests.
pub const RUN_THEM: &str = "apt-get install -y chromium chromium-driver && cargo test -p kandev-mcp --test integration admin";

/// How long chromedriver and page loads may take.
const PATIENCE: Duration = Duration::from_secs(30);

/// A headless Chromium session and the chromedriver serving it; both end
/// with [`close`](Self::close), or when dropped (a test that panicked):
/// chromedriver runs in a process group of its own, with the browsers it
/// starts, and the whole group is killed.
pub struct Browser {
    client: Client,
    driver: Child,
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(group) = self.driver.id() {
            // Chromium outlives a killed chromedriver: end the group.
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{group}")])
                .stderr(Stdio::null())
                .status();
        }
    }
}

impl Browser {
    /// Starts chromedriver and a headless Chromium, or says the tests were
    /// skipped and returns `None` when either is not installed (panics
    /// under [`REQUIRE`]).
    pub async fn start() -> Option<Browser> {
        let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
            .into_iter()
            .find_map(on_path)
        else {
            return skipped("no `chromium` on PATH");
        };
        if on_path("chromedriver").is_none() {
            return skipped("no `chromedriver` on PATH");
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .expect("chromedriver starts");
        let url = format!("http://127.0.0.1:{port}");
        let capabilities = json!({
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                    "--disable-gpu", "--window-size=1280,1600", "--lang=en-US",
                ],
            }
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            unreachable!("an object")
        };
        let started = Instant::now();
        let client = loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(capabilities.clone())
                .connect(&url)
                .await
            {
                Ok(client) => break client,
                Err(error) if started.elapsed() > PATIENCE => {
                    panic!("no WebDriver session from chromedriver at {url}: {error}")
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        Some(Browser { client, driver })
    }

    /// The WebDriver client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Loads `url`.
    pub async fn goto(&self, url: &str) {
        self.client.goto(url).await.expect("the page loads");
    }

    /// The visible text of the element `css` selects.
    pub async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.expect("its text")
    }

    /// The element `css` selects, waiting for it to appear. A page still
    /// loading after a click (a form posted) is waited out too: chromedriver
    /// answers a command sent during a navigation with its own error code,
    /// `aborted by navigation`, which fantoccini's `wait().for_element`
    /// (0.22) cannot parse and gives up on (`NotW3C`); it waits on a
    /// missing element only.
    pub async fn find(&self, css: &str) -> fantoccini::elements::Element {
        let started = Instant::now();
        loop {
            let error = match self.client.find(Locator::Css(css)).await {
                Ok(element) => return element,
                Err(error) => error,
            };
            let transient = match &error {
                CmdError::Standard(failure) => failure.error == ErrorStatus::NoSuchElement,
                CmdError::NotW3C(serde_json::Value::String(code)) => {
                    code == "aborted by navigation"
                }
                _ => false,
            };
            if !transient || started.elapsed() > PATIENCE {
                panic!("no element `{css}`: {error}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Replaces the text of the field `css` selects with `text`.
    pub async fn fill(&self, css: &str, text: &str) {
        let field = self.find(css).await;
        // Chromium refuses to clear a field that is already empty.
        let value = field.prop("value").await.expect("the field's value");
        if value.is_some_and(|value| !value.is_empty()) {
            field
                .clear()
                .await
                .unwrap_or_else(|error| panic!("`{css}` does not clear: {error}"));
        }
        field
            .send_keys(text)
            .await
            .unwrap_or_else(|error| panic!("`{css}` takes no text: {error}"));
    }

    /// Clicks the element `css` selects.
    pub async fn click(&self, css: &str) {
        self.find(css)
            .await
            .click()
            .await
            .unwrap_or_else(|error| panic!("`{css}` takes no click: {error}"));
    }

    /// The current page's path.
    pub async fn path(&self) -> String {
        let url = self.client.current_url().await.expect("a current URL");
        url.path().to_owned()
    }

    /// Waits until the browser is at `path` (a click's navigation may
    /// still be under way when the click returns); panics with the page's
    /// text if it does not get there.
    pub async fn expect_path(&self, path: &str) {
        let started = Instant::now();
        while self.path().await != path {
            if started.elapsed() > PATIENCE {
                let text = self.text("body").await;
                panic!("at {} instead of {path}: {text}", self.path().await);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A PNG of the whole viewport.
    pub async fn screenshot(&self) -> Vec<u8> {
        self.client.screenshot().await.expect("a screenshot")
    }

    /// Ends the browser session, then chromedriver's process group.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

fn on_path(program: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .map(|found| found.to_string_lossy().into_owned())
}

fn skipped(why: &str) -> Option<Browser> {
    if std::env::var(REQUIRE).is_ok_and(|value| value == "1") {
        panic!("{REQUIRE}=1 but {why}: install Debian's chromium and chromium-driver");
    }
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        let message = format!(
            "\nSKIPPED: the browser tests did not run: {why}. Run them with:\n    {RUN_THEM}\n\n"
        );
        let _ = std::io::stderr().write_all(message.as_bytes());
    });
    None
}
