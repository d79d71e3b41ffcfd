//! Enablement rules: which contexts turn a tool group on.
//!
//! A rule is three bit masks over term indices. The bit form is what the macro
//! emits and what assembly tests; [`Rule`] is the typed view of it.

use std::fmt;
use std::marker::PhantomData;

use crate::vocabulary::TermBits;
use crate::{ProfileContext, Term, Vocabulary};

/// A rule as bit masks over term indices; emitted by `#[tool_group]`.
///
/// A context satisfies it when its surface is one of `surfaces` (or
/// `surfaces` is empty), it holds every capability in `capabilities`, and
/// every provider in `providers` is attached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RuleMasks {
    /// Allowed surfaces; `0` allows any surface.
    pub surfaces: u64,
    /// Capabilities that must all be present.
    pub capabilities: u64,
    /// Providers that must all be attached.
    pub providers: u64,
}

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

/// Every bit below `count`.
pub(crate) fn mask_below(count: usize) -> u64 {
    if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }
}

impl Shape {
    pub fn of<V: Vocabulary>() -> Self {
        Shape {
            surfaces: mask_below(V::Surface::ALL.len()),
            capabilities: mask_below(V::Capability::ALL.len()),
            providers: mask_below(V::Provider::ALL.len()),
            exclusive: V::EXCLUSIVE
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

    /// The smallest context satisfying `rule`, or why there is none.
    ///
    /// Rules are monotone in capabilities and providers, so if any valid
    /// context satisfies a rule, this minimal one does: checking it decides
    /// reachability over the whole context space exactly.
    pub fn witness(&self, rule: &RuleMasks) -> Result<ContextBits, Unsatisfiable> {
        let surfaces = if rule.surfaces == 0 {
            self.surfaces
        } else {
            rule.surfaces
        };
        if surfaces & !self.surfaces != 0 || surfaces == 0 {
            return Err(Unsatisfiable::UndeclaredSurface);
        }
        if rule.capabilities & !self.capabilities != 0 {
            return Err(Unsatisfiable::UndeclaredCapability);
        }
        if rule.providers & !self.providers != 0 {
            return Err(Unsatisfiable::UndeclaredProvider);
        }
        if let Some(pair) = self.conflict(rule.capabilities) {
            return Err(Unsatisfiable::Exclusive(pair));
        }
        Ok(ContextBits {
            surface: surfaces.trailing_zeros() as usize,
            capabilities: rule.capabilities,
            providers: rule.providers,
        })
    }

    /// The smallest context satisfying both rules, if one exists.
    pub fn joint_witness(&self, a: &RuleMasks, b: &RuleMasks) -> Option<ContextBits> {
        let surfaces = match (a.surfaces, b.surfaces) {
            (0, other) | (other, 0) => other,
            (x, y) => x & y,
        };
        if a.surfaces != 0 && b.surfaces != 0 && surfaces == 0 {
            return None;
        }
        self.witness(&RuleMasks {
            surfaces,
            capabilities: a.capabilities | b.capabilities,
            providers: a.providers | b.providers,
        })
        .ok()
    }
}

/// Why no valid context satisfies a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unsatisfiable {
    UndeclaredSurface,
    UndeclaredCapability,
    UndeclaredProvider,
    /// The rule requires both capabilities of this exclusive pair.
    Exclusive(u64),
}

impl RuleMasks {
    pub(crate) fn matches(&self, context: &ContextBits) -> bool {
        (self.surfaces == 0 || self.surfaces & (1 << context.surface) != 0)
            && context.capabilities & self.capabilities == self.capabilities
            && context.providers & self.providers == self.providers
    }
}

/// A tool group's enablement rule, typed over the server's vocabulary.
///
/// Displays in the notation of Kandev's catalog, `&` binding tighter than
/// `|`: `surface(kanban-task) & provider(github)`.
pub struct Rule<V: Vocabulary> {
    masks: RuleMasks,
    vocabulary: PhantomData<fn() -> V>,
}

impl<V: Vocabulary> Clone for Rule<V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V: Vocabulary> Copy for Rule<V> {}

impl<V: Vocabulary> PartialEq for Rule<V> {
    fn eq(&self, other: &Self) -> bool {
        self.masks == other.masks
    }
}

impl<V: Vocabulary> Eq for Rule<V> {}

impl<V: Vocabulary> Rule<V> {
    pub(crate) fn from_masks(masks: RuleMasks) -> Self {
        Rule {
            masks,
            vocabulary: PhantomData,
        }
    }

