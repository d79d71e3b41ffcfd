//! The registry: every tool group of a server type, sorted and verified.
//!
//! Each `#[tool_group]` emits one `GroupEntry` static and links it into
//! `TOOL_GROUPS` with `linkme`; nothing lists groups by hand and nothing
//! runs before `main`. The registry collects the entries of one server type,
//! sorts them by name and verifies them once.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use linkme::distributed_slice;
use rmcp::handler::server::router::prompt::PromptRoute;
use rmcp::handler::server::router::tool::ToolRoute;

use crate::content::{ContentEntry, ContentGroups};
use crate::measure::ToolCost;
use crate::policy::{AllowSpec, Hints};
use crate::resources::ResourceRoute;
use crate::rule::{RuleMasks, Shape, Unsatisfiable, shape_of};
use crate::vocabulary::TermBits;
use crate::{Errors, ProfileContext, RegistryError, RegistryErrors, Rule, Vocabulary};

mod additive;
mod allow;
#[cfg(feature = "testing")]
mod builder;
mod deny;
mod nesting;

#[cfg(feature = "testing")]
pub use builder::RegistryBuilder;

/// One `#[tool_group]` as the macro emits it.
///
/// Not meant to be written by hand outside tests of the registry itself.
pub struct GroupEntry<S: Vocabulary> {
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
    /// The group's tool names, in source order.
    pub tools: &'static [&'static str],
    /// The method defining each tool, indexed like `tools` (a tool
    /// included from another group names that group's method); empty for
    /// a group built in code, whose tools are its own definitions.
    pub definitions: &'static [&'static str],
    /// The groups it includes tools of (`include(...)`), by name: each
    /// names it as its parent in MCP's grouping extension.
    pub includes: &'static [&'static str],
    /// Builds the group's rmcp routes, in the order of `tools`.
    pub routes: fn() -> Vec<ToolRoute<S>>,
}

impl<S: Vocabulary> Clone for GroupEntry<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for GroupEntry<S> {}

impl<S: Vocabulary> std::fmt::Debug for GroupEntry<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupEntry")
            .field("name", &self.name)
            .field("module_path", &self.module_path)
            .finish_non_exhaustive()
    }
}

/// A group entry of some server type, as stored in `TOOL_GROUPS`.
pub struct LinkedGroup {
    server: fn() -> TypeId,
    entry: &'static (dyn Any + Sync),
}

impl std::fmt::Debug for LinkedGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkedGroup").finish_non_exhaustive()
    }
}

impl LinkedGroup {
    /// Links `entry` as a group of server type `S`.
    pub const fn new<S: Vocabulary>(entry: &'static GroupEntry<S>) -> Self {
        LinkedGroup {
            server: TypeId::of::<S>,
            entry,
        }
    }

    /// Links `entry` as a prompt or resource group of server type `S`
    /// (`R` is the kind's route type).
    pub const fn content<S: Vocabulary, R: Sync + 'static>(
        entry: &'static ContentEntry<R>,
    ) -> Self {
        LinkedGroup {
            server: TypeId::of::<S>,
            entry,
        }
    }

    /// Links `spec` as the allow list of a `#[tool_group]` of server type
    /// `S`.
    pub const fn allow_list<S: Vocabulary>(spec: &'static AllowSpec) -> Self {
        LinkedGroup {
            server: TypeId::of::<S>,
            entry: spec,
        }
    }

    fn entry_for<S: Vocabulary>(&self) -> Option<GroupEntry<S>> {
        self.downcast::<S, GroupEntry<S>>().copied()
    }

    /// The entry, if it is a `T` of server type `S`.
    fn downcast<S: Vocabulary, T: 'static>(&self) -> Option<&'static T> {
        if (self.server)() == TypeId::of::<S>() {
            let entry: &'static dyn Any = self.entry;
            entry.downcast_ref::<T>()
        } else {
            None
        }
    }
}

/// Every tool group of every server type linked into the program.
#[distributed_slice]
pub static TOOL_GROUPS: [LinkedGroup];

/// Builds `S`'s registry from the linked groups, panicking if it is invalid.
///
/// Called once by the `Vocabulary::registry` that `vocabulary!` generates.
pub fn linked_registry<S: Vocabulary>() -> Registry<S> {
    Registry::linked().unwrap_or_else(|errors| {
        panic!(
            "the tool groups of `{}` are invalid:\n{errors}",
            std::any::type_name::<S>()
        )
    })
}

/// One tool group of a registry.
pub struct Group<S: Vocabulary> {
    name: Arc<str>,
    entry: GroupEntry<S>,
    /// What each tool's annotations say, indexed like `tools`: read from
    /// the routes when a policy first asks, since building them builds
    /// every schema of the group.
    hints: OnceLock<Box<[Hints]>>,
    /// What each tool's definition costs in `tools/list`, indexed like
    /// `tools`: measured when a cost is first asked for, since that builds
    /// every schema of the group (and may load the tokenizer).
    costs: OnceLock<Box<[ToolCost]>>,
    /// The allow list it declares, if any.
    allow: Option<&'static AllowSpec>,
}

