//! Allow lists: which tools of a group's declared universe a context
//! serves. The group declares the universe, the default and the most a
//! list may hold (`#[tool_group(allow_list(...))]`); the backend picks a
//! list per context ([`ProfileContext::with_allowed`](crate::ProfileContext::with_allowed)).
//!
//! Like a policy, an allow list only removes tools, after assembly.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use super::intern::{self, Pair};
use crate::{Clipped, Vocabulary};

/// A group's allow list as `#[tool_group(allow_list(...))]` declares it;
/// emitted by the macro, which has checked every name.
#[doc(hidden)]
#[derive(Debug)]
pub struct AllowSpec {
    /// The group's explicit name.
    pub group: &'static str,
    /// The tools a list may name, sorted; the group's other tools are not
    /// governed by the list.
    pub universe: &'static [&'static str],
    /// The list a context without one of its own gets, sorted.
    pub default: &'static [&'static str],
    /// The most names a list may hold.
    pub max: usize,
}

impl AllowSpec {
    /// Whether `list` (this group's list in some context) keeps `tool`:
    /// a tool outside the universe always is.
    pub(crate) fn keeps(&self, list: &[&str], tool: &str) -> bool {
        self.universe.binary_search(&tool).is_err() || list.binary_search(&tool).is_ok()
    }
}

/// The allow lists a context sets, by group; a group with an allow list
/// that is not set here gets its declared default.
///
/// `Copy`: the lists are interned for the life of the process, like
/// [`DenyList`](crate::DenyList)s, so equality and hashing are a pointer
/// comparison. Built through [`ProfileContext::with_allowed`](crate::ProfileContext::with_allowed)
/// or the context's JSON form, which check every name.
pub struct AllowLists<S: Vocabulary> {
    /// Sorted by group, each group once, interned.
    pairs: &'static [Pair],
    vocabulary: PhantomData<fn() -> S>,
}

impl<S: Vocabulary> AllowLists<S> {
    /// No list set: every group gets its default.
    pub const fn empty() -> Self {
        AllowLists {
            pairs: &[],
            vocabulary: PhantomData,
        }
    }

    /// Whether no list is set.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The list set for `group`, sorted; `None` when the group gets its
    /// default.
    pub fn get(&self, group: &str) -> Option<&'static [&'static str]> {
        self.pairs
            .binary_search_by(|(name, _)| (*name).cmp(group))
            .ok()
            .map(|index| self.pairs[index].1)
    }

    /// Each group's set list, by group name.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &'static [&'static str])> {
        self.pairs.iter().copied()
    }

    /// The same lists with `group`'s set to `names` (checked, sorted,
    /// duplicate-free).
    pub(crate) fn with(self, group: &'static str, names: &[&str]) -> Self {
        let list = intern::intern(names);
        let mut pairs: Vec<Pair> = self
            .pairs
            .iter()
            .copied()
            .filter(|(name, _)| *name != group)
            .collect();
        let at = pairs.partition_point(|(name, _)| *name < group);
        pairs.insert(at, (group, list));
        AllowLists {
            pairs: intern::intern_pairs(&pairs),
            vocabulary: PhantomData,
        }
    }
}

impl<S: Vocabulary> Default for AllowLists<S> {
    fn default() -> Self {
        Self::empty()
    }
}

impl<S: Vocabulary> Clone for AllowLists<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for AllowLists<S> {}

impl<S: Vocabulary> PartialEq for AllowLists<S> {
    fn eq(&self, other: &Self) -> bool {
        intern::same(self.pairs, other.pairs)
    }
}

impl<S: Vocabulary> Eq for AllowLists<S> {}

impl<S: Vocabulary> Hash for AllowLists<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        intern::address(self.pairs).hash(state);
    }
}

impl<S: Vocabulary> fmt::Debug for AllowLists<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// `dispatch: list_jobs, post_job; other: ...`
impl<S: Vocabulary> fmt::Display for AllowLists<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .iter()
            .map(|(group, names)| format!("{group}: {}", names.join(", ")))
            .collect();
        f.write_str(&parts.join("; "))
    }
}

