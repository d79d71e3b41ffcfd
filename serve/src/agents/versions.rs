//! What a store's writes read of an agent's versions here, and how a
//! restarted store's versions go on from its trail's.

use mcp_profiles::{ProfileContext, Vocabulary};

use super::ProfileStore;
use crate::identity::Principal;

impl<S: Vocabulary> ProfileStore<S> {
    /// `principal`'s agent as it stands (its context and version), and the
    /// version a put would give it.
    pub(crate) fn standing(&self, principal: &str) -> (Option<(ProfileContext<S>, u64)>, u64) {
        let removed = self.write_lock();
        let key = Principal::new(principal);
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        match agents.get(&key) {
            Some(agent) => {
                let context = *agent.controller.current().context();
                (Some((context, agent.version)), agent.version + 1)
            }
            None => (None, removed.get(&key).map_or(1, |last| last + 1)),
        }
    }

    /// Makes `principal`'s versions go on from `last`: an agent put for it
    /// next is at version `last + 1` at least (see
    /// [`MemoryStore::resume_versions`](crate::MemoryStore::resume_versions)).
    pub(crate) fn resume_versions(&self, principal: &str, last: u64) {
        let mut removed = self.write_lock();
        let held = removed.entry(Principal::new(principal)).or_default();
        *held = (*held).max(last);
    }
}