impl<S: Vocabulary> Group<S> {
    /// The group's name: its `name = "..."`, or else the last segment of its
    /// module path with `_` written as `-`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its `title = "..."`: what a person reads as its name (MCP's
    /// grouping extension lists it), if declared.
    pub fn title(&self) -> Option<&'static str> {
        self.entry.title
    }

    /// Its `description = "..."`: what it is for, if declared.
    pub fn description(&self) -> Option<&'static str> {
        self.entry.description
    }

    /// The groups it includes tools of (`include(...)`), by name.
    pub fn includes(&self) -> &'static [&'static str] {
        self.entry.includes
    }

    pub(crate) fn shared_name(&self) -> &Arc<str> {
        &self.name
    }

    /// The enablement rule.
    pub fn rule(&self) -> Rule<S> {
        Rule::from_masks(self.entry.rule)
    }

    /// The group's tool names, in source order.
    pub fn tools(&self) -> &'static [&'static str] {
        self.entry.tools
    }

    /// The allow list the group declares, if any.
    pub(crate) fn allow_spec(&self) -> Option<&'static AllowSpec> {
        self.allow
    }

    /// The tools the group's allow list may name, sorted; `None` when it
    /// declares no allow list.
    pub fn allow_universe(&self) -> Option<&'static [&'static str]> {
        self.allow.map(|spec| spec.universe)
    }

    /// The allow list a context that sets none gets, sorted; `None` when
    /// the group declares no allow list.
    pub fn allow_default(&self) -> Option<&'static [&'static str]> {
        self.allow.map(|spec| spec.default)
    }

    /// The most names the group's allow list may hold; `None` when it
    /// declares no allow list.
    pub fn allow_max(&self) -> Option<usize> {
        self.allow.map(|spec| spec.max)
    }

    /// Where the group is declared, as `file:line`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.entry.file, self.entry.line)
    }

    /// Builds the group's rmcp routes (schemas included); done once per
    /// server, not per request.
    pub fn routes(&self) -> Vec<ToolRoute<S>> {
        (self.entry.routes)()
    }

    /// The annotation hints of each tool, indexed like [`tools`](Self::tools).
    /// A tool without a route (a group built in code) has no annotations,
    /// so MCP's defaults: not read-only, maybe destructive.
    pub(crate) fn hints(&self) -> &[Hints] {
        self.hints.get_or_init(|| {
            self.per_tool(
                |_| Hints::default(),
                |tool| Hints::of(tool.annotations.as_ref()),
            )
            .into()
        })
    }

    /// What each tool's definition costs in `tools/list`, indexed like
    /// [`tools`](Self::tools). A tool without a route (a group built in
    /// code) costs what a bare definition of its name would.
    pub(crate) fn costs(&self) -> &[ToolCost] {
        self.costs
            .get_or_init(|| self.per_tool(ToolCost::bare, ToolCost::of).into())
    }

    /// `of` each tool's definition, indexed like [`tools`](Self::tools);
    /// `bare` of the name of a tool without a route.
    fn per_tool<T>(
        &self,
        bare: impl Fn(&str) -> T,
        of: impl Fn(&rmcp::model::Tool) -> T,
    ) -> Vec<T> {
        let routes = self.routes();
        self.tools()
            .iter()
            .map(|name| {
                routes
                    .iter()
                    .find(|route| route.name() == *name)
                    .map_or_else(|| bare(name), |route| of(&route.attr))
            })
            .collect()
    }

    /// The method defining `tool`, if the group has it and says.
    fn definition(&self, tool: &str) -> Option<&'static str> {
        let index = self.entry.tools.iter().position(|name| *name == tool)?;
        self.entry.definitions.get(index).copied()
    }

    /// Whether both groups expose `tool` through one definition.
    fn same_definition(&self, other: &Group<S>, tool: &str) -> bool {
        matches!(
            (self.definition(tool), other.definition(tool)),
            (Some(a), Some(b)) if a == b
        )
    }

    /// Sets the hints a group built in code declares instead of routes.
    #[cfg(feature = "testing")]
    pub(crate) fn set_hints(&mut self, hints: Box<[Hints]>) {
        self.hints = OnceLock::from(hints);
    }
}

impl<S: Vocabulary> fmt::Debug for Group<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Group")
            .field("name", &self.name)
            .field("rule", &self.rule())
            .field("tools", &self.entry.tools)
            .finish()
    }
}

