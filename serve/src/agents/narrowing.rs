//! A narrower view of an agent's profile: some capabilities withheld, the
//! providers cut down to a set. A view never adds anything, so applying it
//! to any valid context gives a valid context (withholding capabilities
//! cannot make an exclusive pair), and it follows the agent's profile as
//! the backend replaces it.

use std::collections::BTreeSet;

use mcp_profiles::{ProfileContext, Vocabulary};

/// What a view of a profile takes away.
pub(crate) struct Narrowing<S: Vocabulary> {
    /// Capabilities the view never holds.
    withheld: BTreeSet<S::Capability>,
    /// The only providers the view may keep; `None`: all of the profile's.
    providers: Option<BTreeSet<S::Provider>>,
}

#[cfg_attr(
    not(feature = "oauth"),
    allow(dead_code, reason = "only the OAuth router narrows")
)]
impl<S: Vocabulary> Narrowing<S> {
    pub(crate) fn new(
        withheld: BTreeSet<S::Capability>,
        providers: Option<BTreeSet<S::Provider>>,
    ) -> Self {
        Narrowing {
            withheld,
            providers,
        }
    }

    /// The view that is the profile itself.
    pub(crate) fn none() -> Self {
        Self::new(BTreeSet::new(), None)
    }

    /// Whether the view is the profile itself.
    pub(crate) fn is_none(&self) -> bool {
        self.withheld.is_empty() && self.providers.is_none()
    }

    /// `context` seen through this view: its policy, allow lists and
    /// surface kept, the withheld capabilities removed, its providers
    /// intersected with the kept ones.
    pub(crate) fn apply(&self, context: &ProfileContext<S>) -> ProfileContext<S> {
        let mut narrowed = *context;
        for capability in &self.withheld {
            narrowed = narrowed.without_capability(*capability);
        }
        if let Some(kept) = &self.providers {
            let providers: Vec<_> = context
                .providers()
                .filter(|provider| kept.contains(provider))
                .collect();
            narrowed = narrowed.replace_providers(providers);
        }
        narrowed
    }
}

impl<S: Vocabulary> Clone for Narrowing<S> {
    fn clone(&self) -> Self {
        Narrowing {
            withheld: self.withheld.clone(),
            providers: self.providers.clone(),
        }
    }
}

impl<S: Vocabulary> PartialEq for Narrowing<S> {
    fn eq(&self, other: &Self) -> bool {
        self.withheld == other.withheld && self.providers == other.providers
    }
}

impl<S: Vocabulary> Eq for Narrowing<S> {}

impl<S: Vocabulary> std::hash::Hash for Narrowing<S> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.withheld.hash(state);
        self.providers.hash(state);
    }
}
