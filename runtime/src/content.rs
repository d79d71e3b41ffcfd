//! Prompt and resource groups: what `#[prompt_group]` and `#[resource_group]`
//! register, checked like tool groups, and the per-context views sessions
//! serve them from.
//!
//! Both kinds share everything but their routes: an entry links into the
//! same `TOOL_GROUPS` slice as a tool group (its type tells them apart), the
//! registry verifies names, reachability and collisions the same way
//! ([`ContentGroups`]), and each distinct set of enabled groups gets one
//! view, built on first use and kept for the life of the process, like a
//! tool snapshot ([`ContentViews`], held next to the tool snapshots). The
//! kind-specific parts are in `prompts.rs` and `resources.rs`.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_profiles_rules::BitSet;

use crate::RegistryError;
use crate::rule::{RuleMasks, Shape};
use crate::{ProfileContext, Vocabulary};

/// One `#[prompt_group]` or `#[resource_group]` as the macro emits it; `R`
/// is the kind's route. Not meant to be written by hand.
pub struct ContentEntry<R: 'static> {
    /// The explicit `name = "..."`, if any.
    pub name: Option<&'static str>,
    /// Its `title = "..."`, if any: what a person reads as its name.
    pub title: Option<&'static str>,
    /// Its `description = "..."`, if any: what it is for.
    pub description: Option<&'static str>,
    /// `module_path!()` of the group; its last segment is the default name.
    pub module_path: &'static str,
    /// `file!()` of the group.
    pub file: &'static str,
    /// `line!()` of the group.
    pub line: u32,
    /// The enablement rule.
    pub rule: RuleMasks,
    /// Its prompt names or resource URIs (and templates), in source order.
    pub items: &'static [&'static str],
    /// Builds the group's routes, in the order of `items`.
    pub routes: fn() -> Vec<R>,
}

impl<R> std::fmt::Debug for ContentEntry<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContentEntry")
            .field("name", &self.name)
            .field("items", &self.items)
            .finish_non_exhaustive()
    }
}

/// What a kind of content contributes: its route's key, what a list
/// answers, and how its collisions are reported.
pub(crate) trait Item: Clone + Send + Sync + 'static {
    /// What `*/list` answers for one view, built once per view.
    type Listed: PartialEq + Send + Sync + 'static;
    /// `prompt` or `resource`, for errors.
    const KIND: &'static str;
    /// The prompt name or the resource URI (or template).
    fn key(&self) -> &str;
    /// The list of the visible routes, sorted by key.
    fn listed(routes: &[Self]) -> Self::Listed;
    /// Two groups some context enables together share `key`.
    fn collision(key: String, groups: [String; 2], witness: String) -> RegistryError;
}

/// One enabled prompt or resource group, as a grouping client is told of
/// it.
pub(crate) struct Described<'a> {
    pub name: &'a str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    /// Its prompt names or resource URIs (and templates).
    pub items: &'static [&'static str],
}

struct ContentGroup<R: 'static> {
    name: Arc<str>,
    entry: &'static ContentEntry<R>,
}

/// What one set of enabled groups serves: their routes sorted by key, and
/// the list built from them.
pub(crate) struct View<R: Item> {
    routes: Box<[R]>,
    pub listed: R::Listed,
}

impl<R: Item> View<R> {
    /// A view of `routes`, sorted here, as a set of enabled groups makes it.
    pub(crate) fn of(mut routes: Vec<R>) -> Self {
        routes.sort_by(|a, b| a.key().cmp(b.key()));
        View {
            listed: R::listed(&routes),
            routes: routes.into_boxed_slice(),
        }
    }

    /// The visible route keyed `key`.
    pub fn get(&self, key: &str) -> Option<&R> {
        self.routes
            .binary_search_by(|route| route.key().cmp(key))
            .ok()
            .map(|index| &self.routes[index])
    }

    /// The visible routes, sorted by key.
    pub fn routes(&self) -> &[R] {
        &self.routes
    }

    /// Whether a client would see a change from `self` to `other`.
    pub fn differs(&self, other: &View<R>) -> bool {
        !std::ptr::eq(self, other) && self.listed != other.listed
    }
}

/// Every group of one kind of one server type, sorted by name.
pub(crate) struct ContentGroups<R: Item> {
    groups: Vec<ContentGroup<R>>,
}

impl<R: Item> ContentGroups<R> {
    pub fn new(entries: impl IntoIterator<Item = &'static ContentEntry<R>>) -> Self {
        let mut groups: Vec<ContentGroup<R>> = entries
            .into_iter()
            .map(|entry| ContentGroup {
                name: default_name(entry),
                entry,
            })
            .collect();
        groups.sort_by(|a, b| {
            (&a.name, a.entry.file, a.entry.line).cmp(&(&b.name, b.entry.file, b.entry.line))
        });
        ContentGroups { groups }
    }

