//! Whether a controller's sessions are served MCP's grouping extension
//! (see [`crate::grouping`]).

use std::sync::atomic::Ordering;

use std::sync::Arc;

use super::ProfileController;
use crate::Vocabulary;
use crate::disclosure::{Disclosure, NameTaken};

impl<S: Vocabulary> ProfileController<S> {
    /// Serves MCP's draft grouping extension (`on`) to every session of
    /// this controller whose client declares it, or stops (off by default;
    /// see [`crate::GROUPING_EXTENSION`]): `groups/list` answers the groups
    /// the profile enables, each listed tool names its groups in `_meta`,
    /// and a replacement that changes the groups sends one
    /// `notifications/groups/list_changed`. A client that does not declare
    /// the extension is answered as before.
    ///
    /// ```
    /// # mod server {
    /// #     #[derive(Clone)] pub struct Demo;
    /// #     impl rmcp::ServerHandler for Demo {}
    /// # }
    /// # use server::Demo;
    /// # mcp_profiles::vocabulary! {
    /// #     server Demo;
    /// #     #[surfaces] pub enum Surface { Ticket }
    /// #     #[capabilities] pub enum Capability {}
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// use mcp_profiles::{ProfileContext, ProfileController};
    ///
    /// let controller = ProfileController::<Demo>::new(ProfileContext::new(Surface::Ticket))
    ///     .with_grouping();
    /// # drop(controller);
    /// ```
    pub fn set_grouping(&self, on: bool) {
        self.cell.grouping.store(on, Ordering::Relaxed);
    }

    /// This controller, serving the grouping extension (see
    /// [`set_grouping`](Self::set_grouping)).
    pub fn with_grouping(self) -> Self {
        self.set_grouping(true);
        self
    }

    /// Discloses the profile's tools progressively to every 2025-era
    /// session of this controller (see [`Disclosure`]): each lists the
    /// always-listed groups and the activation tool, and more groups of its
    /// profile as it activates them, append-only. Set once, before serving;
    /// `false` if a disclosure was set already (nothing changes).
    ///
    /// # Errors
    ///
    /// [`NameTaken`] when a compiled tool has the activation tool's name.
    pub fn set_disclosure(&self, disclosure: Disclosure<S>) -> Result<bool, NameTaken> {
        disclosure.check()?;
        Ok(self.cell.disclosure.set(Arc::new(disclosure)).is_ok())
    }
}
