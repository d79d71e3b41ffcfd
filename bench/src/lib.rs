//! Shared pieces of the benchmarks: the synthetic registries, the
//! rmcp-native baseline, and a live request context for in-process dispatch.
//!
//! The baseline is what an rmcp server does today: one `#[tool_router]` per
//! group, combined for the current mode. [`native_router`] builds that router
//! from each enabled group's routes — the same `(tool_attr(), handler)` pairs
//! `#[tool_router]` feeds to `ToolRouter::with_route` — and
//! [`prebuilt_routers`] + [`merge_routers`] is the cheaper variant that keeps
//! one router per group and merges clones.
//!
//! For the session benchmarks: [`sessions`] connects real rmcp session
//! pairs, [`per_session`] is the rmcp-native server with a router per
//! session, [`relisting`] a client that re-lists on list_changed,
//! [`load_client`] the raw JSON-RPC client of the HTTP load generators,
//! [`gateways`] the notification counting and MCP endpoint of the
//! harnesses of gateways on Redis, [`counting`] the counting allocator of
//! the memory figures, and [`results`] the medians and JSON files of the
//! timed harnesses.

use std::sync::{Arc, Mutex};

use mcp_profiles::{ProfileContext, Registry, Vocabulary};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ListToolsResult, PaginatedRequestParams};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};

pub mod allowed;
pub mod counting;
pub mod gateways;
pub mod load_client;
pub mod noop;
pub mod paired;
pub mod per_session;
pub mod plain;
pub mod relisting;
pub mod results;
pub mod sessions;
pub mod stall;

/// The generated registries (see `build.rs`; feature `synthetic`).
#[cfg(feature = "synthetic")]
pub mod synthetic {
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// Parameters of half the synthetic tools.
    #[derive(Deserialize, JsonSchema)]
    pub struct Args {
        /// An ID.
        pub id: String,
        /// A count.
        pub n: Option<u32>,
    }

    include!(concat!(env!("OUT_DIR"), "/synthetic.rs"));
}

/// Two Kandev contexts with large, different tool sets (38 and 34 tools),
/// which the replacement and fan-out benches alternate between.
pub fn kandev_contexts() -> [ProfileContext<kandev_mcp::Kandev>; 2] {
    use kandev_mcp::{Capability, Provider, Surface};
    [
        ProfileContext::new(Surface::KanbanTask)
            .with_capability(Capability::UserQuestion)
            .expect("not exclusive")
            .with_providers([Provider::Github, Provider::Gitlab]),
        ProfileContext::new(Surface::KanbanTask)
            .with_capability(Capability::ParentQuestion)
            .expect("not exclusive"),
    ]
}

/// For each of Kandev's six agent surfaces, the valid context that serves
/// the most tools: what the per-surface listing examples
/// (`search_savings`, `disclosure_walk`) measure.
pub fn largest_kandev_contexts() -> [ProfileContext<kandev_mcp::Kandev>; 6] {
    use kandev_mcp::{Kandev, Surface};
    [
        Surface::KanbanTask,
        Surface::OfficeTask,
        Surface::Configuration,
        Surface::External,
        Surface::Automation,
        Surface::Coordinator,
    ]
    .map(|surface| {
        ProfileContext::<Kandev>::all()
            .filter(|context| context.surface() == surface)
            .max_by_key(|context| Kandev::registry().assemble(context).tool_names().len())
            .expect("every surface has a valid context")
    })
}

/// A router holding exactly the tools `context` enables, built from scratch.
pub fn native_router<S: Vocabulary>(
    registry: &Registry<S>,
    context: &ProfileContext<S>,
) -> ToolRouter<S> {
    let mut router = ToolRouter::new();
    for group in registry.groups() {
        if group.rule().is_enabled(context) {
            for route in group.routes() {
                router.add_route(route);
            }
        }
    }
    router
}

/// One router per group, built once.
pub fn prebuilt_routers<S: Vocabulary>(registry: &Registry<S>) -> Vec<ToolRouter<S>> {
    registry
        .groups()
        .iter()
        .map(|group| {
            let mut router = ToolRouter::new();
            for route in group.routes() {
                router.add_route(route);
            }
            router
        })
        .collect()
}

/// The router for `context`, merged from clones of the per-group routers.
pub fn merge_routers<S: Vocabulary>(
    registry: &Registry<S>,
    per_group: &[ToolRouter<S>],
    context: &ProfileContext<S>,
) -> ToolRouter<S> {
    let mut router = ToolRouter::new();
    for (group, prebuilt) in registry.groups().iter().zip(per_group) {
        if group.rule().is_enabled(context) {
            router.merge(prebuilt.clone());
        }
    }
    router
}

/// Answers one `tools/list` and keeps its request context.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Option<RequestContext<RoleServer>>>>);

impl ServerHandler for Capture {
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        *self.0.lock().unwrap() = Some(context);
        Ok(ListToolsResult::default())
    }

    fn get_info(&self) -> rmcp::model::ServerConfig {
        let mut info = rmcp::model::ServerConfig::default();
        info.capabilities.tools = Some(Default::default());
        info
    }
}

/// A real server-side request context (with a live peer), for calling
/// handlers directly; the in-process session stays up while `runtime` runs.
pub async fn live_request_context() -> RequestContext<RoleServer> {
    let capture = Capture::default();
    let slot = Arc::clone(&capture.0);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = capture.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("client handshake");
    client.list_tools(None).await.expect("tools/list");
    // Keep the client (and so the peer) alive for the whole benchmark.
    std::mem::forget(client);
    slot.lock()
        .unwrap()
        .take()
        .expect("the context was captured")
}
