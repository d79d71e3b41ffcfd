//! The context space of a vocabulary, and deciding rules over all of it.
//!
//! Rules only ever ask for *more* (a surface from a list, capabilities and
//! providers held), so they are monotone: if any valid context satisfies a
//! rule, a minimal one does, holding the required capabilities plus one
//! member of each any-of set. Trying those few members (the product of the
//! any-of sizes, a handful in practice) decides reachability and
//! co-enablement over the whole context space exactly.

use crate::{ContextBits, RuleMasks, each_bit, mask_below};

/// The size of a vocabulary and its exclusivity constraints, as bits.
#[derive(Clone, Debug)]
pub struct Shape {
    surfaces: u64,
    capabilities: u64,
    providers: u64,
    /// One mask per pair of mutually exclusive capabilities.
    exclusive: Vec<u64>,
}

/// Why no valid context satisfies a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsatisfiable {
    /// The rule lists no declared surface (or the rules share none).
    UndeclaredSurface,
    /// The rule requires a capability the vocabulary does not declare.
    UndeclaredCapability,
    /// The rule requires a provider the vocabulary does not declare.
    UndeclaredProvider,
    /// The rule requires both capabilities of this exclusive pair.
    Exclusive(u64),
    /// Every capability of the any-of set `alternatives` is exclusive with
    /// one of the `required` capabilities.
    ExcludedAlternatives {
        /// The any-of set.
        alternatives: u64,
        /// The required capabilities.
        required: u64,
    },
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
    /// A vocabulary of `surfaces`, `capabilities` and `providers` terms in
    /// which each pair of `exclusive` capability indices may not be held
    /// together.
    pub fn new(
        surfaces: usize,
        capabilities: usize,
        providers: usize,
        exclusive: impl IntoIterator<Item = (usize, usize)>,
    ) -> Self {
        Shape {
            surfaces: mask_below(surfaces),
            capabilities: mask_below(capabilities),
            providers: mask_below(providers),
            exclusive: exclusive
                .into_iter()
                .map(|(a, b)| (1 << a) | (1 << b))
                .collect(),
        }
    }

    /// Every exclusive pair wholly inside `capabilities`, in the order the
    /// pairs were given, each as a two-bit mask.
    pub fn conflicts(&self, capabilities: u64) -> impl Iterator<Item = u64> + '_ {
        self.exclusive
            .iter()
            .copied()
            .filter(move |pair| capabilities & pair == *pair)
    }

    /// The first exclusive pair wholly inside `capabilities`, if any.
    pub fn conflict(&self, capabilities: u64) -> Option<u64> {
        self.conflicts(capabilities).next()
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

#[cfg(test)]
mod tests {
    use super::{Shape, Unsatisfiable};
    use crate::{ContextBits, RuleMasks};

    /// Two surfaces, four capabilities (0 excludes 1 and 2), two providers.
    fn shape() -> Shape {
        Shape::new(2, 4, 2, [(0, 1), (0, 2)])
    }

    #[test]
    fn exclusive_pairs_and_their_excluders() {
        let shape = shape();
        assert_eq!(shape.conflicts(0b0111).collect::<Vec<_>>(), [0b011, 0b101]);
        assert_eq!(shape.conflict(0b1110), None);
        assert_eq!(shape.excluders(0b0001, 0b1110), 0b0110);
        assert_eq!(shape.excluders(0b0010, 0b1101), 0b0001);
    }

    #[test]
    fn a_minimal_witness_or_the_reason_there_is_none() {
        let shape = shape();
        let rule = RuleMasks {
            surfaces: 0b10,
            capabilities: 0b0001,
            any_capabilities: 0b1110,
            providers: 0b11,
        };
        let witness = ContextBits {
            surface: 1,
            capabilities: 0b1001,
            providers: 0b01,
        };
        assert_eq!(shape.witness(&rule), Ok(witness));
        assert!(rule.matches(&witness));
        let requiring = |capabilities, any_capabilities| RuleMasks {
            capabilities,
            any_capabilities,
            ..RuleMasks::default()
        };
        assert_eq!(
            shape.witness(&requiring(0b011, 0)),
            Err(Unsatisfiable::Exclusive(0b011))
        );
        assert_eq!(
            shape.witness(&requiring(0b001, 0b110)),
            Err(Unsatisfiable::ExcludedAlternatives {
                alternatives: 0b110,
                required: 0b001,
            })
        );
        assert_eq!(
            shape.witness(&requiring(0b10000, 0)),
            Err(Unsatisfiable::UndeclaredCapability)
        );
        let on = |surfaces| RuleMasks {
            surfaces,
            ..RuleMasks::default()
        };
        assert_eq!(shape.joint_witness(&on(0b01), &on(0b10)), None);
        assert!(shape.joint_witness(&on(0b11), &on(0b10)).is_some());
    }
}
