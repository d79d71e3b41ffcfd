//! The allow lists that keep a context's costliest tools (feature
//! `tokens`): what a budget must hold against, since the backend may give
//! a context any list of at most `max` names of a group's universe.
//!
//! A tool only allow lists can keep (every group exposing it governs it
//! with its list) is kept when one of those lists names it; each list holds
//! at most its group's `max`. The sets of tools some lists can keep
//! together are the independent sets of a transversal matroid (tools
//! matched to groups, each group taking at most `max`), so taking tools
//! costliest first, each when an augmenting path can still fit it, keeps
//! the most tokens there are to keep.

use std::collections::BTreeMap;

use crate::{ProfileContext, Registry, Vocabulary};

/// `context` with, for each enabled group that declares an allow list,
/// the list that keeps the most tokens (a group whose default already
/// does keeps it).
pub(super) fn widest_lists<S: Vocabulary>(
    registry: &Registry<S>,
    context: ProfileContext<S>,
) -> ProfileContext<S> {
    if !registry.allowing() {
        return context;
    }
    let groups = registry.groups();
    let set = registry.tool_set(&registry.enabled_groups(&context));
    // Each tool only allow lists keep: its tokens, name, and the groups
    // whose list may name it.
    let mut contested: Vec<(usize, &'static str, Vec<usize>)> = Vec::new();
    for (position, (&origin, &name)) in set.origins.iter().zip(set.tools.iter()).enumerate() {
        let mut listing = Vec::new();
        let mut free = false;
        for (group, _) in std::iter::once(origin).chain(set.also_of(position)) {
            match groups[group].allow_spec() {
                Some(spec) if spec.universe.binary_search(&name).is_ok() => listing.push(group),
                _ => free = true,
            }
        }
        if !free {
            let tokens = groups[origin.0].costs()[origin.1].tokens();
            contested.push((tokens, name, listing));
        }
    }
    contested.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let candidates: Vec<Vec<usize>> = contested
        .iter()
        .map(|(_, _, groups)| groups.clone())
        .collect();
    let mut matching = Matching {
        candidates: &candidates,
        capacity: |group: usize| groups[group].allow_spec().map_or(0, |spec| spec.max),
        assigned: vec![None; contested.len()],
        load: BTreeMap::new(),
    };
    for tool in 0..contested.len() {
        matching.augment(tool, &mut Vec::new());
    }
    let mut lists: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (tool, group) in matching.assigned.iter().enumerate() {
        if let Some(group) = group {
            lists.entry(*group).or_default().push(contested[tool].1);
        }
    }
    let mut allow = context.allow_lists();
    for (group, mut names) in lists {
        let spec = groups[group]
            .allow_spec()
            .expect("only groups with allow lists take tools");
        names.sort_unstable();
        if names != spec.default {
            allow = registry
                .allow(allow, spec.group, names)
                .expect("at most `max` names of the group's universe, each once");
        }
    }
    context.with_allow_lists(allow)
}

/// Tools matched to the groups whose lists keep them.
struct Matching<'a, C> {
    /// The groups each tool may go to.
    candidates: &'a [Vec<usize>],
    /// How many tools a group may take.
    capacity: C,
    /// The group each tool went to, if any.
    assigned: Vec<Option<usize>>,
    /// How many tools each group took.
    load: BTreeMap<usize, usize>,
}

impl<C: Fn(usize) -> usize> Matching<'_, C> {
    /// Fits `tool` into a group, moving tools already placed along an
    /// augmenting path if need be; false (and nothing moved) when it cannot
    /// fit. `seen`: the groups this search visited.
    fn augment(&mut self, tool: usize, seen: &mut Vec<usize>) -> bool {
        for &group in &self.candidates[tool] {
            if seen.contains(&group) {
                continue;
            }
            seen.push(group);
            let load = self.load.get(&group).copied().unwrap_or(0);
            if load < (self.capacity)(group) {
                self.assigned[tool] = Some(group);
                self.load.insert(group, load + 1);
                return true;
            }
            let holders: Vec<usize> = (0..self.assigned.len())
                .filter(|&other| self.assigned[other] == Some(group))
                .collect();
            for holder in holders {
                // The holder moves on; `tool` takes its place in `group`.
                if self.augment(holder, seen) {
                    self.assigned[tool] = Some(group);
                    return true;
                }
            }
        }
        false
    }
}
