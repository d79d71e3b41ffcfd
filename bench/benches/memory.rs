//! Per-session memory at 10,000 in-process rmcp sessions spread over every
//! valid Kandev profile: bytes per session beyond rmcp's own session state,
//! for mcp-profiles and for one rmcp `ToolRouter` per session.
//!
//! `cargo bench -p mcp-profiles-bench --bench memory [-- SESSIONS]`
//!
//! A counting global allocator reports live heap bytes. Each configuration
//! connects the same number of client/server session pairs over in-memory
//! duplex pipes and measures the live bytes once all are initialised and idle;
//! the configuration serving Kandev's plain handler (no tools at all) is
//! rmcp's own per-session state, and every other figure is reported beyond it.

use std::time::Duration;

use kandev_mcp::Kandev;
use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};
use mcp_profiles_bench::counting::{Counting, live};
use mcp_profiles_bench::native_router;
use mcp_profiles_bench::sessions::connect_in_process;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The rmcp-native alternative: each session owns a router for its profile.
#[derive(Clone)]
struct RouterServer {
    handler: Kandev,
    router: ToolRouter<Kandev>,
}

impl ServerHandler for RouterServer {
    fn get_info(&self) -> ServerConfig {
        self.handler.get_info()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.router.list_all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.router
            .call(ToolCallContext::new(&self.handler, request, context))
            .await
    }
}

/// Live bytes added by `sessions` sessions of one configuration, once idle.
async fn measure<S, F>(label: &str, sessions: usize, make: F) -> isize
where
    S: ServerHandler,
    F: Fn(usize) -> S,
{
    settle().await;
    let before = live();
    let clients = connect_in_process(sessions, 4096, make, |_| ()).await;
    settle().await;
    let added = live() - before;
    println!(
        "{label:<44} {:>12} bytes live, {:>8.1} per session",
        added,
        added as f64 / sessions as f64
    );
    for client in clients {
        let _ = client.cancel().await;
    }
    settle().await;
    added
}

async fn settle() {
    tokio::time::sleep(Duration::from_millis(300)).await;
}

fn main() {
    let sessions: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let contexts: Vec<ProfileContext<Kandev>> = ProfileContext::all().collect();
        let handler = Kandev::demo();
        println!(
            "{sessions} sessions over {} valid Kandev profiles\n",
            contexts.len()
        );
        let plain = measure("rmcp session, plain handler (baseline)", sessions, |_| {
            handler.clone()
        })
        .await;

        // One agent instance per valid profile, its sessions sharing it.
        let controllers: Vec<_> = contexts
            .iter()
            .map(|context| ProfileController::<Kandev>::new(*context))
            .collect();
        let servers: Vec<_> = controllers
            .iter()
            .map(|controller| controller.server(handler.clone()))
            .collect();
        let shared = measure("mcp-profiles, one controller per profile", sessions, |i| {
            servers[i % servers.len()].clone()
        })
        .await;

        // One agent instance (controller) per session.
        let each = measure("mcp-profiles, one controller per session", sessions, |i| {
            ProfileController::<Kandev>::new(contexts[i % contexts.len()]).server(handler.clone())
        })
        .await;

        let routers = measure("rmcp ToolRouter per session", sessions, |i| RouterServer {
            handler: handler.clone(),
            router: native_router(Kandev::registry(), &contexts[i % contexts.len()]),
        })
        .await;

        let per = |bytes: isize| (bytes - plain) as f64 / sessions as f64;
        println!("\nbeyond rmcp's own session state, per session:");
        println!(
            "  mcp-profiles, controller per profile: {:>10.1} bytes",
            per(shared)
        );
        println!(
            "  mcp-profiles, controller per session: {:>10.1} bytes",
            per(each)
        );
        println!(
            "  rmcp ToolRouter per session:          {:>10.1} bytes",
            per(routers)
        );
    });
}
