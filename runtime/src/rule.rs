//! Enablement rules: which contexts turn a tool group on.
//!
//! A rule is four bit masks over term indices ([`RuleMasks`], shared with
//! the macros through `mcp-profiles-rules`). The bit form is what the macro
//! emits and what assembly tests; [`Rule`] is the typed view of it, with a
//! constructor for rules built in code. What deciding one context answers
//! lives in `decision`, and the methods that decide one
//! ([`Rule::decide`], [`Rule::is_enabled`]) in the context module, which
//! sits above this one; how verification decides a rule over every context
//! is `mcp_profiles_rules::Shape`, the check `#[tool_group]` runs too.

mod decision;
mod json;

use std::fmt;
use std::marker::PhantomData;

pub use decision::{Decision, TermSet};
pub use mcp_profiles_rules::RuleMasks;
pub(crate) use mcp_profiles_rules::{ContextBits, Shape, Unsatisfiable, mask_below};

use crate::vocabulary::TermBits;
use crate::vocabulary::sealed::TermIndex;
use crate::{Term, Vocabulary};

/// The context space of `S`'s vocabulary, for deciding rules over all of it.
pub(crate) fn shape_of<S: Vocabulary>() -> Shape {
    Shape::new(
        S::Surface::ALL.len(),
        S::Capability::ALL.len(),
        S::Provider::ALL.len(),
        S::EXCLUSIVE.iter().map(|(a, b)| (a.index(), b.index())),
    )
}

/// A tool group's enablement rule, typed over the server's vocabulary.
///
/// A rule is a conjunction of up to four conditions: the surface is one of a
/// list, every listed capability is held, at least one of another list of
/// capabilities is held, and at least one listed provider is attached. A rule
/// with no condition is always on.
///
/// Displays as a small formula over wire names, `&` binding tighter than
/// `|`: `surface(ticket) & provider(jira)`,
/// `capability(refund) & (provider(jira) | provider(zendesk))`, `always`.
///
/// `#[tool_group]` writes rules at compile time; the constructors below build
/// the same rules in code:
///
/// ```
/// # mod server { pub struct Desk; }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability { Refund, #[exclusive_with(Refund)] ReadOnly, Escalate }
/// #     #[providers] pub enum Provider { Jira, Zendesk }
/// # }
/// use mcp_profiles::Rule;
///
/// let sync = Rule::<Desk>::on_surface(Surface::Ticket)
///     .with_any_provider([Provider::Jira, Provider::Zendesk]);
/// assert_eq!(
///     sync.to_string(),
///     "surface(ticket) & (provider(jira) | provider(zendesk))"
/// );
/// let handoff = Rule::<Desk>::any_surface()
///     .requiring_any([Capability::Refund, Capability::Escalate]);
/// assert_eq!(handoff.to_string(), "capability(refund) | capability(escalate)");
/// assert_eq!(Rule::<Desk>::always().to_string(), "always");
/// ```
pub struct Rule<S: Vocabulary> {
    masks: RuleMasks,
    vocabulary: PhantomData<fn() -> S>,
}

impl<S: Vocabulary> Clone for Rule<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for Rule<S> {}

impl<S: Vocabulary> PartialEq for Rule<S> {
    fn eq(&self, other: &Self) -> bool {
        self.masks == other.masks
    }
}

impl<S: Vocabulary> Eq for Rule<S> {}

/// Constructors. Each method adds to one condition, so the order of calls
/// does not matter. A rule that no context can satisfy (say, requiring two
/// exclusive capabilities) is allowed here; a registry holding it reports
/// the group as unreachable.
impl<S: Vocabulary> Rule<S> {
    /// The rule with no condition: every context enables the group.
    pub fn always() -> Self {
        Self::from_masks(RuleMasks::default())
    }

    /// No condition yet, any surface: the start of a rule that only asks
    /// for capabilities or providers. The same rule as [`Rule::always`].
    pub fn any_surface() -> Self {
        Self::always()
    }

    /// On `surface` only.
    pub fn on_surface(surface: S::Surface) -> Self {
        Self::on_surfaces([surface])
    }

    /// On any of `surfaces`; an empty list allows any surface.
    pub fn on_surfaces(surfaces: impl IntoIterator<Item = S::Surface>) -> Self {
        Self::always().or_surfaces(surfaces)
    }