    pub(crate) fn masks(&self) -> &RuleMasks {
        &self.masks
    }

    /// The listed surfaces; empty when any surface will do.
    pub fn surfaces(&self) -> impl Iterator<Item = V::Surface> {
        V::Surface::from_mask(self.masks.surfaces)
    }

    /// The capabilities that must all be present.
    pub fn capabilities(&self) -> impl Iterator<Item = V::Capability> {
        V::Capability::from_mask(self.masks.capabilities)
    }

    /// The providers that must be attached.
    pub fn providers(&self) -> impl Iterator<Item = V::Provider> {
        V::Provider::from_mask(self.masks.providers)
    }

    /// Whether `context` turns the group on.
    pub fn is_enabled(&self, context: &ProfileContext<V>) -> bool {
        self.masks.matches(&context.bits())
    }

    /// Decides the rule for `context`, naming the condition that decided it.
    pub fn decide(&self, context: &ProfileContext<V>) -> Decision<V> {
        let bits = context.bits();
        if self.masks.surfaces != 0 && self.masks.surfaces & (1 << bits.surface) == 0 {
            return Decision::SurfaceNotListed(context.surface());
        }
        if let Some(missing) = self
            .capabilities()
            .find(|capability| !context.has_capability(*capability))
        {
            return Decision::MissingCapability(missing);
        }
        if let Some(missing) = self
            .providers()
            .find(|provider| !context.has_provider(*provider))
        {
            return Decision::MissingProvider(missing);
        }
        Decision::Enabled
    }
}

impl<V: Vocabulary> fmt::Debug for Rule<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rule({self})")
    }
}

impl<V: Vocabulary> fmt::Display for Rule<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let surfaces: Vec<String> = self.surfaces().map(|s| format!("surface({s})")).collect();
        let others: Vec<String> = self
            .capabilities()
            .map(|c| format!("capability({c})"))
            .chain(self.providers().map(|p| format!("provider({p})")))
            .collect();
        let mut terms = Vec::with_capacity(1 + others.len());
        match surfaces.len() {
            0 => {}
            1 => terms.push(surfaces[0].clone()),
            // `&` binds tighter than `|`: parenthesise a disjunction that is
            // conjoined with further conditions.
            _ if !others.is_empty() => terms.push(format!("({})", surfaces.join(" | "))),
            _ => terms.push(surfaces.join(" | ")),
        }
        terms.extend(others);
        f.write_str(&terms.join(" & "))
    }
}

/// The outcome of a rule for one context, with the condition that decided it.
pub enum Decision<V: Vocabulary> {
    /// Every condition holds.
    Enabled,
    /// The context's surface is not one the rule lists.
    SurfaceNotListed(V::Surface),
    /// A required capability is absent (the first, in declaration order).
    MissingCapability(V::Capability),
    /// A required provider is not attached.
    MissingProvider(V::Provider),
}

impl<V: Vocabulary> Decision<V> {
    /// Whether the group is on.
    pub fn is_enabled(&self) -> bool {
        matches!(self, Decision::Enabled)
    }
}

impl<V: Vocabulary> Clone for Decision<V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V: Vocabulary> Copy for Decision<V> {}

impl<V: Vocabulary> PartialEq for Decision<V> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Decision::Enabled, Decision::Enabled) => true,
            (Decision::SurfaceNotListed(a), Decision::SurfaceNotListed(b)) => a == b,
            (Decision::MissingCapability(a), Decision::MissingCapability(b)) => a == b,
            (Decision::MissingProvider(a), Decision::MissingProvider(b)) => a == b,
            _ => false,
        }
    }
}

impl<V: Vocabulary> Eq for Decision<V> {}

impl<V: Vocabulary> fmt::Debug for Decision<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Enabled => f.write_str("Enabled"),
            Decision::SurfaceNotListed(s) => write!(f, "SurfaceNotListed({s:?})"),
            Decision::MissingCapability(c) => write!(f, "MissingCapability({c:?})"),
            Decision::MissingProvider(p) => write!(f, "MissingProvider({p:?})"),
        }
    }
}

impl<V: Vocabulary> fmt::Display for Decision<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Enabled => f.write_str("every condition holds"),
            Decision::SurfaceNotListed(s) => write!(f, "surface {s} is not listed"),
            Decision::MissingCapability(c) => write!(f, "capability {c} is absent"),
            Decision::MissingProvider(p) => write!(f, "provider {p} is not attached"),
        }
    }
}
