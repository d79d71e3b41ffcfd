//! Narrower views of an agent's profile: one controller per distinct
//! [`Narrowing`] of a principal, kept in step with the agent's controller,
//! so that a session served through a view hears one `list_changed` when
//! the backend's change reaches what the view shows.

use mcp_profiles::{ProfileController, Vocabulary};
// Views are made for the OAuth layer's narrowed tokens only.
#[cfg(feature = "oauth")]
use mcp_profiles::ProfileHandle;

#[cfg(feature = "oauth")]
use super::Narrowing;
use super::ProfileStore;
use crate::identity::Principal;

impl<S: Vocabulary> ProfileStore<S> {
    /// The profile `principal`'s agent serves through `narrowing`: the
    /// agent's own when the narrowing takes nothing away, else a view made
    /// on first use and kept while the agent is. `None` if the principal
    /// has no agent.
    #[cfg(feature = "oauth")]
    pub(crate) fn view(
        &self,
        principal: &Principal,
        narrowing: &Narrowing<S>,
    ) -> Option<ProfileHandle<S>> {
        {
            let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
            let agent = agents.get(principal)?;
            if narrowing.is_none() {
                return Some(agent.controller.handle());
            }
            if let Some(view) = agent.views.get(narrowing) {
                return Some(view.handle());
            }
        }
        // Made under the writing lock, so no replacement of the agent falls
        // between reading its profile and booking the view that follows it.
        let _writing = self.write_lock();
        let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
        let agent = agents.get_mut(principal)?;
        if let Some(view) = agent.views.get(narrowing) {
            return Some(view.handle());
        }
        let view = self.new_controller(
            narrowing.apply(agent.controller.current().context()),
            agent.controller.revision(),
            Some(principal.name()),
        );
        follow_catalog(&agent.controller, &view);
        agent.views.insert(narrowing.clone(), view.clone());
        Some(view.handle())
    }

    /// Brings every view of `principal`'s agent to its profile (and
    /// catalog) now; called after each change of the agent, the writing
    /// lock held.
    pub(super) fn sync_views(&self, principal: &Principal) {
        let (controller, views): (ProfileController<S>, Vec<_>) = {
            let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
            let Some(agent) = agents
                .get(principal)
                .filter(|agent| !agent.views.is_empty())
            else {
                return;
            };
            let views = agent
                .views
                .iter()
                .map(|(narrowing, view)| (narrowing.clone(), view.clone()))
                .collect();
            (agent.controller.clone(), views)
        };
        let context = *controller.current().context();
        let revision = controller.revision();
        // Replaced outside the agents' lock: replacing notifies sessions.
        for (narrowing, view) in views {
            let narrowed = narrowing.apply(&context);
            #[cfg(feature = "runtime-tools")]
            view.at_revision(revision)
                .replace_with_catalog(narrowed, controller.catalog());
            #[cfg(not(feature = "runtime-tools"))]
            view.at_revision(revision).replace(narrowed);
        }
    }
}

/// Installs `agent`'s catalog on a new view of it.
#[cfg_attr(not(feature = "runtime-tools"), expect(unused_variables))]
#[cfg(feature = "oauth")]
fn follow_catalog<S: Vocabulary>(agent: &ProfileController<S>, view: &ProfileController<S>) {
    #[cfg(feature = "runtime-tools")]
    if let Some(catalog) = agent.catalog() {
        // The agent's controller admitted it under the same presentation.
        let _ = view.set_catalog(Some(&catalog));
    }
}
