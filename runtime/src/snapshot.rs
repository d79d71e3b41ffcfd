//! Snapshots: what a live server answers `tools/list` and `tools/call` from.
//!
//! Every rmcp route (with its schema) is built once per server type from the
//! registry, a group's when a snapshot first needs it; each distinct set of
//! enabled groups then gets one snapshot — the
//! profile's tool set, the sorted tool list and an rmcp `ToolRouter` holding
//! exactly its routes — shared by every controller, session and profile of
//! that server type with those groups.
//!
//! Snapshots are keyed by the enabled groups' bit set and kept for the life
//! of the process (one per distinct set, so bounded by the profiles a server
//! serves): a call holds its snapshot as a plain `&'static`, and a runtime
//! catalog's views can key on a snapshot's address.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::model::Tool;

use crate::assembly::{GroupSet, ToolSet};
use crate::{Profile, ProfileContext, Registry, Vocabulary};

/// Every group's routes, indexed `[group][tool]` like the registry, each
/// group's built when a snapshot first needs it: a server pays for the
/// schemas of the tools it serves, not of every tool it could (about half
/// of Kandev's start-up to the first `tools/list`, `BENCHMARKS.md`).
struct RouteTable<S: Vocabulary> {
    registry: &'static Registry<S>,
    routes: Box<[OnceLock<Vec<ToolRoute<S>>>]>,
}

impl<S: Vocabulary> RouteTable<S> {
    fn new(registry: &'static Registry<S>) -> Self {
        RouteTable {
            registry,
            routes: registry.groups().iter().map(|_| OnceLock::new()).collect(),
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
    /// `tools/call`, holding only this set's routes.
    pub router: ToolRouter<S>,
}

impl<S: Vocabulary> ToolSnapshot<S> {
    fn build(set: ToolSet, table: &RouteTable<S>) -> Self {
        let routes: Vec<ToolRoute<S>> = set
            .origins
            .iter()
            .map(|&(group, tool)| table.group(group)[tool].clone())
            .collect();
        let tools = routes.iter().map(|route| route.attr.clone()).collect();
        let mut router = ToolRouter::new();
        for route in routes {
            router.add_route(route);
        }
        ToolSnapshot {
            set: Arc::new(set),
            tools,
            router,
        }
    }

    /// Whether this set has a tool called `name`: a search of the sorted
    /// names, which is cheaper than one of the listed tools.
    #[inline]
    pub fn serves(&self, name: &str) -> bool {
        self.set.tools.binary_search(&name).is_ok()
    }
}

/// The routes of one server type and its snapshots, built on first use.
pub(crate) struct Snapshots<S: Vocabulary> {
    registry: &'static Registry<S>,
    routes: RouteTable<S>,
    /// Each distinct tool set's snapshot, leaked: a snapshot is kept for the
    /// life of the process anyway, and a `&'static` lets a call hold it
    /// without touching a reference count.
    built: Mutex<HashMap<GroupSet, &'static ToolSnapshot<S>>>,
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
        }));
        map.insert(TypeId::of::<S>(), built);
        built
    }

    /// The registry the snapshots are built from.
    pub fn registry(&self) -> &'static Registry<S> {
        self.registry
    }

    /// The profile of `context` and the snapshot serving it.
    pub fn serve(&self, context: &ProfileContext<S>) -> (Profile<S>, &'static ToolSnapshot<S>) {
        let enabled = self.registry.enabled_groups(context);
        let mut built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        let snapshot = match built.get(&enabled) {
            Some(snapshot) => *snapshot,
            None => {
                let set = self.registry.tool_set(&enabled);
                let snapshot: &'static ToolSnapshot<S> =
                    Box::leak(Box::new(ToolSnapshot::build(set, &self.routes)));
                built.insert(enabled, snapshot);
                snapshot
            }
        };
        drop(built);
        (Profile::new(*context, Arc::clone(&snapshot.set)), snapshot)
    }
}
