//! Deny lists checked against a registry: every name a compiled tool's or
//! a group's, each once.

use super::Registry;
use crate::{DenyList, PolicyError, Vocabulary};

impl<S: Vocabulary> Registry<S> {
    /// A [`DenyList`] of `names`, each the name of a compiled tool or of a
    /// tool group of this registry.
    ///
    /// Strict, as decoding is: an unknown name is an error naming it (with
    /// the closest declared name, if one is close), and so is a name given
    /// twice. Order does not matter.
    pub fn deny_list<N: AsRef<str>>(
        &self,
        names: impl IntoIterator<Item = N>,
    ) -> Result<DenyList<S>, PolicyError> {
        let given: Vec<N> = names.into_iter().collect();
        let mut list: Vec<&str> = Vec::with_capacity(given.len());
        for name in &given {
            let name = name.as_ref();
            if !self.declares(name) {
                let known = self.groups().iter().flat_map(|group| {
                    std::iter::once(group.name()).chain(group.tools().iter().copied())
                });
                return Err(PolicyError::UnknownName {
                    name: name.to_owned(),
                    suggestion: mcp_profiles_rules::closest(name, known).map(str::to_owned),
                });
            }
            list.push(name);
        }
        list.sort_unstable();
        if let Some(pair) = list.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(PolicyError::Duplicate {
                name: pair[0].to_owned(),
            });
        }
        Ok(DenyList::interned(&list))
    }

    /// Whether `name` is a group's or a compiled tool's.
    fn declares(&self, name: &str) -> bool {
        self.group(name).is_some()
            || self
                .groups()
                .iter()
                .any(|group| group.tools().contains(&name))
    }
}
