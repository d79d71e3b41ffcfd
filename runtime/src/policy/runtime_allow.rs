//! A context's runtime allow list: which runtime tools it serves, for a
//! vocabulary that declares `#[runtime_allow_list(max = N)]`.
//!
//! Runtime tools come from catalogs the context knows nothing of, so the
//! list is checked against MCP's tool-name rules and the vocabulary's
//! `max`, not against any catalog: a name no installed tool has yet keeps
//! that tool out until it is installed. Like a group's allow list it only
//! removes, where runtime tools are judged (`catalog/view.rs`); compiled
//! tools are never governed by it.

use std::fmt;
use std::hash::{Hash, Hasher};

use super::intern;
use crate::tool_name::check_name;
use crate::{AllowError, Vocabulary};

/// `None` (the default) leaves runtime tools unrestricted; `Some` serves
/// only the runtime tools it names (none, when empty). `Copy`: the names
/// are interned, sorted and duplicate-free, like a deny list's.
#[derive(Clone, Copy, Default)]
pub(crate) struct RuntimeAllowList(Option<&'static [&'static str]>);

impl RuntimeAllowList {
    /// No list: every runtime tool the context's rules enable is served.
    pub const UNRESTRICTED: Self = RuntimeAllowList(None);

    /// A list of `names` for a context of `S`.
    ///
    /// Strict, as decoding is: a vocabulary that declares no runtime allow
    /// list, a name that is not a valid MCP tool name, a name given twice
    /// or more names than the vocabulary's `max` is an error naming it.
    /// Order does not matter.
    pub fn new<S: Vocabulary, N: AsRef<str>>(
        names: impl IntoIterator<Item = N>,
    ) -> Result<Self, AllowError> {
        let Some(max) = S::RUNTIME_ALLOW_MAX else {
            let server = std::any::type_name::<S>();
            return Err(AllowError::NoRuntimeAllowList {
                server: server.rsplit("::").next().unwrap_or(server),
            });
        };
        let given: Vec<N> = names.into_iter().collect();
        let mut list: Vec<&str> = Vec::with_capacity(given.len());
        for name in &given {
            let name = name.as_ref();
            if let Err(reason) = check_name(name) {
                return Err(AllowError::InvalidRuntimeName {
                    name: name.to_owned(),
                    reason,
                });
            }
            list.push(name);
        }
        list.sort_unstable();
        if let Some(pair) = list.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(AllowError::DuplicateRuntimeName {
                name: pair[0].to_owned(),
            });
        }
        if list.len() > max {
            return Err(AllowError::TooManyRuntimeNames {
                given: list.len(),
                max,
            });
        }
        Ok(RuntimeAllowList(Some(intern::intern(&list))))
    }

    /// The names served, sorted; `None` when runtime tools are unrestricted.
    pub fn names(self) -> Option<&'static [&'static str]> {
        self.0
    }

    /// This list where a list is `required` (the vocabulary's
    /// `required_on`): none set there means none allowed.
    #[cfg(feature = "runtime-tools")]
    pub fn required(self, required: bool) -> Self {
        match self.0 {
            None if required => RuntimeAllowList(Some(&[])),
            _ => self,
        }
    }

    /// Whether the runtime tool called `tool` may be served.
    #[cfg(any(feature = "runtime-tools", test))]
    pub fn keeps(self, tool: &str) -> bool {
        self.0
            .is_none_or(|names| names.binary_search(&tool).is_ok())
    }
}

impl PartialEq for RuntimeAllowList {
    fn eq(&self, other: &Self) -> bool {
        match (self.0, other.0) {
            (Some(a), Some(b)) => intern::same(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Eq for RuntimeAllowList {}

impl Hash for RuntimeAllowList {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.map(intern::address).hash(state);
    }
}

impl fmt::Debug for RuntimeAllowList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, RandomState};

    use super::RuntimeAllowList;

    #[test]
    fn equality_and_hashing_tell_no_list_from_an_empty_one() {
        let hasher = RandomState::new();
        let empty = RuntimeAllowList(Some(&[]));
        assert_ne!(empty, RuntimeAllowList::UNRESTRICTED);
        assert_ne!(
            hasher.hash_one(empty),
            hasher.hash_one(RuntimeAllowList::UNRESTRICTED)
        );
        let list = RuntimeAllowList(Some(super::intern::intern(&["a", "b"])));
        let again = RuntimeAllowList(Some(super::intern::intern(&["a", "b"])));
        assert_eq!(list, again);
        assert_eq!(hasher.hash_one(list), hasher.hash_one(again));
        assert!(list.keeps("a") && !list.keeps("c"));
        assert!(!empty.keeps("a"));
        assert!(RuntimeAllowList::UNRESTRICTED.keeps("anything"));
    }
}
