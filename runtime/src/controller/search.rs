//! Attaching tool search to a controller ([`ToolSearch`]).

use std::sync::Arc;

use super::{Current, ProfileController};
use crate::notification::Kinds;
use crate::presentation::Presentation;
use crate::presentation_error::PresentationError;
use crate::search::ToolSearch;
use crate::{Vocabulary, presentation};

impl<S: Vocabulary> ProfileController<S> {
    /// Serves every session of this controller with tool search where
    /// `search` applies: `tools/list` answers the always-listed tools and
    /// search's two tools, and a search finds among every tool the profile
    /// serves, and only those. Replacing any earlier search, with one
    /// `tools/list_changed` per session when the listed tools changed.
    /// From then on, a replacement or catalog install sends `list_changed`
    /// only when what is *listed* changes; a search sees the change at
    /// once.
    ///
    /// Refused, changing nothing, if a compiled tool or a tool of the
    /// installed catalog is, or is presented as, one of search's names
    /// ([`PresentationError::ReservedBySearch`], naming both); catalogs
    /// installed later are checked likewise.
    pub fn set_tool_search(&self, search: ToolSearch<S>) -> Result<(), PresentationError> {
        let guard = self.lock();
        let previous = self.cell.current();
        search.check_names(self.served_names(&previous), previous.presentation())?;
        drop(previous);
        self.search_locked(Some(Arc::new(search)));
        drop(guard);
        Ok(())
    }

    /// Lists every tool again, with one `tools/list_changed` per session
    /// when that changed what is listed.
    pub fn clear_tool_search(&self) {
        let guard = self.lock();
        self.search_locked(None);
        drop(guard);
    }

    /// The attached tool search, if any.
    pub fn tool_search(&self) -> Option<ToolSearch<S>> {
        self.cell
            .current()
            .search_config()
            .map(|search| (*search).clone())
    }

    /// What a session lists now: the profile's compiled tools and the
    /// runtime tools its context enables, sorted by name; under the
    /// attached [`Presentation`], by their presented names; where tool
    /// search applies, the always-listed tools and search's own two.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.cell.current().list().to_vec()
    }

    /// Every tool a session can reach now: what it lists without tool
    /// search, and what search finds among (and its proxy calls) with it,
    /// sorted by name; under the attached [`Presentation`], by presented
    /// names.
    pub fn reachable_tools(&self) -> Vec<rmcp::model::Tool> {
        self.cell.current().reachable().to_vec()
    }

    /// Every canonical tool name this controller could list: every
    /// compiled tool and every tool of the installed catalog.
    pub(super) fn served_names<'a>(
        &'a self,
        current: &'a Current<S>,
    ) -> impl Iterator<Item = &'a str> + 'a {
        let compiled = presentation::compiled_names(self.registry());
        #[cfg(feature = "runtime-tools")]
        let runtime = current
            .runtime
            .catalog()
            .map(crate::Catalog::tool_names)
            .into_iter()
            .flatten();
        #[cfg(not(feature = "runtime-tools"))]
        let runtime = {
            let _ = current;
            std::iter::empty()
        };
        compiled.chain(runtime)
    }

    /// Swaps in `search`; the caller holds the replacement lock.
    fn search_locked(&self, search: Option<Arc<ToolSearch<S>>>) {
        let cell = &self.cell;
        let previous = cell.current();
        let current = previous.relisted(previous.presentation().cloned(), search);
        let changed = previous.list() != current.list();
        drop(previous);
        cell.publish(current);
        let notified_sessions = if changed {
            cell.sessions.notify_all(Kinds::TOOLS)
        } else {
            0
        };
        tracing::info!(changed, notified_sessions, "tool search set");
    }
}

impl<S: Vocabulary> ToolSearch<S> {
    /// Whether a controller with this search (and `presentation`) would
    /// install `catalog`: refused, naming the tool, if one of its tools is,
    /// or is presented as, one of search's names. For a store that must
    /// refuse a catalog before it keeps it.
    #[cfg(feature = "runtime-tools")]
    pub fn verify_catalog(
        &self,
        catalog: &crate::Catalog<S>,
        presentation: Option<&Presentation>,
    ) -> Result<(), PresentationError> {
        self.check_names(catalog.tool_names(), presentation)
    }

    /// Refuses `names` (canonical tool names) if one is, or under
    /// `presentation` is listed as, one of search's tool names.
    pub(crate) fn check_names<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
        presentation: Option<&Presentation>,
    ) -> Result<(), PresentationError> {
        let reserved = [self.search_name(), self.call_name()];
        for name in names {
            let listed = presentation.map_or(std::borrow::Cow::Borrowed(name), |p| p.present(name));
            if let Some(&taken) = reserved.iter().find(|&&r| r == name || r == listed) {
                return Err(PresentationError::ReservedBySearch {
                    tool: name.to_owned(),
                    name: taken.to_owned(),
                });
            }
        }
        Ok(())
    }
}
