//! The context space of a vocabulary, and deciding rules over all of it.
//!
//! Rules only ever ask for *more* (a surface from a list, capabilities and
//! providers held), so they are monotone: if any valid context satisfies a
//! rule, a minimal one does, holding the required capabilities plus one
//! member of each any-of set. Trying those few members (the product of the
//! any-of sizes, a handful in practice) decides reachability and
//! co-enablement over the whole context space exactly.

use super::RuleMasks;
use crate::vocabulary::TermBits;
use crate::{Term, Vocabulary};

/// A context reduced to bits: what rules are evaluated against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ContextBits {
    pub surface: usize,
    pub capabilities: u64,
    pub providers: u64,
}

/// The size of a vocabulary and its exclusivity constraints, as bits.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub surfaces: u64,
    pub capabilities: u64,
    pub providers: u64,
    /// One mask per pair of mutually exclusive capabilities.
    pub exclusive: Vec<u64>,
}

/// Why no valid context satisfies a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unsatisfiable {
    UndeclaredSurface,
    UndeclaredCapability,
    UndeclaredProvider,
    /// The rule requires both capabilities of this exclusive pair.
    Exclusive(u64),
    /// Every capability of the any-of set `alternatives` is exclusive with
    /// one of the `required` capabilities.
    ExcludedAlternatives {
        alternatives: u64,
        required: u64,
    },
}

/// Every bit below `count`.
pub(crate) fn mask_below(count: usize) -> u64 {
    if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }
}

/// The set bits of `mask`, each as a one-bit mask, lowest first.
fn each_bit(mut mask: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        let bit = mask & mask.wrapping_neg();
        mask &= !bit;
        (bit != 0).then_some(bit)
    })
}

/// The members of `set` that every later set sharing any also has: picking
/// from them first keeps a joint witness small. Never empty for a non-empty
/// `set`.
fn preferred(set: u64, later: &[u64]) -> u64 {
    later.iter().fold(
        set,
        |acc, other| {
            if acc & other != 0 { acc & other } else { acc }
        },
    )
}

impl Shape {
    pub fn of<S: Vocabulary>() -> Self {
        Shape {
            surfaces: mask_below(S::Surface::ALL.len()),
            capabilities: mask_below(S::Capability::ALL.len()),
            providers: mask_below(S::Provider::ALL.len()),
            exclusive: S::EXCLUSIVE
                .iter()
                .map(|(a, b)| a.bit() | b.bit())
                .collect(),
        }
    }

    /// The first exclusive pair wholly inside `capabilities`, if any.
    pub fn conflict(&self, capabilities: u64) -> Option<u64> {
        self.exclusive
            .iter()
            .copied()
            .find(|pair| capabilities & pair == *pair)
    }

    /// The capabilities of `required` that are exclusive with `capability`
    /// (one bit).
    pub fn excluders(&self, capability: u64, required: u64) -> u64 {
        self.exclusive
            .iter()
            .filter(|pair| *pair & capability != 0)
            .fold(0, |acc, pair| acc | (pair & !capability & required))
    }

    /// A minimal context satisfying `rule`, or why there is none.
    pub fn witness(&self, rule: &RuleMasks) -> Result<ContextBits, Unsatisfiable> {
        self.solve([rule])
    }

    /// A minimal context satisfying both rules, if one exists.
    pub fn joint_witness(&self, a: &RuleMasks, b: &RuleMasks) -> Option<ContextBits> {
        self.solve([a, b]).ok()
    }

    /// A minimal context satisfying every rule of `rules`.
    fn solve<const N: usize>(&self, rules: [&RuleMasks; N]) -> Result<ContextBits, Unsatisfiable> {
        for rule in rules {
            if rule.surfaces & !self.surfaces != 0 {
                return Err(Unsatisfiable::UndeclaredSurface);
            }
            if (rule.capabilities | rule.any_capabilities) & !self.capabilities != 0 {
                return Err(Unsatisfiable::UndeclaredCapability);
            }
            if rule.providers & !self.providers != 0 {
                return Err(Unsatisfiable::UndeclaredProvider);
            }
        }
        let surfaces = rules
            .iter()
            .map(|rule| rule.surfaces)
            .filter(|surfaces| *surfaces != 0)
            .fold(self.surfaces, |acc, surfaces| acc & surfaces);
        if surfaces == 0 {
            return Err(Unsatisfiable::UndeclaredSurface);
        }
        let required = rules.iter().fold(0, |acc, rule| acc | rule.capabilities);
        if let Some(pair) = self.conflict(required) {
            return Err(Unsatisfiable::Exclusive(pair));
        }
        let any_capabilities = rules.map(|rule| rule.any_capabilities);
        let capabilities = self.choose(required, &any_capabilities).ok_or(
            Unsatisfiable::ExcludedAlternatives {
                alternatives: any_capabilities.iter().fold(0, |acc, set| acc | set),
                required,
            },
        )?;
        // Providers have no exclusivity: any member of each set will do.
        let provider_sets = rules.map(|rule| rule.providers);
        let mut providers = 0;
        for (index, set) in provider_sets.iter().enumerate() {
            if *set != 0 && providers & set == 0 {
                let pick = preferred(*set, &provider_sets[index + 1..]);
                providers |= pick & pick.wrapping_neg();
            }
        }
        Ok(ContextBits {
            surface: surfaces.trailing_zeros() as usize,
            capabilities,
            providers,
        })
    }

    /// `held` plus one member of each non-empty set of `sets` not already
    /// met, free of exclusive pairs; `None` if no choice is.
    ///
    /// Exhaustive over the choices, so exact; adding nothing for a set that
    /// `held` already meets loses no solution, since exclusivity only ever
    /// forbids more capabilities.
    fn choose(&self, held: u64, sets: &[u64]) -> Option<u64> {
        let Some((&set, rest)) = sets.split_first() else {
            return Some(held);
        };
        if set == 0 || held & set != 0 {
            return self.choose(held, rest);
        }
        let first = preferred(set, rest);
        each_bit(first)
            .chain(each_bit(set & !first))
            .map(|member| held | member)
            .filter(|next| self.conflict(*next).is_none())
            .find_map(|next| self.choose(next, rest))
    }
}
