//! How a [`Rule`] decides a context: the rule's methods that take one,
//! here so that `rule`, below this module, never names a context.

use crate::vocabulary::TermBits;
use crate::{Decision, ProfileContext, Rule, Term, TermSet, Vocabulary};

/// Deciding one context.
impl<S: Vocabulary> Rule<S> {
    /// Whether `context` turns the group on.
    pub fn is_enabled(&self, context: &ProfileContext<S>) -> bool {
        self.masks().matches(&context.bits())
    }

    /// Decides the rule for `context`, naming the condition that decided it.
    ///
    /// Conditions are checked in the order surface, required capabilities,
    /// any-of capabilities, providers; the first that fails is reported.
    pub fn decide(&self, context: &ProfileContext<S>) -> Decision<S> {
        let bits = context.bits();
        let masks = self.masks();
        if masks.surfaces != 0 && masks.surfaces & (1 << bits.surface) == 0 {
            return Decision::SurfaceNotListed(context.surface());
        }
        let missing = masks.capabilities & !bits.capabilities;
        if let Some(first) = S::Capability::from_mask(missing).next() {
            return Decision::MissingCapability(first);
        }
        if masks.any_capabilities != 0 && masks.any_capabilities & bits.capabilities == 0 {
            return match single(masks.any_capabilities) {
                Some(only) => Decision::MissingCapability(S::Capability::ALL[only]),
                None => Decision::NoCapabilityOf(TermSet::from_bits(masks.any_capabilities)),
            };
        }
        if masks.providers != 0 && masks.providers & bits.providers == 0 {
            return match single(masks.providers) {
                Some(only) => Decision::MissingProvider(S::Provider::ALL[only]),
                None => Decision::NoProviderOf(TermSet::from_bits(masks.providers)),
            };
        }
        Decision::Enabled
    }
}

/// The index of the only bit of `mask`, if exactly one is set.
fn single(mask: u64) -> Option<usize> {
    (mask.count_ones() == 1).then(|| mask.trailing_zeros() as usize)
}
