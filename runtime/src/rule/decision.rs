//! The outcome of a rule for one context, and the term sets it names.

use std::fmt;
use std::marker::PhantomData;

use crate::vocabulary::TermBits;
use crate::{Term, Vocabulary};

/// A set of terms of one kind, such as the alternatives of an any-of
/// condition; iterates in declaration order.
pub struct TermSet<T: Term> {
    bits: u64,
    kind: PhantomData<fn() -> T>,
}

impl<T: Term> TermSet<T> {
    pub(crate) fn from_bits(bits: u64) -> Self {
        TermSet {
            bits,
            kind: PhantomData,
        }
    }

    /// The terms, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = T> + use<T> {
        T::from_mask(self.bits)
    }

    /// Whether `term` is in the set.
    pub fn contains(&self, term: T) -> bool {
        self.bits & term.bit() != 0
    }

    /// How many terms the set holds.
    pub fn len(&self) -> usize {
        self.bits.count_ones() as usize
    }

    /// Whether the set holds no term.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }
}

impl<T: Term> FromIterator<T> for TermSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(terms: I) -> Self {
        TermSet::from_bits(T::mask_of(terms))
    }
}

impl<T: Term> Clone for TermSet<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Term> Copy for TermSet<T> {}

impl<T: Term> PartialEq for TermSet<T> {
    fn eq(&self, other: &Self) -> bool {
        self.bits == other.bits
    }
}

impl<T: Term> Eq for TermSet<T> {}

impl<T: Term> fmt::Debug for TermSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The wire names, comma-separated: `jira, zendesk`.
impl<T: Term> fmt::Display for TermSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(Term::wire_name).collect();
        f.write_str(&names.join(", "))
    }
}

/// The outcome of a rule for one context, with the condition that decided it.
///
/// A one-element any-of condition is the same as requiring that term, and
/// is reported as [`MissingCapability`](Decision::MissingCapability) or
/// [`MissingProvider`](Decision::MissingProvider).
#[non_exhaustive]
pub enum Decision<S: Vocabulary> {
    /// Every condition holds.
    Enabled,
    /// The context's surface is not one the rule lists.
    SurfaceNotListed(S::Surface),
    /// A required capability is absent (the first, in declaration order).
    MissingCapability(S::Capability),
    /// None of the capabilities of the rule's any-of set is held.
    NoCapabilityOf(TermSet<S::Capability>),
    /// The one provider the rule lists is not attached.
    MissingProvider(S::Provider),
    /// None of the providers the rule lists is attached.
    NoProviderOf(TermSet<S::Provider>),
}

impl<S: Vocabulary> Decision<S> {
    /// Whether the group is on.
    pub fn is_enabled(&self) -> bool {
        matches!(self, Decision::Enabled)
    }
}

impl<S: Vocabulary> Clone for Decision<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for Decision<S> {}

impl<S: Vocabulary> PartialEq for Decision<S> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Decision::Enabled, Decision::Enabled) => true,
            (Decision::SurfaceNotListed(a), Decision::SurfaceNotListed(b)) => a == b,
            (Decision::MissingCapability(a), Decision::MissingCapability(b)) => a == b,
            (Decision::NoCapabilityOf(a), Decision::NoCapabilityOf(b)) => a == b,
            (Decision::MissingProvider(a), Decision::MissingProvider(b)) => a == b,
            (Decision::NoProviderOf(a), Decision::NoProviderOf(b)) => a == b,
            _ => false,
        }
    }
}

impl<S: Vocabulary> Eq for Decision<S> {}

impl<S: Vocabulary> fmt::Debug for Decision<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Enabled => f.write_str("Enabled"),
            Decision::SurfaceNotListed(s) => write!(f, "SurfaceNotListed({s:?})"),
            Decision::MissingCapability(c) => write!(f, "MissingCapability({c:?})"),
            Decision::NoCapabilityOf(set) => write!(f, "NoCapabilityOf({set:?})"),
            Decision::MissingProvider(p) => write!(f, "MissingProvider({p:?})"),
            Decision::NoProviderOf(set) => write!(f, "NoProviderOf({set:?})"),
        }
    }
}

impl<S: Vocabulary> fmt::Display for Decision<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Enabled => f.write_str("every condition holds"),
            Decision::SurfaceNotListed(s) => write!(f, "surface {s} is not listed"),
            Decision::MissingCapability(c) => write!(f, "capability {c} is absent"),
            Decision::NoCapabilityOf(set) => {
                write!(f, "none of the capabilities {set} is held")
            }
            Decision::MissingProvider(p) => write!(f, "provider {p} is not attached"),
            Decision::NoProviderOf(set) => write!(f, "none of the providers {set} is attached"),
        }
    }
}