    /// Whether the server has no group of this kind: then its own handler
    /// serves the kind, as if the library were not there.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The group names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.groups.iter().map(|group| &*group.name)
    }

    /// The problems of these groups: a name used twice, a group no context
    /// enables, a key two co-enabled groups share. `describe` says why a
    /// rule is unsatisfiable, as the registry does for tool groups.
    pub fn verify<S: Vocabulary>(
        &self,
        shape: &Shape,
        describe: impl Fn(mcp_profiles_rules::Unsatisfiable) -> String,
        errors: &mut Vec<RegistryError>,
    ) {
        for pair in self.groups.windows(2) {
            if pair[0].name == pair[1].name {
                errors.push(RegistryError::DuplicateContentGroupName {
                    kind: R::KIND,
                    name: pair[0].name.to_string(),
                    locations: [location(pair[0].entry), location(pair[1].entry)],
                });
            }
        }
        let mut reachable = vec![true; self.groups.len()];
        for (index, group) in self.groups.iter().enumerate() {
            if let Err(why) = shape.witness(&group.entry.rule) {
                reachable[index] = false;
                errors.push(RegistryError::UnreachableContentGroup {
                    kind: R::KIND,
                    group: group.name.to_string(),
                    location: location(group.entry),
                    reason: describe(why),
                });
            }
        }
        let mut owners: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (index, group) in self.groups.iter().enumerate() {
            for item in group.entry.items {
                owners.entry(item).or_default().push(index);
            }
        }
        for (key, groups) in owners {
            for (i, &a) in groups.iter().enumerate() {
                for &b in &groups[i + 1..] {
                    if a == b || !reachable[a] || !reachable[b] {
                        continue;
                    }
                    let (first, second) = (&self.groups[a], &self.groups[b]);
                    if let Some(witness) =
                        shape.joint_witness(&first.entry.rule, &second.entry.rule)
                    {
                        errors.push(R::collision(
                            key.to_owned(),
                            [first.name.to_string(), second.name.to_string()],
                            ProfileContext::<S>::from_bits(witness).to_json(),
                        ));
                    }
                }
            }
        }
    }

    /// The groups `context` enables, as MCP's grouping extension lists
    /// them: name, title, description and items.
    pub fn described<S: Vocabulary>(&self, context: &ProfileContext<S>) -> Vec<Described<'_>> {
        let enabled = self.enabled(context);
        self.groups
            .iter()
            .enumerate()
            .filter(|(index, _)| enabled.contains(*index))
            .map(|(_, group)| Described {
                name: &group.name,
                title: group.entry.title,
                description: group.entry.description,
                items: group.entry.items,
            })
            .collect()
    }

    /// The groups `context` enables.
    fn enabled<S: Vocabulary>(&self, context: &ProfileContext<S>) -> BitSet {
        let bits = context.bits();
        BitSet::from_fn(self.groups.len(), |index| {
            self.groups[index].entry.rule.matches(&bits)
        })
    }

    /// Builds the routes of group `index`.
    ///
    /// # Panics
    ///
    /// If they disagree with its declared keys, which only a hand-built
    /// entry can cause.
    fn build_routes(&self, index: usize) -> Vec<R> {
        let group = &self.groups[index];
        let routes = (group.entry.routes)();
        let keys: Vec<&str> = routes.iter().map(R::key).collect();
        assert_eq!(
            keys,
            group.entry.items,
            "the routes of {} group `{}` do not match its declared items",
            R::KIND,
            group.name
        );
        routes
    }
}

/// The routes and views of one kind of one server type's content groups,
/// each built on first use and kept for the life of the process.
pub(crate) struct ContentViews<R: Item> {
    groups: &'static ContentGroups<R>,
    /// Each group's routes, indexed like `groups`.
    routes: Box<[OnceLock<Vec<R>>]>,
    /// One view per distinct set of enabled groups.
    views: Mutex<HashMap<BitSet, &'static View<R>>>,
}

impl<R: Item> ContentViews<R> {
    pub fn new(groups: &'static ContentGroups<R>) -> Self {
        ContentViews {
            groups,
            routes: groups.groups.iter().map(|_| OnceLock::new()).collect(),
            views: Mutex::default(),
        }
    }

    /// The view of `context`: one per distinct set of enabled groups.
    pub fn view<S: Vocabulary>(&self, context: &ProfileContext<S>) -> &'static View<R> {
        let enabled = self.groups.enabled(context);
        let mut views = self.views.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(view) = views.get(&enabled) {
            return view;
        }
        let routes: Vec<R> = enabled
            .iter()
            .flat_map(|index| {
                self.routes[index]
                    .get_or_init(|| self.groups.build_routes(index))
                    .iter()
                    .cloned()
            })
            .collect();
        let view: &'static View<R> = Box::leak(Box::new(View::of(routes)));
        views.insert(enabled, view);
        view
    }
}

fn location<R>(entry: &ContentEntry<R>) -> String {
    format!("{}:{}", entry.file, entry.line)
}

fn default_name<R>(entry: &ContentEntry<R>) -> Arc<str> {
    match entry.name {
        Some(name) => Arc::from(name),
        None => {
            let module = entry.module_path.rsplit("::").next().unwrap_or_default();
            Arc::from(module.replace('_', "-"))
        }
    }
}
