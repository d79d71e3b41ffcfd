//! Allow lists checked against a registry: a group that declares one,
//! names of its universe, each once, at most its `max`.

use super::{Registry, RegistryError};
use crate::policy::AllowSpec;
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
        !self.allow.is_empty()
    }

    /// Every allow list names one group, once, and keeps its rules: a
    /// sorted, duplicate-free universe of the group's tools, a sorted,
    /// duplicate-free default within it, and `1 <= max <= universe` with
    /// the default within `max`. `#[tool_group]` checks all this when the
    /// group compiles; the registry refuses rather than trusts.
    pub(super) fn verify_allow_lists(&self, errors: &mut Vec<RegistryError>) {
        for (index, spec) in self.allow.iter().enumerate() {
            let mut invalid = |reason: String| {
                errors.push(RegistryError::InvalidAllowList {
                    group: spec.group.to_owned(),
                    reason,
                });
            };
            if self.allow[..index].iter().any(|s| s.group == spec.group) {
                invalid("the group declares two".to_owned());
                continue;
            }
            let Some(group) = self.group(spec.group) else {
                invalid("no tool group has that name".to_owned());
                continue;
            };
            if let Some(reason) = broken(spec, group.tools()) {
                invalid(reason);
            }
        }
    }
}

/// What breaks `spec`'s rules over a group of `tools`, if anything.
fn broken(spec: &AllowSpec, tools: &[&str]) -> Option<String> {
    let strictly_sorted = |list: &[&str]| list.windows(2).all(|pair| pair[0] < pair[1]);
    if spec.universe.is_empty() {
        return Some("its universe is empty".to_owned());
    }
    if !strictly_sorted(spec.universe) || !strictly_sorted(spec.default) {
        return Some("its universe or default is not sorted and duplicate-free".to_owned());
    }
    if let Some(name) = spec.universe.iter().find(|name| !tools.contains(name)) {
        return Some(format!("`{name}` is not a tool of the group"));
    }
    if let Some(name) = spec
        .default
        .iter()
        .find(|name| spec.universe.binary_search(name).is_err())
    {
        return Some(format!("its default names `{name}`, outside its universe"));
    }
    if spec.max == 0 || spec.max > spec.universe.len() {
        return Some(format!(
            "`max = {}` is not between 1 and the universe's {} tools",
            spec.max,
            spec.universe.len()
        ));
    }
    if spec.default.len() > spec.max {
        return Some(format!(
            "its default names {} tools, more than `max = {}`",
            spec.default.len(),
            spec.max
        ));
    }
    None
}