/// Every tool group of server type `S`, sorted by name and verified.
///
/// Verification is exact over the whole context space: group names are
/// unique, every group can be enabled by some valid context, and no two
/// groups that some valid context enables together expose the same tool name
/// through two different definitions (one definition several groups share
/// with `include(...)` is one tool).
/// Because rules only ever *require* capabilities and providers (all of a
/// set, or one of an any-of set), a minimal context satisfying a rule (or two
/// rules) settles each check, so the check costs a few steps (one per
/// choice of any-of members) per group and per pair of groups sharing a tool
/// name, not one per context.
pub struct Registry<S: Vocabulary> {
    groups: Vec<Group<S>>,
    /// The `#[prompt_group]`s, checked the same way.
    prompts: ContentGroups<PromptRoute<S>>,
    /// The `#[resource_group]`s, checked the same way.
    resources: ContentGroups<ResourceRoute<S>>,
    shape: Shape,
    /// Every linked allow list: with none, assembly under no policy skips
    /// judging tools.
    allow: Vec<&'static AllowSpec>,
}

impl<S: Vocabulary> Registry<S> {
    /// Collects `S`'s groups from the program's linked entries and verifies them.
    ///
    /// The prompt and resource groups (`#[prompt_group]`,
    /// `#[resource_group]`) are collected and verified too.
    pub fn linked() -> Result<Self, RegistryErrors> {
        Self::from_parts(
            TOOL_GROUPS.iter().filter_map(LinkedGroup::entry_for::<S>),
            ContentGroups::new(TOOL_GROUPS.iter().filter_map(LinkedGroup::downcast::<S, _>)),
            ContentGroups::new(TOOL_GROUPS.iter().filter_map(LinkedGroup::downcast::<S, _>)),
            TOOL_GROUPS
                .iter()
                .filter_map(LinkedGroup::downcast::<S, AllowSpec>)
                .collect(),
        )
    }

    /// Builds and verifies a registry from explicit entries.
    #[cfg(any(test, feature = "testing"))]
    pub(crate) fn from_entries(
        entries: impl IntoIterator<Item = GroupEntry<S>>,
    ) -> Result<Self, RegistryErrors> {
        Self::from_parts(
            entries,
            ContentGroups::new([]),
            ContentGroups::new([]),
            Vec::new(),
        )
    }

    /// [`from_entries`](Self::from_entries), with allow lists.
    #[cfg(test)]
    pub(crate) fn from_entries_allowing(
        entries: impl IntoIterator<Item = GroupEntry<S>>,
        allow: Vec<&'static AllowSpec>,
    ) -> Result<Self, RegistryErrors> {
        Self::from_parts(
            entries,
            ContentGroups::new([]),
            ContentGroups::new([]),
            allow,
        )
    }

    fn from_parts(
        entries: impl IntoIterator<Item = GroupEntry<S>>,
        prompts: ContentGroups<PromptRoute<S>>,
        resources: ContentGroups<ResourceRoute<S>>,
        allow: Vec<&'static AllowSpec>,
    ) -> Result<Self, RegistryErrors> {
        let mut groups: Vec<Group<S>> = entries
            .into_iter()
            .map(|entry| Group {
                name: default_name(&entry),
                // The macro requires an explicit name with an allow list.
                allow: entry
                    .name
                    .and_then(|name| allow.iter().copied().find(|spec| spec.group == name)),
                entry,
                hints: OnceLock::new(),
                costs: OnceLock::new(),
            })
            .collect();
        // Location breaks ties so that duplicate names report deterministically.
        groups.sort_by(|a, b| {
            (&a.name, a.entry.file, a.entry.line).cmp(&(&b.name, b.entry.file, b.entry.line))
        });
        let registry = Registry {
            groups,
            prompts,
            resources,
            shape: shape_of::<S>(),
            allow,
        };
        registry.verify()?;
        Ok(registry)
    }

    /// Every group, sorted by name.
    pub fn groups(&self) -> &[Group<S>] {
        &self.groups
    }

    /// Every group's name, sorted: what an error about an unknown group
    /// lists.
    pub(crate) fn group_names(&self) -> Vec<String> {
        self.groups.iter().map(|g| g.name().to_owned()).collect()
    }

    /// The group called `name`.
    pub fn group(&self, name: &str) -> Option<&Group<S>> {
        self.groups
            .binary_search_by(|group| (*group.name).cmp(name))
            .ok()
            .map(|index| &self.groups[index])
    }