/// An allow list that could not be set or decoded; nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AllowError {
    /// No tool group has this name.
    UnknownGroup {
        /// The name given.
        group: String,
        /// The closest group with an allow list, if one is close enough.
        suggestion: Option<String>,
    },
    /// The group declares no allow list.
    NoAllowList {
        /// The group.
        group: String,
        /// The groups that declare one, sorted.
        with_lists: Vec<&'static str>,
    },
    /// A name outside the group's allow-list universe.
    UnknownName {
        /// The group.
        group: String,
        /// The name given.
        name: String,
        /// The closest name of the universe, if one is close enough.
        suggestion: Option<&'static str>,
    },
    /// A name given twice.
    Duplicate {
        /// The group.
        group: String,
        /// The repeated name.
        name: String,
    },
    /// More names than the group allows.
    TooMany {
        /// The group.
        group: String,
        /// How many names were given.
        given: usize,
        /// The most the group's list may hold.
        max: usize,
    },
    /// A group's list given twice in one context.
    DuplicateGroup {
        /// The group.
        group: String,
    },
    /// A runtime allow list for a server whose vocabulary declares none
    /// (`#[runtime_allow_list(max = N)]` on its `server` line).
    NoRuntimeAllowList {
        /// The server type, by its name.
        server: &'static str,
    },
    /// A name in a runtime allow list that is not a valid MCP tool name,
    /// so that no runtime tool can have it.
    InvalidRuntimeName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A name given twice in a runtime allow list.
    DuplicateRuntimeName {
        /// The repeated name.
        name: String,
    },
    /// A runtime allow list longer than the vocabulary's
    /// `#[runtime_allow_list(max = N)]`.
    TooManyRuntimeNames {
        /// How many names were given.
        given: usize,
        /// The vocabulary's `max`.
        max: usize,
    },
}

impl fmt::Display for AllowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllowError::UnknownGroup { group, suggestion } => {
                write!(f, "unknown tool group `{}`; ", Clipped(group))?;
                match suggestion {
                    Some(suggestion) => write!(f, "did you mean `{suggestion}`?"),
                    None => f.write_str("no tool group of the server has that name"),
                }
            }
            AllowError::NoAllowList { group, with_lists } => {
                write!(f, "tool group `{group}` declares no allow list; ")?;
                if with_lists.is_empty() {
                    f.write_str("no group of the server declares one")
                } else {
                    write!(f, "groups with one: {}", with_lists.join(", "))
                }
            }
            AllowError::UnknownName {
                group,
                name,
                suggestion,
            } => {
                write!(
                    f,
                    "`{}` is not a tool the allow list of `{group}` may name; ",
                    Clipped(name)
                )?;
                match suggestion {
                    Some(suggestion) => write!(f, "did you mean `{suggestion}`?"),
                    None => f.write_str("see the group's `allow_list(universe = ...)`"),
                }
            }
            AllowError::Duplicate { group, name } => write!(
                f,
                "`{}` is listed twice in the allow list of `{group}`",
                Clipped(name)
            ),
            AllowError::TooMany { group, given, max } => write!(
                f,
                "the allow list of `{group}` names {given} tools; it may name at most {max}"
            ),
            AllowError::DuplicateGroup { group } => {
                write!(f, "the allow list of `{group}` is given twice")
            }
            AllowError::NoRuntimeAllowList { server } => write!(
                f,
                "the vocabulary of `{server}` declares no runtime allow list; add \
                 `#[runtime_allow_list(max = N)]` before its `server` line to let a context \
                 limit the runtime tools it serves"
            ),
            AllowError::InvalidRuntimeName { name, reason } => write!(
                f,
                "{:?} in the runtime allow list is not a valid MCP tool name: {reason}",
                Clipped(name).to_string()
            ),
            AllowError::DuplicateRuntimeName { name } => write!(
                f,
                "`{}` is listed twice in the runtime allow list",
                Clipped(name)
            ),
            AllowError::TooManyRuntimeNames { given, max } => write!(
                f,
                "the runtime allow list names {given} tools; it may name at most {max} \
                 (the vocabulary's `#[runtime_allow_list(max = {max})]`)"
            ),
        }
    }
}

impl std::error::Error for AllowError {}
