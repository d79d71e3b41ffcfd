//! The identity each OAuth principal's sessions are bound to: one per
//! principal for as long as any session or request holds it, so that a
//! 2025-era session answers every token of the principal that opened it
//! and no other's; ended, with every session bound to it, when the
//! principal's agent is removed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use crate::identity::{Grant, Principal};

/// The map is swept of identities nothing holds at no fewer entries.
const SWEEP_FLOOR: usize = 64;

#[derive(Default)]
pub(crate) struct Identities {
    by_principal: Mutex<HashMap<String, Weak<Grant>>>,
}

impl Identities {
    /// `principal`'s identity: the one its live sessions hold, else a new one.
    pub(crate) fn of(&self, principal: &str) -> Arc<Grant> {
        let mut identities = self.by_principal.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(grant) = identities.get(principal).and_then(Weak::upgrade) {
            return grant;
        }
        // Swept as the map reaches each power of two: it stays within
        // twice the identities something holds.
        if identities.len() >= SWEEP_FLOOR && identities.len().is_power_of_two() {
            identities.retain(|_, grant| grant.strong_count() > 0);
        }
        let grant = Arc::new(Grant::new(Principal::new(principal)));
        identities.insert(principal.to_owned(), Arc::downgrade(&grant));
        grant
    }

    /// Forgets `principal`'s identity, returning it if something holds it:
    /// the next request of the principal gets a new one.
    pub(crate) fn take(&self, principal: &str) -> Option<Arc<Grant>> {
        let mut identities = self.by_principal.lock().unwrap_or_else(|e| e.into_inner());
        identities.remove(principal)?.upgrade()
    }
}
