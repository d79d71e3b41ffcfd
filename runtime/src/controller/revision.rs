//! Which revision of the profile a state serves, and what its lists say
//! of it ([`Exposure`]): a controller numbers its own changes; a store
//! that numbers its agents' versions stamps each change with its own
//! ([`ProfileController::at_revision`]).

use std::sync::atomic::Ordering;

#[cfg(feature = "runtime-tools")]
use crate::catalog::{Catalog, Installation};
use crate::exposure::{Exposure, Listed};
use crate::{ProfileContext, ProfileController, Replacement, Vocabulary};

use super::Current;

/// How a change numbers the state it makes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Revise {
    /// One more than the state it replaces: a change of the profile.
    Next,
    /// The same: the kill switch or a listing changed, not the profile.
    Keep,
    /// What the owner numbered it (a store's version of the agent).
    To(u64),
}

impl Revise {
    /// The revision after `previous`.
    pub(super) fn after(self, previous: u64) -> u64 {
        match self {
            Revise::Next => previous + 1,
            Revise::Keep => previous,
            Revise::To(revision) => revision,
        }
    }
}

impl<S: Vocabulary> Current<S> {
    /// What `which` list of this state was decided under: digested once,
    /// on first use.
    pub(crate) fn exposure(&self, which: Listed) -> Exposure {
        self.exposed(which).0.clone()
    }

    /// The `_meta` saying what `which` list of this state was decided
    /// under: made once, cloned per answer.
    pub(crate) fn exposure_meta(&self, which: Listed) -> rmcp::model::MetaObject {
        self.exposed(which).1.clone()
    }

    fn exposed(&self, which: Listed) -> &(Exposure, rmcp::model::MetaObject) {
        let (digests, revision) = (&self.digests, self.revision);
        match which {
            Listed::Tools => digests.get(which, revision, self.list()),
            Listed::Prompts => digests.get(which, revision, &self.content.prompts.listed),
            Listed::Resources => digests.get(which, revision, &self.content.resources.listed.0),
            Listed::Templates => digests.get(which, revision, &self.content.resources.listed.1),
        }
    }
}

/// Changes of a controller's profile stamped with the revision their owner
/// numbered them (see [`ProfileController::at_revision`]).
#[must_use = "a revision stamps only the change made through it"]
pub struct AtRevision<'a, S: Vocabulary> {
    controller: &'a ProfileController<S>,
    revision: u64,
}

impl<S: Vocabulary> std::fmt::Debug for AtRevision<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtRevision")
            .field("revision", &self.revision)
            .finish_non_exhaustive()
    }
}

impl<S: Vocabulary> AtRevision<'_, S> {
    /// [`ProfileController::replace`], the new state at this revision.
    pub fn replace(self, context: ProfileContext<S>) -> Replacement<S> {
        self.controller
            .replace_revised(context, Revise::To(self.revision))
    }

    /// [`ProfileController::replace_with_catalog`], the new state at this
    /// revision.
    #[cfg(feature = "runtime-tools")]
    pub fn replace_with_catalog(
        self,
        context: ProfileContext<S>,
        catalog: Option<Catalog<S>>,
    ) -> Replacement<S> {
        self.controller
            .replace_with_catalog_revised(context, catalog, Revise::To(self.revision))
    }

    /// [`ProfileController::set_catalog`], the new state at this revision.
    #[cfg(feature = "runtime-tools")]
    pub fn set_catalog(self, catalog: Option<&Catalog<S>>) -> Installation {
        self.controller
            .set_catalog_revised(catalog, Revise::To(self.revision))
    }
}

/// Revisions and exposure.
impl<S: Vocabulary> ProfileController<S> {
    /// The revision of the profile in force: 1 for a new controller, one
    /// more at each [`replace`](Self::replace), [`update`](Self::update)
    /// or catalog change, or what the last change made
    /// [`at_revision`](Self::at_revision) said. The kill switch and a name
    /// presentation leave it as it is.
    pub fn revision(&self) -> u64 {
        self.cell.current().revision
    }

    /// The next change, numbered `revision` instead of one more than the
    /// last: for a store that numbers its agents' versions, so that what a
    /// session is listed names the store's version of its profile.
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
    /// use mcp_profiles::{ProfileContext, ProfileController};
    ///
    /// let controller = ProfileController::<Demo>::new(ProfileContext::new(Surface::Ticket));
    /// assert_eq!(controller.revision(), 1);
    /// controller.at_revision(41).replace(ProfileContext::new(Surface::Chat));
    /// assert_eq!(controller.revision(), 41);
    /// controller.replace(ProfileContext::new(Surface::Ticket));
    /// assert_eq!(controller.revision(), 42);
    /// ```
    pub fn at_revision(&self, revision: u64) -> AtRevision<'_, S> {
        AtRevision {
            controller: self,
            revision,
        }
    }

    /// What `tools/list` answers now was decided under: the revision and
    /// the digest of the listed tools (see [`Exposure`]).
    pub fn exposure(&self) -> Exposure {
        self.cell.current().exposure(Listed::Tools)
    }

    /// Whether `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` answers carry their [`Exposure`] in
    /// `_meta` under [`EXPOSURE_META_KEY`](crate::EXPOSURE_META_KEY), for
    /// every session of this controller (off by default: nothing is
    /// digested then). A list's digest is made once per served state.
    pub fn set_exposure_stamp(&self, on: bool) {
        self.cell.stamp_exposure.store(on, Ordering::Relaxed);
    }

    /// This controller, its lists stamped (see
    /// [`set_exposure_stamp`](Self::set_exposure_stamp)).
    pub fn with_exposure_stamp(self) -> Self {
        self.set_exposure_stamp(true);
        self
    }

    /// Tells `sink` of every `tools/call` decision of this controller's
    /// sessions from now on (see [`DecisionSink`](crate::DecisionSink)):
    /// the tool, the revision it was decided under, allowed or refused and
    /// why. One sink per controller: `false`, and nothing changes, if one
    /// is attached already.
    pub fn log_decisions(&self, sink: std::sync::Arc<dyn crate::DecisionSink>) -> bool {
        self.cell.decisions.set(sink).is_ok()
    }
}
