//! The cache of presented lists: one per compiled snapshot a presentation
//! has served, so `tools/list` under a presentation costs what it costs
//! without one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::Tool;

/// Presented lists by compiled snapshot address. Snapshots live as long as
/// the process, so an address never names another list, and the cache is
/// bounded like the snapshots themselves (one per distinct visible set).
#[derive(Default)]
pub(super) struct PresentedLists {
    built: Mutex<HashMap<usize, Arc<[Tool]>>>,
}

impl PresentedLists {
    /// The list cached for the snapshot at `address`, built by `build` on
    /// first use.
    pub fn get_or_build(&self, address: usize, build: impl FnOnce() -> Arc<[Tool]>) -> Arc<[Tool]> {
        let mut built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(built.entry(address).or_insert_with(build))
    }
}
