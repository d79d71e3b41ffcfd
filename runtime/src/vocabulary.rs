//! The vocabulary of a server: its surfaces, capabilities and providers.
//!
//! A server type declares its vocabulary once with [`vocabulary!`](crate::vocabulary);
//! the macro generates one ordinary Rust enum per kind and implements
//! [`Term`] for each and [`Vocabulary`](crate::Vocabulary) for the server
//! type. That trait is defined at the crate root, not here: it names the
//! registry (`Vocabulary::registry`), which names it back, and every
//! module may import the root without a cycle.

use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

/// The three kinds of names a profile is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TermKind {
    /// The one base surface of a session (`ticket`, `chat`, ...).
    Surface,
    /// An additive capability (`refund`, `read-only`, ...).
    Capability,
    /// An attached provider (`jira`, `zendesk`, ...).
    Provider,
}

impl TermKind {
    /// The singular word used in messages: `surface`, `capability`, `provider`.
    pub const fn singular(self) -> &'static str {
        match self {
            TermKind::Surface => "surface",
            TermKind::Capability => "capability",
            TermKind::Provider => "provider",
        }
    }

    /// The plural word used in messages: `surfaces`, `capabilities`, `providers`.
    pub const fn plural(self) -> &'static str {
        match self {
            TermKind::Surface => "surfaces",
            TermKind::Capability => "capabilities",
            TermKind::Provider => "providers",
        }
    }
}

impl fmt::Display for TermKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.singular())
    }
}

/// One name of a vocabulary: a surface, a capability or a provider.
///
/// Implemented by the enums that [`vocabulary!`](crate::vocabulary) generates,
/// and only by them: the trait is sealed, so that its representation (a term
/// is one bit of a mask, which is why a kind holds at most 64 terms) can
/// change without breaking anyone. Every term has a kebab-case wire name.
///
/// ```
/// # mod server { pub struct Demo; }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability { Refund, ReadOnly }
/// #     #[providers] pub enum Provider {}
/// # }
/// use mcp_profiles::Term;
///
/// assert_eq!(Capability::ALL, [Capability::Refund, Capability::ReadOnly]);
/// assert_eq!(Capability::ReadOnly.wire_name(), "read-only");
/// assert_eq!(Capability::parse_wire_name("refund"), Ok(Capability::Refund));
/// ```
pub trait Term:
    sealed::TermIndex
    + Copy
    + Eq
    + Ord
    + Hash
    + fmt::Debug
    + fmt::Display
    + FromStr<Err = UnknownName>
    + serde::Serialize
    + serde::de::DeserializeOwned
    + Send
    + Sync
    + 'static
{
    /// Which kind of term this is.
    const KIND: TermKind;
    /// Every term, in declaration order.
    const ALL: &'static [Self];
    /// Every wire name, in declaration order (`NAMES[i]` names `ALL[i]`).
    const NAMES: &'static [&'static str];

    /// The kebab-case name used on the wire, in JSON and in `#[tool_group]`.
    fn wire_name(self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Parses a wire name, failing with an error that names the bad value
    /// and lists the valid ones.
    fn parse_wire_name(name: &str) -> Result<Self, UnknownName> {
        match Self::NAMES.iter().position(|known| *known == name) {
            Some(index) => Ok(Self::ALL[index]),
            None => Err(UnknownName::new(Self::KIND, name, Self::NAMES)),
        }
    }
}

/// What `vocabulary!` implements besides the public traits; not public API.
#[doc(hidden)]
pub mod sealed {
    /// A term's position in declaration order (`ALL[t.index()] == t`).
    pub trait TermIndex {
        /// Position of this term in declaration order.
        fn index(self) -> usize;
    }

    /// Marks a server type whose vocabulary `vocabulary!` declared.
    pub trait VocabularySeal {}
}

/// Terms as bits: how rules and contexts store them. Crate-private, so the
/// representation is free to change.
pub(crate) trait TermBits: Term {
    /// The single bit standing for this term in a mask.
    fn bit(self) -> u64 {
        1 << self.index()
    }

    /// The mask with the bit of each of `terms` set.
    fn mask_of(terms: impl IntoIterator<Item = Self>) -> u64 {
        terms.into_iter().fold(0, |mask, term| mask | term.bit())
    }

    /// The terms whose bits are set in `mask`, in declaration order.
    fn from_mask(mask: u64) -> impl Iterator<Item = Self> {
        Self::ALL
            .iter()
            .copied()
            .filter(move |term| mask & term.bit() != 0)
    }
}

impl<T: Term> TermBits for T {}

/// A name that is not part of the vocabulary.
///
/// ```
/// # use mcp_profiles::{TermKind, UnknownName};
/// let err = UnknownName::new(TermKind::Capability, "refnud", &["refund", "read-only"]);
/// assert_eq!(
///     err.to_string(),
///     "unknown capability `refnud`; expected one of: refund, read-only"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    kind: TermKind,
    value: String,
    expected: &'static [&'static str],
}

impl UnknownName {
    /// An error for `value`, which is not one of `expected`.
    pub fn new(kind: TermKind, value: &str, expected: &'static [&'static str]) -> Self {
        Self {
            kind,
            value: value.to_owned(),
            expected,
        }
    }

    /// The kind of term that was expected.
    pub fn kind(&self) -> TermKind {
        self.kind
    }

    /// The name that was given.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The names that would have been accepted.
    pub fn expected(&self) -> &'static [&'static str] {
        self.expected
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`; ", self.kind, self.value)?;
        if self.expected.is_empty() {
            write!(f, "no {} are declared", self.kind.plural())
        } else {
            write!(f, "expected one of: {}", self.expected.join(", "))
        }
    }
}

impl std::error::Error for UnknownName {}

/// Serde support for generated term enums: a term is its wire name.
#[doc(hidden)]
pub mod serde_term {
    use std::fmt;
    use std::marker::PhantomData;

    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};

    use super::Term;

    /// Serialises a term as its wire name.
    pub fn serialize<T: Term, S: Serializer>(term: T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(term.wire_name())
    }

    /// Deserialises a term from its wire name.
    pub fn deserialize<'de, T: Term, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        struct WireName<T>(PhantomData<T>);

        impl<T: Term> Visitor<'_> for WireName<T> {
            type Value = T;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a {} name", T::KIND)
            }

            fn visit_str<E: Error>(self, value: &str) -> Result<T, E> {
                T::parse_wire_name(value).map_err(E::custom)
            }
        }

        deserializer.deserialize_str(WireName(PhantomData))
    }
}
