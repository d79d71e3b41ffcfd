//! [`DenyList`]: tool and group names, interned so that a context
//! carrying one stays `Copy`.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use super::intern;
use crate::{Clipped, Vocabulary};

/// Tool and tool group names a policy or the operator's kill switch denies:
/// every tool with one of these names, and every tool of a group with one
/// of them, is removed.
///
/// A list is sorted and duplicate-free, and holds only names the registry
/// declares (a compiled tool's or a group's); a name that is both denies
/// both. It is `Copy`: the list is interned for the life of the process,
/// like snapshots, so equality and hashing are a pointer comparison.
///
/// ```
/// # mod server { #[derive(Clone)] pub struct Desk; }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// # use rmcp::{ErrorData, model::CallToolResult, tool};
/// #[mcp_profiles::tool_group(name = "tickets", surface = "ticket")]
/// impl Desk {
///     #[tool(description = "Close the ticket")]
///     async fn close_ticket(&self) -> Result<CallToolResult, ErrorData> { todo!() }
/// }
///
/// use mcp_profiles::DenyList;
///
/// let deny = DenyList::<Desk>::new(["close_ticket", "tickets"])?;
/// assert_eq!(deny.names(), ["close_ticket", "tickets"]);
/// let err = DenyList::<Desk>::new(["close_tikcet"]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unknown tool or tool group `close_tikcet`; did you mean `close_ticket`?"
/// );
/// # Ok::<(), mcp_profiles::PolicyError>(())
/// ```
pub struct DenyList<S: Vocabulary> {
    /// Sorted, duplicate-free, interned: equal lists are the same slice.
    names: &'static [&'static str],
    vocabulary: PhantomData<fn() -> S>,
}

impl<S: Vocabulary> DenyList<S> {
    /// The empty list: denies nothing.
    pub const fn empty() -> Self {
        DenyList {
            names: &[],
            vocabulary: PhantomData,
        }
    }

    /// A list of `names`, each a tool or tool group of `S`'s registry;
    /// see [`Registry::deny_list`](crate::Registry::deny_list).
    ///
    /// # Panics
    ///
    /// If `S`'s linked tool groups fail verification (see
    /// [`Vocabulary::registry`]).
    pub fn new<N: AsRef<str>>(names: impl IntoIterator<Item = N>) -> Result<Self, PolicyError> {
        S::registry().deny_list(names)
    }

    /// The names, sorted.
    pub fn names(&self) -> &'static [&'static str] {
        self.names
    }

    /// Whether the list names `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.names.binary_search(&name).is_ok()
    }

    /// Whether the list denies nothing.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// A list of names already checked, sorted and deduplicated.
    pub(crate) fn interned(names: &[&str]) -> Self {
        DenyList {
            names: intern::intern(names),
            vocabulary: PhantomData,
        }
    }
}

impl<S: Vocabulary> Default for DenyList<S> {
    fn default() -> Self {
        Self::empty()
    }
}

impl<S: Vocabulary> Clone for DenyList<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for DenyList<S> {}

impl<S: Vocabulary> PartialEq for DenyList<S> {
    fn eq(&self, other: &Self) -> bool {
        intern::same(self.names, other.names)
    }
}

impl<S: Vocabulary> Eq for DenyList<S> {}

impl<S: Vocabulary> Hash for DenyList<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        intern::address(self.names).hash(state);
    }
}

impl<S: Vocabulary> fmt::Debug for DenyList<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names).finish()
    }
}

/// `delete_task, review`
impl<S: Vocabulary> fmt::Display for DenyList<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names.join(", "))
    }
}

/// A deny list that could not be built or decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyError {
    /// A name that is neither a compiled tool's nor a tool group's.
    UnknownName {
        /// The name given.
        name: String,
        /// The closest declared name, if one is close enough to be meant.
        suggestion: Option<String>,
    },
    /// A name given twice.
    Duplicate {
        /// The repeated name.
        name: String,
    },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::UnknownName { name, suggestion } => {
                write!(f, "unknown tool or tool group `{}`; ", Clipped(name))?;
                match suggestion {
                    Some(suggestion) => write!(f, "did you mean `{suggestion}`?"),
                    None => f.write_str("no tool or tool group of the server has that name"),
                }
            }
            PolicyError::Duplicate { name } => write!(f, "`{}` is listed twice", Clipped(name)),
        }
    }
}

impl std::error::Error for PolicyError {}
