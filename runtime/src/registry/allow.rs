//! Allow lists checked against a registry: a group that declares one,
//! names of its universe, each once, at most its `max`.

use super::Registry;
use crate::{AllowError, AllowLists, Vocabulary};

impl<S: Vocabulary> Registry<S> {
    /// `lists` with `group`'s allow list set to `names`.
    ///
    /// Strict, as decoding is: an unknown group (with the closest group
    /// that declares an allow list), a group that declares none, a name
    /// outside its universe (with the closest one), a name given twice or
    /// more names than its `max` is an error naming it, and `lists` is
    /// left as it was. Order does not matter.
    pub(crate) fn allow<N: AsRef<str>>(
        &self,
        lists: AllowLists<S>,
        group: &str,
        names: impl IntoIterator<Item = N>,
    ) -> Result<AllowLists<S>, AllowError> {
        let with_lists = || {
            self.groups()
                .iter()
                .filter_map(|group| group.allow_spec().map(|spec| spec.group))
        };
        let Some(found) = self.group(group) else {
            return Err(AllowError::UnknownGroup {
                group: group.to_owned(),
                suggestion: mcp_profiles_rules::closest(group, with_lists()).map(str::to_owned),
            });
        };
        let Some(spec) = found.allow_spec() else {
            return Err(AllowError::NoAllowList {
                group: group.to_owned(),
                with_lists: with_lists().collect(),
            });
        };
        let given: Vec<N> = names.into_iter().collect();
        let mut list: Vec<&str> = Vec::with_capacity(given.len());
        for name in &given {
            let name = name.as_ref();
            if spec.universe.binary_search(&name).is_err() {
                return Err(AllowError::UnknownName {
                    group: group.to_owned(),
                    name: name.to_owned(),
                    suggestion: mcp_profiles_rules::closest(name, spec.universe.iter().copied()),
                });
            }
            list.push(name);
        }
        list.sort_unstable();
        if let Some(pair) = list.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(AllowError::Duplicate {
                group: group.to_owned(),
                name: pair[0].to_owned(),
            });
        }
        if list.len() > spec.max {
            return Err(AllowError::TooMany {
                group: group.to_owned(),
                given: list.len(),
                max: spec.max,
            });
        }
        Ok(lists.with(spec.group, &list))
    }

    /// Whether some group declares an allow list.
    pub(crate) fn allowing(&self) -> bool {
        self.allowing
    }
}
