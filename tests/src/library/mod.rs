//! A small library server whose profile decides its prompts and resources
//! (`#[prompt_group]`, `#[resource_group]`), with one call counter per
//! prompt and resource so tests can prove a handler ran or did not; and
//! `clash`, a server whose prompt and resource groups collide; and `shift`,
//! one whose prompt and resource change groups and nothing else.

// Not in this crate's own `cargo test`: `vocabulary!` adds a test there that
// the registry is valid, and this one is invalid on purpose.
#[cfg(not(test))]
pub mod clash;
mod content;
pub mod shift;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcp_profiles::ProfileContext;

/// The library: prompts on the desk, loans with the `lend` capability.
#[derive(Clone, Default)]
pub struct Library {
    calls: Arc<Mutex<BTreeMap<String, Arc<AtomicUsize>>>>,
}

impl rmcp::ServerHandler for Library {}

mcp_profiles::vocabulary! {
    server Library;

    #[surfaces]
    pub enum Surface { Shelf, Desk }

    #[capabilities]
    pub enum Capability { Lend }

    #[providers]
    pub enum Provider { Github }
}

impl Library {
    /// Records one call of `item` (a prompt name or a resource URI).
    pub fn record(&self, item: &str) {
        let counter = {
            let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(calls.entry(item.to_owned()).or_default())
        };
        counter.fetch_add(1, Ordering::SeqCst);
    }

    /// How often `item`'s handler ran.
    pub fn calls(&self, item: &str) -> usize {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.get(item).map_or(0, |c| c.load(Ordering::SeqCst))
    }
}

/// The shelf: only the always-on catalogue.
pub fn shelf() -> ProfileContext<Library> {
    ProfileContext::new(Surface::Shelf)
}

/// The desk: the reading prompt too.
pub fn desk() -> ProfileContext<Library> {
    ProfileContext::new(Surface::Desk)
}

/// The desk with `lend`: the lending prompt and the loans too.
pub fn lending() -> ProfileContext<Library> {
    desk()
        .with_capability(Capability::Lend)
        .expect("lend excludes nothing")
}
