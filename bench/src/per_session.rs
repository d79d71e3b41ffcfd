//! The rmcp-native alternative to a shared profile, written the way an rmcp
//! user would: each session's handler owns its `ToolRouter` behind an
//! `ArcSwap` and is remembered with its peer once initialised; a profile
//! change rebuilds every session's router and notifies each peer.

use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use mcp_profiles::{ProfileContext, Vocabulary};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams, ServerConfig,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use crate::native_router;

/// A session's router, swapped whole on a profile change.
type SharedRouter<S> = Arc<ArcSwap<ToolRouter<S>>>;

/// Every initialised session of the rmcp-native servers made here.
pub struct RouterSessions<S: Vocabulary> {
    live: Mutex<Vec<(SharedRouter<S>, Peer<RoleServer>)>>,
}

impl<S: Vocabulary> Default for RouterSessions<S> {
    fn default() -> Self {
        RouterSessions {
            live: Mutex::default(),
        }
    }
}

impl<S: Vocabulary + ServerHandler> RouterSessions<S> {
    /// A server for one session: `handler` with its own router for `context`.
    pub fn server(self: &Arc<Self>, handler: S, context: &ProfileContext<S>) -> RouterServer<S> {
        RouterServer {
            handler,
            router: Arc::new(ArcSwap::from_pointee(native_router(S::registry(), context))),
            sessions: Arc::clone(self),
        }
    }

    /// The profile change: for each initialised session, rebuild its router
    /// for `context` and send its peer a list_changed (in a task of its own,
    /// so one slow peer does not hold up the rest). Returns how many.
    pub fn change(&self, context: &ProfileContext<S>) -> usize {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        for (router, peer) in live.iter() {
            router.store(Arc::new(native_router(S::registry(), context)));
            let peer = peer.clone();
            tokio::spawn(async move {
                let _ = peer.notify_tool_list_changed().await;
            });
        }
        live.len()
    }

    /// How many sessions are initialised.
    pub fn len(&self) -> usize {
        self.live.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether no session is initialised.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One session's rmcp-native server: `tools/list` is `list_all()` of its
/// router, `tools/call` is `ToolRouter::call`; the rest is the handler's.
pub struct RouterServer<S: Vocabulary> {
    handler: S,
    router: SharedRouter<S>,
    sessions: Arc<RouterSessions<S>>,
}

impl<S: Vocabulary + ServerHandler> ServerHandler for RouterServer<S> {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.handler.get_info();
        let mut tools = info.capabilities.tools.take().unwrap_or_default();
        tools.list_changed = Some(true);
        info.capabilities.tools = Some(tools);
        info
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut live = self.sessions.live.lock().unwrap_or_else(|e| e.into_inner());
        live.push((Arc::clone(&self.router), context.peer));
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.router.load().list_all(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let router = self.router.load_full();
        router
            .call(ToolCallContext::new(&self.handler, request, context))
            .await
    }
}
