//! Snapshots: what a live server answers `tools/list` and `tools/call` from.
//!
//! Every rmcp route (with its schema) is built once per server type from the
//! registry, a group's when a snapshot first needs it; each distinct visible
//! set then gets one snapshot — the profile's tool set, the sorted tool list
//! and exactly its routes, found by name in one lookup (`crate::dispatch`) —
//! shared by every controller, session and profile of that server type that
//! sees it.
//!
//! Snapshots are keyed by the enabled groups' bit set and, within it, by
//! the positions a policy, an allow list or the kill switch removed (a bit
//! set too, empty without restrictions), and kept for the life of the process (one per
//! distinct visible set, so bounded by the profiles a server serves): a
//! call holds its snapshot as a plain `&'static`, and a runtime catalog's
//! views can key on a snapshot's address.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use rmcp::handler::server::router::prompt::PromptRoute;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::model::Tool;

use mcp_profiles_rules::BitSet;

use crate::assembly::{GroupSet, ToolSet};
use crate::content::{ContentViews, View};
use crate::dispatch::{Members, ToolIds};
use crate::resources::ResourceRoute;
use crate::telemetry::{Meter, Meters};
use crate::{
    AllowLists, DenyList, Policy, Profile, ProfileContext, Registry, Restrictions, Vocabulary,
};

/// Every group's routes, indexed `[group][tool]` like the registry, each
/// group's built when a snapshot first needs it: a server pays for the
/// schemas of the tools it serves, not of every tool it could (about half
/// of Kandev's start-up to the first `tools/list`, `BENCHMARKS.md`).
struct RouteTable<S: Vocabulary> {
    registry: &'static Registry<S>,
    routes: Box<[OnceLock<Vec<ToolRoute<S>>>]>,
    /// Every compiled tool name of the registry, numbered for dispatch.
    ids: ToolIds,
}

impl<S: Vocabulary> RouteTable<S> {
    fn new(registry: &'static Registry<S>) -> Self {
        RouteTable {
            registry,
            routes: registry.groups().iter().map(|_| OnceLock::new()).collect(),
            ids: ToolIds::new(
                registry
                    .groups()
                    .iter()
                    .flat_map(|group| group.tools().iter().copied()),
            ),
        }
    }

    /// The routes of group `index`, built on first use.
    ///
    /// # Panics
    ///
    /// If the group's routes disagree with its declared tool names, which
    /// only a hand-built entry (not `#[tool_group]`) can cause.
    fn group(&self, index: usize) -> &[ToolRoute<S>] {
        self.routes[index].get_or_init(|| {
            let group = &self.registry.groups()[index];
            let routes = group.routes();
            let names: Vec<&str> = routes.iter().map(ToolRoute::name).collect();
            assert_eq!(
                names,
                group.tools(),
                "the routes of tool group `{}` do not match its declared tools",
                group.name()
            );
            routes
        })
    }
}

/// The tools of one set of enabled groups, ready to serve.
pub(crate) struct ToolSnapshot<S: Vocabulary> {
    /// What profiles with these groups share.
    set: Arc<ToolSet>,
    /// `tools/list`, sorted by name.
    pub tools: Vec<Tool>,
    /// `tools/call`: this set's routes, sorted by name like `tools`.
    routes: Box<[ToolRoute<S>]>,
    /// Which of the server type's numbered tools `routes` holds.
    members: Members,
    /// The server type's tool numbers (one table per type).
    ids: &'static ToolIds,
    /// Each tool's metric handles, in the order of the sorted names (none
    /// without metrics).
    meters: Meters,
}

impl<S: Vocabulary> ToolSnapshot<S> {
    fn build(set: ToolSet, table: &'static RouteTable<S>) -> Self {
        let routes: Box<[ToolRoute<S>]> = set
            .origins
            .iter()
            .map(|&(group, tool)| table.group(group)[tool].clone())
            .collect();
        // A call runs `routes[position of its name]`: the two must agree.
        assert!(
            routes
                .iter()
                .map(ToolRoute::name)
                .eq(set.tools.iter().copied()),
            "a snapshot's routes are in the order of its tool names"
        );
        let tools = routes.iter().map(|route| route.attr.clone()).collect();
        // Sorted names get ascending numbers, so a member's rank among the
        // numbers is its place among the routes.
        let members = Members::new(
            table.ids.len(),
            set.tools.iter().map(|name| {
                table
                    .ids
                    .get(name)
                    .expect("a snapshot's tools are its registry's")
            }),
        );
        ToolSnapshot {
            meters: Meters::register(set.tools.iter().copied()),
            set: Arc::new(set),
            tools,
            routes,
            members,
            ids: &table.ids,
        }
    }

