//! Snapshots: what a live server answers `tools/list` and `tools/call` from.
//!
//! Every rmcp route (with its schema) is built once per server from the
//! registry; each distinct tool set then gets one snapshot — the sorted tool
//! list and an rmcp `ToolRouter` holding exactly its routes — shared by every
//! session and every profile with that tool set.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::model::Tool;

use crate::{Profile, Registry, Vocabulary};

/// Every route of every group, indexed `[group][tool]` like the registry.
pub(crate) struct RouteTable<S: Vocabulary> {
    routes: Vec<Vec<ToolRoute<S>>>,
}

impl<S: Vocabulary> RouteTable<S> {
    /// Builds each group's routes once.
    ///
    /// # Panics
    ///
    /// If a group's routes disagree with its declared tool names, which only
    /// a hand-built entry (not `#[tool_group]`) can cause.
    pub fn build(registry: &Registry<S>) -> Self {
        let routes = registry
            .groups()
            .iter()
            .map(|group| {
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
            .collect();
        RouteTable { routes }
    }
}

/// The tools of one tool set, ready to serve.
pub(crate) struct ToolSnapshot<S: Vocabulary> {
    /// `tools/list`, sorted by name.
    pub tools: Vec<Tool>,
    /// `tools/call`, holding only this set's routes.
    pub router: ToolRouter<S>,
}

impl<S: Vocabulary> ToolSnapshot<S> {
    fn build(profile: &Profile<S>, table: &RouteTable<S>) -> Self {
        let routes: Vec<ToolRoute<S>> = profile
            .tool_set()
            .origins
            .iter()
            .map(|&(group, tool)| table.routes[group][tool].clone())
            .collect();
        let tools = routes.iter().map(|route| route.attr.clone()).collect();
        let mut router = ToolRouter::new();
        for route in routes {
            router.add_route(route);
        }
        ToolSnapshot { tools, router }
    }

    /// The tool called `name`, if this set has it.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools
            .binary_search_by(|tool| (*tool.name).cmp(name))
            .ok()
            .map(|index| &self.tools[index])
    }
}

/// One snapshot per distinct tool set, built on first use.
pub(crate) struct Snapshots<S: Vocabulary> {
    routes: RouteTable<S>,
    /// Keyed by the address of the registry's interned tool set, which lives
    /// as long as the registry.
    built: Mutex<HashMap<usize, Arc<ToolSnapshot<S>>>>,
}

impl<S: Vocabulary> Snapshots<S> {
    pub fn new(registry: &Registry<S>) -> Self {
        Snapshots {
            routes: RouteTable::build(registry),
            built: Mutex::default(),
        }
    }

    /// The snapshot serving `profile`'s tools.
    pub fn for_profile(&self, profile: &Profile<S>) -> Arc<ToolSnapshot<S>> {
        let key = Arc::as_ptr(profile.tool_set()) as usize;
        let mut built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(
            built
                .entry(key)
                .or_insert_with(|| Arc::new(ToolSnapshot::build(profile, &self.routes))),
        )
    }
}
