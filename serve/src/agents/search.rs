//! Tool search over a whole [`ProfileStore`]: one [`ToolSearch`] on the
//! controller of every agent the store holds or makes. Set while the store
//! is built, like its name presentation, and for the same reason: every
//! instance sharing a store must list alike.

use mcp_profiles::{PresentationError, ProfileController, ToolSearch, Vocabulary};

use super::ProfileStore;

impl<S: Vocabulary> ProfileStore<S> {
    /// This store, every agent's sessions served with `search` where it
    /// applies (see [`ProfileController::set_tool_search`]): the agents it
    /// holds now and every one it makes later, here or as the local copy
    /// of a shared store.
    ///
    /// Refused if a compiled tool, or a tool of an agent's installed
    /// catalog, is (or under the store's presentation is listed as) one of
    /// search's names; catalogs put through the store later are checked
    /// likewise and refused with
    /// [`StoreError::InvalidCatalog`](crate::StoreError::InvalidCatalog).
    /// Attach the presentation first.
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
    /// # use rmcp::{ErrorData, model::CallToolResult, tool};
    /// #[mcp_profiles::tool_group(name = "tickets", surface = "ticket")]
    /// impl Demo {
    ///     #[tool(description = "List the open tickets")]
    ///     async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> { todo!() }
    /// }
    ///
    /// use mcp_profiles::{ProfileContext, ToolSearch};
    /// use mcp_profiles_serve::ProfileStore;
    ///
    /// let store = ProfileStore::<Demo>::default().with_tool_search(ToolSearch::new())?;
    /// let alice = store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// let listed: Vec<_> = alice.tools().into_iter().map(|tool| tool.name).collect();
    /// assert_eq!(listed, ["call_tool", "search_tools"]);
    /// assert_eq!(alice.reachable_tools()[0].name, "list_tickets");
    /// # Ok::<(), mcp_profiles::PresentationError>(())
    /// ```
    pub fn with_tool_search(mut self, search: ToolSearch<S>) -> Result<Self, PresentationError> {
        let held = self.held_controllers();
        // Every agent is checked before any is changed.
        #[cfg(feature = "runtime-tools")]
        for controller in &held {
            if let Some(catalog) = controller.catalog() {
                search.verify_catalog(&catalog, self.presentation.as_ref())?;
            }
        }
        for controller in &held {
            controller.set_tool_search(search.clone())?;
        }
        self.tool_search = Some(search);
        Ok(self)
    }

    /// The tool search on every agent's sessions, if the store has one.
    pub fn tool_search(&self) -> Option<&ToolSearch<S>> {
        self.tool_search.as_ref()
    }

    /// Puts the store's tool search on `controller`, a new agent's.
    pub(super) fn search(&self, controller: &ProfileController<S>) {
        let Some(search) = &self.tool_search else {
            return;
        };
        // A new controller has no catalog, and the names were checked
        // against every compiled tool when the store took the search.
        if let Err(error) = controller.set_tool_search(search.clone()) {
            tracing::error!(%error, "the store's tool search was refused for an agent");
        }
    }
}
