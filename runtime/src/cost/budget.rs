//! Token budgets (feature `tokens`): each surface's costliest context, and
//! the check of every `#[budget(tokens = N)]` a vocabulary declares.
//!
//! Exact over the whole context space without walking it: rules only
//! require terms, so a context holding more capabilities and providers
//! enables a superset of groups, and a tool set's cost is a sum over its
//! tools. The costliest context of a surface is therefore one holding every
//! provider and a *maximal* set of capabilities free of exclusive pairs
//! (only those some group on the surface mentions; the others change
//! nothing), with, for each group that declares an allow list, the list
//! of at most `max` names that keeps the most tokens. Those maximal sets
//! are the maximal independent sets of the exclusivity graph (a single
//! one, every capability, when there are no exclusive pairs; two per
//! disjoint pair otherwise), enumerated with Bron–Kerbosch.

use mcp_profiles_rules::{ContextBits, each_index, mask_below};

use super::choice::widest_lists;
use crate::vocabulary::TermBits;
use crate::vocabulary::sealed::TermIndex;
use crate::{
    Errors, ListCost, ProfileContext, Registry, RegistryError, RegistryErrors, Term, Vocabulary,
};

/// How many maximal capability sets one surface may have before its budget
/// is refused as uncheckable rather than checked in exponential time:
/// twelve disjoint exclusive pairs, all mentioned on one surface, make
/// exactly this many.
const MAX_CAPABILITY_SETS: usize = 4096;

/// How many of an over-budget context's tools the error names.
const LARGEST: usize = 5;

/// The costliest context of one surface and what it lists:
/// [`Registry::max_cost`].
#[derive(Debug)]
pub struct MaxCost<S: Vocabulary> {
    context: ProfileContext<S>,
    cost: ListCost,
}

impl<S: Vocabulary> MaxCost<S> {
    /// A context whose `tools/list` costs the most tokens on its surface:
    /// every provider, a maximal set of capabilities, and the allow lists
    /// (if any group declares one) that keep the costliest tools.
    pub fn context(&self) -> &ProfileContext<S> {
        &self.context
    }

    /// What it lists.
    pub fn cost(&self) -> &ListCost {
        &self.cost
    }
}

impl<S: Vocabulary> Registry<S> {
    /// The costliest context on `surface`, in o200k_base tokens, over every
    /// valid context (allow lists included: a context may pick any list
    /// its group allows, so the widest counts), found without walking the
    /// context space: only every provider with each maximal set of the
    /// capabilities the surface's groups mention (free of exclusive pairs)
    /// is tried. Ties go to the first found, in a fixed order.
    ///
    /// Fails ([`RegistryError::BudgetUnchecked`]) when the surface has more
    /// than 4,096 such sets, as thirteen disjoint exclusive pairs all
    /// mentioned on it would make.
    pub fn max_cost(&self, surface: S::Surface) -> Result<MaxCost<S>, RegistryError> {
        let sets = self.maximal_capability_sets(surface)?;
        let providers = mask_below(S::Provider::ALL.len());
        let mut costliest: Option<MaxCost<S>> = None;
        for capabilities in sets {
            let context = ProfileContext::from_bits(ContextBits {
                surface: surface.index(),
                capabilities,
                providers,
            });
            let context = widest_lists(self, context);
            let cost = self.cost(&context);
            if costliest
                .as_ref()
                .is_none_or(|max| cost.tokens() > max.cost.tokens())
            {
                costliest = Some(MaxCost { context, cost });
            }
        }
        Ok(costliest.expect("a surface has at least one maximal capability set"))
    }

