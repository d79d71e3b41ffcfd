//! Fixtures shared by the cross-crate tests: a small task server whose tool
//! groups live in separate files of this library crate, linked into the test
//! binaries only through `linkme`.

pub mod groups;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A task server with one call counter per tool, so tests can prove a
/// handler ran or did not.
#[derive(Clone, Default)]
pub struct TaskServer {
    calls: Arc<std::sync::Mutex<std::collections::BTreeMap<&'static str, Arc<AtomicUsize>>>>,
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