    /// Also allows `surfaces` (the surface condition is an any-of).
    #[must_use]
    pub fn or_surfaces(mut self, surfaces: impl IntoIterator<Item = S::Surface>) -> Self {
        self.masks.surfaces |= S::Surface::mask_of(surfaces);
        self
    }

    /// Also requires `capability` to be held.
    #[must_use]
    pub fn requiring(self, capability: S::Capability) -> Self {
        self.requiring_all([capability])
    }

    /// Also requires every one of `capabilities` to be held.
    #[must_use]
    pub fn requiring_all(mut self, capabilities: impl IntoIterator<Item = S::Capability>) -> Self {
        self.masks.capabilities |= S::Capability::mask_of(capabilities);
        self
    }

    /// Also requires at least one of `capabilities` to be held.
    ///
    /// A rule has one such any-of set: calling this again adds alternatives
    /// to it. An empty list adds no condition.
    #[must_use]
    pub fn requiring_any(mut self, capabilities: impl IntoIterator<Item = S::Capability>) -> Self {
        self.masks.any_capabilities |= S::Capability::mask_of(capabilities);
        self
    }

    /// Also requires at least one of `providers` to be attached; one provider
    /// is `with_any_provider([provider])`.
    ///
    /// Calling this again adds alternatives to the same any-of set. An empty
    /// list adds no condition.
    #[must_use]
    pub fn with_any_provider(mut self, providers: impl IntoIterator<Item = S::Provider>) -> Self {
        self.masks.providers |= S::Provider::mask_of(providers);
        self
    }
}

impl<S: Vocabulary> Rule<S> {
    pub(crate) fn from_masks(masks: RuleMasks) -> Self {
        Rule {
            masks,
            vocabulary: PhantomData,
        }
    }

    pub(crate) fn masks(&self) -> &RuleMasks {
        &self.masks
    }

    /// Whether the rule has no condition at all.
    pub fn is_always(&self) -> bool {
        self.masks == RuleMasks::default()
    }

    /// The listed surfaces, one of which the context must be on; empty when
    /// any surface will do.
    pub fn surfaces(&self) -> impl Iterator<Item = S::Surface> {
        S::Surface::from_mask(self.masks.surfaces)
    }

    /// The capabilities that must all be held.
    pub fn capabilities(&self) -> impl Iterator<Item = S::Capability> {
        S::Capability::from_mask(self.masks.capabilities)
    }

    /// The capabilities of which at least one must be held; empty when there
    /// is no such condition.
    pub fn any_capabilities(&self) -> impl Iterator<Item = S::Capability> {
        S::Capability::from_mask(self.masks.any_capabilities)
    }

    /// The providers of which at least one must be attached; empty when
    /// there is no such condition.
    pub fn providers(&self) -> impl Iterator<Item = S::Provider> {
        S::Provider::from_mask(self.masks.providers)
    }
}

impl<S: Vocabulary> From<Rule<S>> for RuleMasks {
    fn from(rule: Rule<S>) -> Self {
        rule.masks
    }
}

impl<S: Vocabulary> fmt::Debug for Rule<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rule({self})")
    }
}

impl<S: Vocabulary> fmt::Display for Rule<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_always() {
            return f.write_str("always");
        }
        // Each term is a conjunct; a conjunct of several alternatives is a
        // disjunction, parenthesised only when other conjuncts follow it.
        let mut terms: Vec<Vec<String>> =
            vec![self.surfaces().map(|s| format!("surface({s})")).collect()];
        terms.extend(
            self.capabilities()
                .map(|c| vec![format!("capability({c})")]),
        );
        terms.push(
            self.any_capabilities()
                .map(|c| format!("capability({c})"))
                .collect(),
        );
        terms.push(self.providers().map(|p| format!("provider({p})")).collect());
        terms.retain(|alternatives| !alternatives.is_empty());
        let alone = terms.len() == 1;
        let terms: Vec<String> = terms
            .into_iter()
            .map(|alternatives| {
                let joined = alternatives.join(" | ");
                if alone || alternatives.len() == 1 {
                    joined
                } else {
                    format!("({joined})")
                }
            })
            .collect();
        f.write_str(&terms.join(" & "))
    }
}
