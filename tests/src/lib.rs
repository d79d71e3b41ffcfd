//! Fixtures shared by the cross-crate tests: a small task server whose tool
//! groups live in separate files of this library crate, linked into the test
//! binaries only through `linkme`, and an MCP client that counts
//! `notifications/tools/list_changed`.

pub mod announced;
pub mod audit;
pub mod browser;
pub mod client;
pub mod clinic;
pub mod contexts;
// Not in this crate's own `cargo test`: `vocabulary!` adds a test there that
// checks the token budgets, and this server is over one on purpose.
#[cfg(not(test))]
pub mod costly;
pub mod depot;
pub mod groups;
pub mod library;
pub mod modern;
pub mod node_sdk;
pub mod oauth;
pub mod raw;
pub mod redis;
pub mod redis_cluster;
pub mod shadow;
pub mod waits;

/// The migration guide's "before" and "after" servers, compiled as doctests
/// so the guide cannot drift from the crate.
#[cfg(doctest)]
#[doc = include_str!("../../docs/migrating-from-tool-router.md")]
pub struct MigrationGuide;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

/// A task server with one call counter per tool, so tests can prove a
/// handler ran or did not.
#[derive(Clone)]
pub struct TaskServer {
    calls: Arc<Mutex<BTreeMap<&'static str, Arc<AtomicUsize>>>>,
    /// Permits `wait_for_release` waits for.
    release: Arc<Semaphore>,
}

impl Default for TaskServer {
    fn default() -> Self {
        TaskServer {
            calls: Arc::default(),
            release: Arc::new(Semaphore::new(0)),
        }
    }
}

impl TaskServer {
    /// Records one call of `tool`.
    pub fn record(&self, tool: &'static str) {
        let counter = {
            let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(calls.entry(tool).or_default())
        };
        counter.fetch_add(1, Ordering::SeqCst);
    }

    /// How often `tool`'s handler ran.
    pub fn calls(&self, tool: &str) -> usize {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.get(tool).map_or(0, |c| c.load(Ordering::SeqCst))
    }

    /// Waits until `tool`'s handler ran `n` times, polling: a test's
    /// outer timeout bounds it.
    pub async fn wait_for_calls(&self, tool: &str, n: usize) {
        while self.calls(tool) < n {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    }

    /// Lets `n` waiting `wait_for_release` calls finish.
    pub fn release(&self, n: usize) {
        self.release.add_permits(n);
    }

    /// Waits for one permit from [`release`](Self::release).
    pub async fn wait_released(&self) {
        self.release
            .acquire()
            .await
            .expect("the semaphore is never closed")
            .forget();
    }
}

/// Everything but tools is rmcp's default; the tools are the registry's.
impl rmcp::ServerHandler for TaskServer {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        let mut info = rmcp::model::ServerConfig::default();
        info.server_info.name = "task-server".into();
        info
    }
}

mcp_profiles::vocabulary! {
    server TaskServer;

    /// Where a session runs.
    #[surfaces]
    pub enum Surface {
        /// A coding task on the board.
        KanbanTask,
        OfficeTask,
        Configuration,
        External,
    }

    #[capabilities]
    pub enum Capability {
        UserQuestion,
        #[exclusive_with(UserQuestion)]
        ParentQuestion,
        TaskTitle,
    }

    #[providers]
    pub enum Provider {
        Github,
        #[rename = "gitlab"]
        GitLab,
    }
}

/// The repository README's Rust code, compiled and run as doc tests so that a
/// snippet that stops compiling fails `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