    /// Whether this set has a tool called `name`.
    #[inline]
    pub fn serves(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// Where `name` is among the sorted names, if this set has it: one
    /// lookup of its number, one bit test (`crate::dispatch`).
    #[inline]
    pub fn position(&self, name: &str) -> Option<usize> {
        self.members.position(self.ids.get(name)?)
    }

    /// The route of the tool at `position`.
    #[inline]
    pub fn route(&self, position: usize) -> &ToolRoute<S> {
        &self.routes[position]
    }

    /// The metric handles of the tool at `position`.
    #[inline]
    pub fn meter(&'static self, position: usize) -> Meter {
        self.meters.get(position)
    }
}

/// The snapshots of one set of enabled groups.
struct Family<S: Vocabulary> {
    /// Every tool of the groups, before restrictions.
    full: ToolSet,
    /// One snapshot per set of removed positions of `full`, leaked: a
    /// snapshot is kept for the life of the process anyway, and a
    /// `&'static` lets a call hold it without touching a reference count.
    visible: HashMap<BitSet, &'static ToolSnapshot<S>>,
    /// What each policy, set of allow lists and kill list served from
    /// these groups: judging every tool against a restriction is most of
    /// a restricted replacement's cost, and a backend serves few distinct
    /// triples, so each is judged once (bounded like the snapshots
    /// themselves).
    restricted: HashMap<Restriction<S>, Restricted<S>>,
}

/// What restricts a family's tools: the context's policy and allow lists,
/// and the operator's kill list. All interned, so hashing is cheap.
type Restriction<S> = (Policy<S>, AllowLists<S>, DenyList<S>);

/// One restricted view of a family's tools.
struct Restricted<S: Vocabulary> {
    tools: &'static ToolSnapshot<S>,
    withheld: Arc<[&'static str]>,
}

impl<S: Vocabulary> Clone for Restricted<S> {
    fn clone(&self) -> Self {
        Restricted {
            tools: self.tools,
            withheld: Arc::clone(&self.withheld),
        }
    }
}

impl<S: Vocabulary> Family<S> {
    /// The snapshot of these groups under `policy`, `allow` and `killed`,
    /// and the compiled tools only `killed` removed; judged and built on
    /// first use.
    fn restrict(
        &mut self,
        registry: &Registry<S>,
        routes: &'static RouteTable<S>,
        (policy, allow, killed): Restriction<S>,
    ) -> Restricted<S> {
        if let Some(found) = self.restricted.get(&(policy, allow, killed)) {
            return found.clone();
        }
        let removed = registry.restrictions(&self.full, policy, allow, killed);
        let key = BitSet::from_fn(self.full.tools.len(), |position| {
            removed.binary_search_by_key(&position, |(p, _)| *p).is_ok()
        });
        let full = &self.full;
        let tools = *self.visible.entry(key).or_insert_with(|| {
            let set = full.clone().without(&removed);
            Box::leak(Box::new(ToolSnapshot::build(set, routes)))
        });
        let withheld = removed
            .iter()
            .filter(|(_, restrictions)| Restrictions::only_operator(*restrictions))
            .map(|&(position, _)| full.tools[position])
            .collect();
        let found = Restricted { tools, withheld };
        self.restricted
            .insert((policy, allow, killed), found.clone());
        found
    }
}

/// What a context is served under the operator's kill list.
pub(crate) struct Served<S: Vocabulary> {
    /// The profile: its context, groups and visible compiled tools.
    pub profile: Profile<S>,
    /// Its snapshot.
    pub tools: &'static ToolSnapshot<S>,
    /// Its prompts and resources (which policies and the kill list, naming
    /// tools, leave alone).
    pub content: Content<S>,
    /// The compiled tools only the kill list removed, sorted: the profile
    /// would serve them otherwise, so a call gets the operator's refusal.
    pub withheld: Arc<[&'static str]>,
}

/// The prompts and resources a context sees: one view of each kind per
/// distinct set of enabled groups, shared like tool snapshots.
pub(crate) struct Content<S: Vocabulary> {
    pub prompts: &'static View<PromptRoute<S>>,
    pub resources: &'static View<ResourceRoute<S>>,
}

impl<S: Vocabulary> Clone for Content<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for Content<S> {}

/// The routes of one server type and its snapshots, built on first use.
pub(crate) struct Snapshots<S: Vocabulary> {
    registry: &'static Registry<S>,
    routes: RouteTable<S>,
    /// The snapshots of each distinct set of enabled groups.
    built: Mutex<HashMap<GroupSet, Family<S>>>,
    /// The prompt views, one per distinct set of enabled prompt groups.
    prompts: ContentViews<PromptRoute<S>>,
    /// The resource views, likewise.
    resources: ContentViews<ResourceRoute<S>>,
}

impl<S: Vocabulary> Snapshots<S> {
    /// The snapshots of server type `S`, shared by all its controllers.
    ///
    /// Made on first call and kept for the life of the process, one per
    /// server type; routes and schemas (the costly part) are built per group
    /// as snapshots need them.
    pub fn of() -> &'static Self {
        type Shared = HashMap<TypeId, &'static (dyn Any + Send + Sync)>;
        static BY_TYPE: OnceLock<RwLock<Shared>> = OnceLock::new();
        let by_type = BY_TYPE.get_or_init(RwLock::default);
        let find = |map: &Shared| {
            map.get(&TypeId::of::<S>())
                .and_then(|found| found.downcast_ref::<Self>())
        };
        if let Some(found) = find(&by_type.read().unwrap_or_else(|e| e.into_inner())) {
            return found;
        }
        // Made under the write lock: no second copy is ever leaked.
        let mut map = by_type.write().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = find(&map) {
            return found;
        }
        let registry = S::registry();
        let built: &'static Self = Box::leak(Box::new(Snapshots {
            registry,
            routes: RouteTable::new(registry),
            built: Mutex::default(),
            prompts: ContentViews::new(registry.prompts()),
            resources: ContentViews::new(registry.resources()),
        }));
        map.insert(TypeId::of::<S>(), built);
        built
    }

    /// The registry the snapshots are built from.
    pub fn registry(&self) -> &'static Registry<S> {
        self.registry
    }

    /// The profile of `context` under the operator's `killed` list, and
    /// the snapshot serving it.
    pub fn serve(&'static self, context: &ProfileContext<S>, killed: DenyList<S>) -> Served<S> {
        let registry = self.registry;
        let enabled = registry.enabled_groups(context);
        let mut built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        let family = built.entry(enabled).or_insert_with_key(|enabled| Family {
            full: registry.tool_set(enabled),
            visible: HashMap::new(),
            restricted: HashMap::new(),
        });
        let restriction = (context.policy(), context.allow_lists(), killed);
        let Restricted { tools, withheld } = family.restrict(registry, &self.routes, restriction);
        drop(built);
        Served {
            profile: Profile::new(*context, Arc::clone(&tools.set)),
            tools,
            content: Content {
                prompts: self.prompts.view(context),
                resources: self.resources.view(context),
            },
            withheld,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use rmcp::handler::server::router::tool::ToolRoute;
    use rmcp::model::{CallToolResponse, CallToolResult, Tool, ToolAnnotations};

    use super::{ContentViews, RouteTable, Snapshots};
    use crate::policy::AllowSpec;
    use crate::registry::GroupEntry;
    use crate::{AllowLists, DenyList, Policy, ProfileContext, Registry, Rule};

    mod server {
        pub struct Till;

        crate::vocabulary! {
            server Till;
            #[surfaces] pub enum Surface { Front, Back }
            #[capabilities] pub enum Capability {}
            #[providers] pub enum Provider {}
        }
    }
    use server::{Surface, Till};

    /// A route that does nothing, with `annotations`.
    fn route(name: &'static str, annotations: ToolAnnotations) -> ToolRoute<Till> {
        let schema = serde_json::json!({"type": "object"});
        let schema = schema.as_object().cloned().unwrap_or_default();
        let tool = Tool::new(name, name, schema).with_annotations(annotations);
        ToolRoute::new_dyn(tool, |_| {
            Box::pin(async { Ok(CallToolResponse::from(CallToolResult::success(vec![]))) })
        })
    }

    fn entry(
        name: &'static str,
        rule: Rule<Till>,
        tools: &'static [&'static str],
        routes: fn() -> Vec<ToolRoute<Till>>,
    ) -> GroupEntry<Till> {
        GroupEntry {
            name: Some(name),
            title: None,
            description: None,
            module_path: module_path!(),
            file: file!(),
            line: line!(),
            rule: *rule.masks(),
            tools,
            definitions: &[],
            includes: &[],
            routes,
        }
    }

    /// Snapshots over a registry of two groups: `sales` everywhere
    /// (`total` read-only, `void_sale` not annotated), `back-office` on
    /// the back surface; `sales` declares `allow` if given.
    fn snapshots_allowing(allow: Vec<&'static AllowSpec>) -> &'static Snapshots<Till> {
        let registry: &'static Registry<Till> = Box::leak(Box::new(
            Registry::from_entries_allowing(
                [
                    entry("sales", Rule::always(), &["total", "void_sale"], || {
                        vec![
                            route("total", ToolAnnotations::new().read_only(true)),
                            route("void_sale", ToolAnnotations::new()),
                        ]
                    }),
                    entry(
                        "back-office",
                        Rule::on_surface(Surface::Back),
                        &["close_day"],
                        || vec![route("close_day", ToolAnnotations::new())],
                    ),
                ],
                allow,
            )
            .unwrap(),
        ));
        Box::leak(Box::new(Snapshots {
            registry,
            routes: RouteTable::new(registry),
            built: Mutex::default(),
            prompts: ContentViews::new(registry.prompts()),
            resources: ContentViews::new(registry.resources()),
        }))
    }

    fn snapshots() -> &'static Snapshots<Till> {
        snapshots_allowing(Vec::new())
    }

    fn deny(registry: &Registry<Till>, names: &[&str]) -> DenyList<Till> {
        registry.deny_list(names).unwrap()
    }

    #[test]
    fn one_snapshot_per_distinct_visible_set() {
        let snapshots = snapshots();
        let registry = snapshots.registry();
        let front = ProfileContext::<Till>::new(Surface::Front);
        let none = DenyList::empty();
        let plain = snapshots.serve(&front, none);
        assert_eq!(plain.profile.tool_names(), ["total", "void_sale"]);
        // A policy that removes nothing on this surface serves the same one.
        let idle = front.with_policy(Policy::none().with_deny(deny(registry, &["back-office"])));
        assert!(std::ptr::eq(
            plain.tools,
            snapshots.serve(&idle, none).tools
        ));

        // Two policies (and the kill list) removing the same tool share one.
        let read_only = front.with_policy(Policy::none().with_read_only(true));
        let denying = front.with_policy(Policy::none().with_deny(deny(registry, &["void_sale"])));
        let by_policy = snapshots.serve(&read_only, none);
        assert_eq!(by_policy.profile.tool_names(), ["total"]);
        assert_eq!(by_policy.tools.tools.len(), 1);
        assert!(!std::ptr::eq(plain.tools, by_policy.tools));
        assert!(std::ptr::eq(
            by_policy.tools,
            snapshots.serve(&denying, none).tools
        ));
        let by_kill = snapshots.serve(&front, deny(registry, &["void_sale"]));
        assert!(std::ptr::eq(by_policy.tools, by_kill.tools));

        // Only the kill list's removals are withheld (refused as the
        // operator's); the policy's are simply not in the profile.
        assert!(by_policy.withheld.is_empty());
        assert_eq!(&*by_kill.withheld, ["void_sale"]);
        let both = snapshots.serve(&read_only, deny(registry, &["void_sale"]));
        assert!(both.withheld.is_empty());
        assert!(std::ptr::eq(by_policy.tools, both.tools));

        // Another set of groups is another family.
        let back = snapshots.serve(&ProfileContext::new(Surface::Back), none);
        assert_eq!(
            back.profile.tool_names(),
            ["close_day", "total", "void_sale"]
        );
        assert!(back.tools.serves("close_day"));
    }

    #[test]
    fn allow_lists_share_snapshots_with_any_restriction_of_the_same_set() {
        static SALES: AllowSpec = AllowSpec {
            group: "sales",
            universe: &["total", "void_sale"],
            default: &["total"],
            max: 2,
        };
        let snapshots = snapshots_allowing(vec![&SALES]);
        let registry = snapshots.registry();
        let front = ProfileContext::<Till>::new(Surface::Front);
        let none = DenyList::empty();

        // The default keeps `total` only: the same set as read-only.
        let by_default = snapshots.serve(&front, none);
        assert_eq!(by_default.profile.tool_names(), ["total"]);
        let read_only = front.with_policy(Policy::none().with_read_only(true));
        assert!(std::ptr::eq(
            by_default.tools,
            snapshots.serve(&read_only, none).tools
        ));
        // Not the operator's: nothing withheld.
        assert!(by_default.withheld.is_empty());

        // Widened to the whole universe: the unrestricted set, served once
        // for every context that sees it.
        let all = registry
            .allow(AllowLists::empty(), "sales", ["total", "void_sale"])
            .unwrap();
        let widened = front.with_allow_lists(all);
        let wide = snapshots.serve(&widened, none);
        assert_eq!(wide.profile.tool_names(), ["total", "void_sale"]);
        assert!(std::ptr::eq(
            wide.tools,
            snapshots.serve(&widened, none).tools
        ));
        let again = registry
            .allow(AllowLists::empty(), "sales", ["void_sale", "total"])
            .unwrap();
        assert_eq!(all, again);
        assert!(std::ptr::eq(
            wide.tools,
            snapshots.serve(&front.with_allow_lists(again), none).tools
        ));
        // The kill list still applies on top, and is the operator's.
        let killed = snapshots.serve(&widened, deny(registry, &["void_sale"]));
        assert!(std::ptr::eq(by_default.tools, killed.tools));
        assert_eq!(&*killed.withheld, ["void_sale"]);
    }
}
