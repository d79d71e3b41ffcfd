//! The plain rmcp server of the end-to-end benches: the tools of one fixed
//! profile in a `ToolRouter`, served the way `#[tool_handler]` serves a
//! router, with no mcp-profiles runtime in the request path.
//!
//! Why not `#[tool_handler(router = self.router)]` itself: rmcp-macros 3.11
//! (`src/tool_handler.rs`) expands `call_tool` to
//! `ToolCallContext::new(self, request, context)` followed by
//! `#router.call(tcc)`, so the router must be a `ToolRouter<Self>`; the
//! profile's routes are `ToolRoute<S>` of the wrapped handler (`Kandev`),
//! not of this wrapper. The impl below is that expansion written out with
//! `&self.handler` in place of `self`:
//!
//! - `call_tool` -> `ToolCallContext::new(handler, request, context)` and
//!   `router.call(..)`;
//! - `list_tools` -> `router.list_all()` with `result_type: COMPLETE`, and
//!   `ttl_ms: 0` / `cache_scope: Public` for 2026-07-28 requests;
//! - `get_tool` -> `router.get(name).cloned()`;
//! - `get_info` -> the tools capability (`enable_tools()`, no `listChanged`:
//!   the set never changes) on top of the handler's info, which is what
//!   `ProfiledServer` builds on too.
//!
//! The router sits behind an `Arc`: rmcp's streamable HTTP service clones
//! the server per session (2025 era) and per request (2026-07-28), and a
//! careful rmcp user shares a prebuilt router rather than building it in
//! the factory as rmcp's examples do; that keeps the baseline cheap, so the
//! comparison is not flattered.

use std::sync::Arc;

use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ResultType, ServerConfig, Tool, ToolsCapability,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};

/// `handler` with exactly the tools of one profile, in a plain `ToolRouter`.
pub struct Plain<S: Vocabulary> {
    handler: S,
    router: Arc<ToolRouter<S>>,
    /// What `list_tools` answers a clone of, when built once
    /// ([`with_cached_list`](Plain::with_cached_list)); `None`: the
    /// router's list, as `#[tool_handler]` answers it.
    list: Option<Arc<[Tool]>>,
}

impl<S: Vocabulary + Clone> Clone for Plain<S> {
    fn clone(&self) -> Self {
        Plain {
            handler: self.handler.clone(),
            router: Arc::clone(&self.router),
            list: self.list.clone(),
        }
    }
}

impl<S: Vocabulary> Plain<S> {
    /// `handler` serving the tools `context` enables, routed by a router
    /// built once by [`native_router`](crate::native_router).
    ///
    /// # Panics
    ///
    /// Unless the router lists exactly the tools, names and definitions,
    /// that a profiled server of `context` lists: a comparison of two
    /// servers that serve different tools would measure nothing.
    pub fn new(handler: S, context: &ProfileContext<S>) -> Self {
        let router = crate::native_router(S::registry(), context);
        assert_same_tools(&router, context);
        Plain {
            handler,
            router: Arc::new(router),
            list: None,
        }
    }

    /// The same server, its `list_tools` answering a clone of the list
    /// built here once (sorted by name): what an rmcp user who overrides
    /// `#[tool_handler]`'s `list_tools` would write, the strongest rmcp
    /// baseline for `tools/list`.
    pub fn with_cached_list(mut self) -> Self {
        let mut list = self.router.list_all();
        list.sort_by(|a, b| a.name.cmp(&b.name));
        self.list = Some(list.into());
        self
    }

    /// The router's tool names, sorted.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .router
            .list_all()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        names.sort();
        names
    }
}

/// Panics, naming the difference, unless `router` lists what a profiled
/// server of `context` lists (sorted by name, as ours are).
fn assert_same_tools<S: Vocabulary>(router: &ToolRouter<S>, context: &ProfileContext<S>) {
    let mut plain = router.list_all();
    plain.sort_by(|a, b| a.name.cmp(&b.name));
    let ours = ProfileController::new(*context).tools();
    if plain == ours {
        return;
    }
    let names = |tools: &[Tool]| -> Vec<String> {
        tools.iter().map(|tool| tool.name.to_string()).collect()
    };
    let (plain_names, our_names) = (names(&plain), names(&ours));
    if plain_names == our_names {
        let differing: Vec<&String> = plain_names
            .iter()
            .zip(plain.iter().zip(&ours))
            .filter(|(_, (a, b))| a != b)
            .map(|(name, _)| name)
            .collect();
        panic!("the plain router for {context} defines {differing:?} otherwise than mcp-profiles");
    }
    panic!(
        "the plain router for {context} lists {plain_names:?}, mcp-profiles lists {our_names:?}: \
         the two sides would not serve the same tools"
    );
}

impl<S: Vocabulary + ServerHandler> ServerHandler for Plain<S> {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.handler.get_info();
        info.capabilities.tools = Some(ToolsCapability::default());
        info
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tcc = ToolCallContext::new(&self.handler, request, context);
        self.router.call(tcc).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let supports_cache_hints = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        let tools = match &self.list {
            Some(list) => list.to_vec(),
            None => self.router.list_all(),
        };
        let mut result = ListToolsResult::with_all_items(tools);
        result.result_type = Some(ResultType::COMPLETE);
        result.ttl_ms = supports_cache_hints.then_some(0);
        result.cache_scope = supports_cache_hints.then_some(CacheScope::Public);
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.router.get(name).cloned()
    }
}

/// An axum router serving `server` at `/mcp` with rmcp's streamable HTTP
/// service and in-memory sessions: what `mcp_profiles_serve::http::router` builds
/// for a `ProfiledServer`, so the two differ only in the MCP handler.
pub fn router<S>(server: Plain<S>, config: StreamableHttpServerConfig) -> axum::Router
where
    S: Vocabulary + ServerHandler + Clone,
{
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    axum::Router::new().nest_service(mcp_profiles_serve::http::MCP_PATH, service)
}