    /// Checks every invariant again, reporting all violations together.
    pub fn verify(&self) -> Result<(), RegistryErrors> {
        let mut errors = Vec::new();
        for pair in self.groups.windows(2) {
            if pair[0].name == pair[1].name {
                errors.push(RegistryError::DuplicateGroupName {
                    name: pair[0].name.to_string(),
                    locations: [pair[0].location(), pair[1].location()],
                });
            }
        }
        let mut reachable = vec![true; self.groups.len()];
        for (index, group) in self.groups.iter().enumerate() {
            if group.entry.tools.is_empty() {
                errors.push(RegistryError::EmptyGroup {
                    group: group.name.to_string(),
                });
            }
            let mut seen = std::collections::HashSet::new();
            for tool in group.entry.tools {
                if !seen.insert(tool) {
                    errors.push(RegistryError::DuplicateTool {
                        group: group.name.to_string(),
                        tool: tool.to_string(),
                    });
                }
            }
            if let Err(why) = self.shape.witness(&group.entry.rule) {
                reachable[index] = false;
                errors.push(RegistryError::UnreachableGroup {
                    group: group.name.to_string(),
                    location: group.location(),
                    reason: self.describe(why),
                });
            }
        }
        let mut owners: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (index, group) in self.groups.iter().enumerate() {
            for tool in group.entry.tools {
                owners.entry(tool).or_default().push(index);
            }
        }
        for (tool, groups) in owners {
            for (i, &a) in groups.iter().enumerate() {
                for &b in &groups[i + 1..] {
                    if a == b || !reachable[a] || !reachable[b] {
                        continue;
                    }
                    let (first, second) = (&self.groups[a], &self.groups[b]);
                    // One definition shared by several groups is one tool.
                    if first.same_definition(second, tool) {
                        continue;
                    }
                    if let Some(witness) = self
                        .shape
                        .joint_witness(&first.entry.rule, &second.entry.rule)
                    {
                        errors.push(RegistryError::ToolCollision {
                            tool: tool.to_string(),
                            groups: [first.name.to_string(), second.name.to_string()],
                            witness: ProfileContext::<S>::from_bits(witness).to_json(),
                        });
                    }
                }
            }
        }
        let describe = |why| self.describe(why);
        self.prompts.verify::<S>(&self.shape, describe, &mut errors);
        self.resources
            .verify::<S>(&self.shape, describe, &mut errors);
        self.verify_allow_lists(&mut errors);
        self.verify_nesting(&mut errors);
        Errors::check(errors)
    }

    /// The names of the prompt groups (`#[prompt_group]`), sorted.
    pub fn prompt_groups(&self) -> impl Iterator<Item = &str> {
        self.prompts.names()
    }

    /// The names of the resource groups (`#[resource_group]`), sorted.
    pub fn resource_groups(&self) -> impl Iterator<Item = &str> {
        self.resources.names()
    }

    pub(crate) fn prompts(&self) -> &ContentGroups<PromptRoute<S>> {
        &self.prompts
    }

    pub(crate) fn resources(&self) -> &ContentGroups<ResourceRoute<S>> {
        &self.resources
    }

    /// The vocabulary's context space, for verifying runtime tools the same way.
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Why no context satisfies a rule, in words.
    pub(crate) fn describe(&self, why: Unsatisfiable) -> String {
        match why {
            Unsatisfiable::Exclusive(pair) => {
                let names: Vec<String> = S::Capability::from_mask(pair)
                    .map(|c| format!("`{c}`"))
                    .collect();
                format!(
                    "it requires capabilities {}, which are mutually exclusive",
                    names.join(" and ")
                )
            }
            Unsatisfiable::ExcludedAlternatives {
                alternatives,
                required,
            } => {
                let name = |mask: u64| -> Vec<String> {
                    S::Capability::from_mask(mask)
                        .map(|c| format!("`{c}`"))
                        .collect()
                };
                let clashes: Vec<String> = S::Capability::from_mask(alternatives)
                    .map(|c| {
                        let excluders = self.shape.excluders(c.bit(), required);
                        format!("`{c}` with {}", name(excluders).join(" and "))
                    })
                    .collect();
                format!(
                    "every capability of its any-of set ({}) is mutually exclusive with one \
                     it requires: {}",
                    name(alternatives).join(", "),
                    clashes.join(", ")
                )
            }
            Unsatisfiable::UndeclaredSurface => "it lists no declared surface".to_owned(),
            Unsatisfiable::UndeclaredCapability => {
                "it requires a capability the vocabulary does not declare".to_owned()
            }
            Unsatisfiable::UndeclaredProvider => {
                "it requires a provider the vocabulary does not declare".to_owned()
            }
        }
    }
}

impl<S: Vocabulary> fmt::Debug for Registry<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("groups", &self.groups)
            .finish_non_exhaustive()
    }
}

fn default_name<S: Vocabulary>(entry: &GroupEntry<S>) -> Arc<str> {
    match entry.name {
        Some(name) => Arc::from(name),
        None => {
            let module = entry.module_path.rsplit("::").next().unwrap_or_default();
            Arc::from(module.replace('_', "-"))
        }
    }
}

#[cfg(test)]
mod tests;
