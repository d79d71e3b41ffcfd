//! The operator's kill switch of a [`ProfileStore`]: one
//! [`KillSwitch`] over the controller of every agent the store makes, with
//! the version a shared store gave the list in force, so a feed message
//! applied twice or out of order changes nothing.

use mcp_profiles::{DenyList, KillSwitch, KillSwitchChange, Vocabulary};

use super::{Apply, ProfileStore};

/// What [`ProfileStore::apply_kill_switch`] did.
#[non_exhaustive]
pub enum KillSwitchOutcome<S: Vocabulary> {
    /// The list was put in force at the version given: one replacement per
    /// agent whose visible tools changed, each notifying its sessions once.
    Applied(KillSwitchChange<S>),
    /// The version given is not newer than the one held: nothing changed.
    Stale {
        /// The version held.
        held: u64,
    },
}

impl<S: Vocabulary> KillSwitchOutcome<S> {
    /// Whether the list was applied.
    pub fn applied(&self) -> bool {
        matches!(self, KillSwitchOutcome::Applied(_))
    }
}

impl<S: Vocabulary> std::fmt::Debug for KillSwitchOutcome<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KillSwitchOutcome::Applied(change) => f.debug_tuple("Applied").field(change).finish(),
            KillSwitchOutcome::Stale { held } => {
                f.debug_struct("Stale").field("held", held).finish()
            }
        }
    }
}

/// The switch and the version of the list in force; its lock serialises
/// changes, so a version and the list it stands for move together.
pub(super) struct Kill<S: Vocabulary> {
    pub(super) switch: KillSwitch<S>,
    pub(super) version: std::sync::Mutex<u64>,
}

impl<S: Vocabulary> Default for Kill<S> {
    fn default() -> Self {
        Kill {
            switch: KillSwitch::new(),
            version: std::sync::Mutex::new(0),
        }
    }
}

impl<S: Vocabulary> ProfileStore<S> {
    /// The operator's deny list in force over every agent of this store
    /// (the kill switch; not named `kill_switch`, which is
    /// [`AgentStore::kill_switch`](crate::AgentStore::kill_switch), the
    /// stored form, on the store that drives this one).
    pub fn killed(&self) -> DenyList<S> {
        self.kill.switch.killed()
    }

    /// The version of [`killed`](Self::killed): 0 before the
    /// first list, then the version each put gave it.
    pub fn kill_switch_version(&self) -> u64 {
        *self.kill_version()
    }

    /// Puts `killed` in force over every agent at `version`, as a shared
    /// store reports it, if `how` allows: [`Apply::Reset`] takes any other
    /// version (the shared store's state after a reconnect), every other
    /// way only a newer one. Each session whose visible tools changed gets
    /// one `list_changed`, every other session none.
    ///
    /// Like [`KillSwitch::set`], it must not be called from inside a
    /// [`ProfileController::update`](mcp_profiles::ProfileController::update)
    /// closure of one of the store's agents.
    ///
    /// ```
    /// # mod server {
    /// #     #[derive(Clone)] pub struct Demo;
    /// #     impl rmcp::ServerHandler for Demo {}
    /// # }
    /// # use server::Demo;
    /// # mcp_profiles::vocabulary! {
    /// #     server Demo;
    /// #     #[surfaces] pub enum Surface { Ticket, Chat }
    /// #     #[capabilities] pub enum Capability {}
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// # use rmcp::{ErrorData, model::CallToolResult, tool};
    /// #[mcp_profiles::tool_group(name = "tickets", surface = "ticket")]
    /// impl Demo {
    ///     #[tool(description = "Close the ticket")]
    ///     async fn close_ticket(&self) -> Result<CallToolResult, ErrorData> { todo!() }
    /// }
    ///
    /// use mcp_profiles::{DenyList, ProfileContext};
    /// use mcp_profiles_serve::{Apply, KillSwitchOutcome, ProfileStore};
    ///
    /// let store = ProfileStore::<Demo>::default();
    /// let alice = store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// let killed = DenyList::new(["close_ticket"])?;
    /// assert!(store.apply_kill_switch(killed, 1, Apply::IfServed).applied());
    /// assert!(alice.current().tool_names().is_empty());
    /// // The same message again, or an older one, changes nothing.
    /// let again = store.apply_kill_switch(DenyList::empty(), 1, Apply::IfServed);
    /// assert!(matches!(again, KillSwitchOutcome::Stale { held: 1 }));
    /// assert_eq!(store.killed(), killed);
    /// # Ok::<(), mcp_profiles::PolicyError>(())
    /// ```
    pub fn apply_kill_switch(
        &self,
        killed: DenyList<S>,
        version: u64,
        how: Apply,
    ) -> KillSwitchOutcome<S> {
        let mut held = self.kill_version();
        let newer = version > *held || (how == Apply::Reset && version != *held);
        if !newer {
            return KillSwitchOutcome::Stale { held: *held };
        }
        *held = version;
        KillSwitchOutcome::Applied(self.kill.switch.set(killed))
    }

    /// The list in force and its version, read together.
    pub(crate) fn kill_switch_in_force(&self) -> (DenyList<S>, u64) {
        let held = self.kill_version();
        (self.kill.switch.killed(), *held)
    }

    /// Puts `killed` in force, bumping the version, if the version is
    /// `expected` (`None`: any): the change and the version now in force;
    /// else the current version.
    pub(crate) fn set_kill_switch_if(
        &self,
        killed: DenyList<S>,
        expected: Option<u64>,
    ) -> Result<(KillSwitchChange<S>, u64), u64> {
        let mut held = self.kill_version();
        if expected.is_some_and(|expected| expected != *held) {
            return Err(*held);
        }
        *held += 1;
        Ok((self.kill.switch.set(killed), *held))
    }

    fn kill_version(&self) -> std::sync::MutexGuard<'_, u64> {
        self.kill.version.lock().unwrap_or_else(|e| e.into_inner())
    }
}