    /// Checks each surface's costliest context against the budget the
    /// vocabulary declares for it (`#[budget(tokens = N)]`, listed in
    /// [`Vocabulary::TOKEN_BUDGETS`]), reporting every surface over its
    /// budget together: the context, its cost and its largest tools.
    ///
    /// The test `vocabulary!` adds (`tool_groups_of_<server>_are_valid`)
    /// runs it after [`Registry::linked`]; it is not part of
    /// [`verify`](Self::verify), which runs on first use in production,
    /// because it builds every tool's schema and loads the tokenizer.
    pub fn verify_budgets(&self) -> Result<(), RegistryErrors> {
        let mut errors = Vec::new();
        for &(surface, budget) in S::TOKEN_BUDGETS {
            match self.max_cost(surface) {
                Ok(max) if max.cost.tokens() > budget => {
                    errors.push(over_budget(surface, budget, &max))
                }
                Ok(_) => {}
                Err(error) => errors.push(error),
            }
        }
        Errors::check(errors)
    }

    /// Every maximal set of the capabilities some group on `surface`
    /// mentions that holds no exclusive pair, in a deterministic order.
    fn maximal_capability_sets(&self, surface: S::Surface) -> Result<Vec<u64>, RegistryError> {
        let mentioned = self
            .groups()
            .iter()
            .map(|group| *group.rule().masks())
            .filter(|rule| rule.surfaces == 0 || rule.surfaces & surface.bit() != 0)
            .fold(0, |mask, rule| {
                mask | rule.capabilities | rule.any_capabilities
            })
            & mask_below(S::Capability::ALL.len());
        let mut conflicts = [0u64; 64];
        for &(a, b) in S::EXCLUSIVE {
            conflicts[a.index()] |= b.bit();
            conflicts[b.index()] |= a.bit();
        }
        let mut sets = Vec::new();
        let complete = maximal_sets(0, mentioned, 0, &conflicts, &mut sets);
        if complete {
            Ok(sets)
        } else {
            Err(RegistryError::BudgetUnchecked {
                surface: surface.wire_name().to_owned(),
                reason: format!(
                    "its capabilities have more than {MAX_CAPABILITY_SETS} maximal sets free of \
                     exclusive pairs, too many to try each"
                ),
            })
        }
    }
}

/// Bron–Kerbosch with a pivot, over the graph whose edges join capabilities
/// that may be held together: adds to `sets` every maximal set extending
/// `chosen` with members of `candidates` and none of `excluded`. False
/// once `sets` would pass [`MAX_CAPABILITY_SETS`].
fn maximal_sets(
    chosen: u64,
    candidates: u64,
    excluded: u64,
    conflicts: &[u64; 64],
    sets: &mut Vec<u64>,
) -> bool {
    if candidates == 0 && excluded == 0 {
        sets.push(chosen);
        return sets.len() <= MAX_CAPABILITY_SETS;
    }
    // What may not join `chosen` with `capability`: itself and its rivals.
    let closed = |capability: usize| conflicts[capability] | (1 << capability);
    // The pivot leaves the fewest branches: only its rivals (and itself)
    // need trying, every other candidate joins it in some maximal set.
    let pivot = each_index(candidates | excluded)
        .min_by_key(|&capability| (candidates & closed(capability)).count_ones())
        .expect("candidates or excluded is not empty");
    let (mut candidates, mut excluded) = (candidates, excluded);
    for capability in each_index(candidates & closed(pivot)) {
        let rivals = closed(capability);
        if !maximal_sets(
            chosen | (1 << capability),
            candidates & !rivals,
            excluded & !rivals,
            conflicts,
            sets,
        ) {
            return false;
        }
        candidates &= !(1 << capability);
        excluded |= 1 << capability;
    }
    true
}

/// The error for a surface whose costliest context `max` is over `budget`.
fn over_budget<S: Vocabulary>(
    surface: S::Surface,
    budget: usize,
    max: &MaxCost<S>,
) -> RegistryError {
    RegistryError::OverBudget {
        surface: surface.wire_name().to_owned(),
        budget,
        tokens: max.cost.tokens(),
        bytes: max.cost.bytes(),
        tools: max.cost.tools().len(),
        context: max.context.to_json(),
        largest: max
            .cost
            .largest(LARGEST)
            .into_iter()
            .map(|tool| (tool.name().to_owned(), tool.tokens()))
            .collect(),
    }
}
