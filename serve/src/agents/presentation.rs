//! Name presentation over a whole [`ProfileStore`]: one
//! [`Presentation`] attached to the controller of every agent the store
//! holds or makes, and the catalogs it must refuse.
//!
//! It is set once, while the store is built (like its catalog decoder),
//! not changed on a serving store: a store shared through Redis has one
//! presentation per deployment, so every instance must agree on it, and a
//! store whose agents came and went under different presentations could
//! not say which names its clients hold.

use mcp_profiles::{Presentation, PresentationError, ProfileController, Vocabulary};

use super::ProfileStore;

impl<S: Vocabulary> ProfileStore<S> {
    /// This store, every agent's sessions listing tool names under
    /// `presentation` (and calling tools by them, or by their canonical
    /// names): the agents it holds now and every one it makes later, here
    /// or as the local copy of a shared store.
    ///
    /// Refused, as `presentation` would be by
    /// [`ProfileController::set_presentation`], unless it is
    /// collision-free over every compiled tool of the registry and the
    /// installed catalog of each agent the store holds: the error names
    /// both tools, and no agent's names changed.
    ///
    /// Catalogs put through the store later are checked against it:
    /// [`AgentStore::put_catalog_if`](crate::AgentStore::put_catalog_if)
    /// refuses one whose tools would collide under it with
    /// [`StoreError::InvalidCatalog`](crate::StoreError::InvalidCatalog)
    /// naming both tools, and stores nothing. Profiles, versions, the kill
    /// switch and the control side keep canonical names; what sessions list
    /// ([`CatalogChange::tools`](crate::CatalogChange::tools) included) is
    /// presented.
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
    ///     async fn list_tickets_desk(&self) -> Result<CallToolResult, ErrorData> { todo!() }
    /// }
    ///
    /// use mcp_profiles::{Presentation, ProfileContext};
    /// use mcp_profiles_serve::ProfileStore;
    /// use std::sync::Arc;
    ///
    /// let presentation = Presentation::strip_suffix("_desk")?;
    /// let store = Arc::new(ProfileStore::<Demo>::default().with_presentation(presentation)?);
    /// let alice = store.add_agent("alice", ProfileContext::new(Surface::Ticket));
    /// let listed: Vec<_> = alice.tools().into_iter().map(|tool| tool.name).collect();
    /// assert_eq!(listed, ["list_tickets"]);
    /// assert_eq!(alice.current().tool_names(), ["list_tickets_desk"]); // canonical
    /// # Ok::<(), mcp_profiles::PresentationError>(())
    /// ```
    pub fn with_presentation(
        mut self,
        presentation: Presentation,
    ) -> Result<Self, PresentationError> {
        presentation.verify(S::registry())?;
        let held = self.held_controllers();
        // Every agent is checked before any is renamed, so a refusal leaves
        // the names of all of them as they were (short of a catalog the
        // backend installs meanwhile on a controller it holds, which the
        // controller then refuses the presentation for, alone).
        #[cfg(feature = "runtime-tools")]
        for controller in &held {
            if let Some(catalog) = controller.catalog() {
                presentation.verify_catalog(&catalog)?;
            }
        }
        for controller in &held {
            controller.set_presentation(presentation.clone())?;
        }
        self.presentation = Some(presentation);
        Ok(self)
    }

    /// The presentation every agent's sessions list tool names under, if
    /// the store has one (see [`with_presentation`](Self::with_presentation)).
    pub fn presentation(&self) -> Option<&Presentation> {
        self.presentation.as_ref()
    }

    /// Puts the store's presentation on `controller`, a new agent's, before
    /// any session sees it.
    pub(super) fn present(&self, controller: &ProfileController<S>) {
        let Some(presentation) = &self.presentation else {
            return;
        };
        // It was proven over the registry when the store took it, and a new
        // controller has no catalog yet, so this cannot be refused; were it
        // to be, the agent lists canonical names, which every tool answers to.
        if let Err(error) = controller.set_presentation(presentation.clone()) {
            tracing::error!(%error, "the store's name presentation was refused for an agent");
        }
    }
}
