//! The Kandev server type, its profile vocabulary and its non-tool MCP surface.

use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::model::{Implementation, ServerConfig};

use crate::store::Store;

/// Kandev's MCP handler for one agent session: the shared board and the task
/// the agent works on. Its tools are the `#[tool_group]` impl
/// blocks under `tools/`.
#[derive(Clone)]
pub struct Kandev {
    pub(crate) store: Arc<Store>,
    /// The task this session's agent is bound to; tools default to it.
    pub(crate) task_id: String,
}

impl Kandev {
    /// A server over `store`, bound to the task `task_id`.
    pub fn new(store: Arc<Store>, task_id: impl Into<String>) -> Self {
        Kandev {
            store,
            task_id: task_id.into(),
        }
    }

    /// The demo board, bound to the child task `task-2` (parent `task-1`).
    pub fn demo() -> Self {
        Kandev::new(Arc::new(Store::demo()), "task-2")
    }

    /// The board.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// `task_id` if given, else the bound task.
    pub(crate) fn task_or_bound(&self, task_id: Option<String>) -> String {
        task_id.unwrap_or_else(|| self.task_id.clone())
    }
}

mcp_profiles::vocabulary! {
    // Every tool states its behaviour hints: policies (read-only,
    // no-destructive) and clients sort tools by them.
    #[require_annotations]
    // A managed conversation sees at most 16 plugin tools, by name
    // (Kandev's `ManagedToolPolicy`), and none without a policy.
    #[runtime_allow_list(max = 16, required_on = ["managed-conversation"])]
    #[additive] // upstream's `catalog_parity_test.go`, proven by the vocabulary's test
    server Kandev;

    /// The base surface of a Kandev agent session. An unknown name is an
    /// error (Kandev's `normalizeSurface` maps it to `kanban-task`: failing
    /// closed here). Kandev's `managed-task` is left out: its server
    /// references it nowhere.
    // Token budgets: what the costliest context of each surface may list,
    // in o200k_base tokens (`matrix.md`, "Context cost", has each figure).
    // Each is that figure plus about 15%, rounded up to the next 250: room
    // for a few average tools (about 180 tokens each) or one of the largest
    // (900), so a change that grows a surface by more than that is a budget
    // raised in review, not a context window quietly filled. No budget on
    // `managed-conversation`: it lists no compiled tool, and plugin tools
    // are installed at run time, where no budget reaches.
    #[surfaces]
    pub enum Surface {
        /// A coding task on the kanban board.
        #[budget(tokens = 10_250)]
        KanbanTask,
        /// An office (documents and decisions) task.
        #[budget(tokens = 3_000)]
        OfficeTask,
        /// A configuration chat.
        #[budget(tokens = 10_000)]
        Configuration,
        /// An outside client driving Kandev.
        #[budget(tokens = 10_500)]
        External,
        /// An automation run: board and configuration work with no person
        /// watching, so never a question to the user.
        #[budget(tokens = 4_750)]
        Automation,
        /// A coordinator conversation, which proposes board changes for a
        /// person to accept instead of making them.
        #[budget(tokens = 3_000)]
        Coordinator,
        /// A conversation a plugin manages: no built-in tool, only the
        /// plugin tools its policy allows.
        ManagedConversation,
    }

    /// Additive capabilities the backend grants a session.
    #[capabilities]
    pub enum Capability {
        /// May ask the user questions.
        UserQuestion,
        /// May ask its direct parent task (autopilot children only).
        #[exclusive_with(UserQuestion)]
        ParentQuestion,
        /// Owns the task's title and may set it.
        TaskTitle,
        /// May author the task's canvases (small apps shown in the Kandev UI).
        CanvasAuthoring,
    }

    /// Code hosts whose tools a session gets when attached.
    #[providers]
    pub enum Provider {
        Github,
        Gitlab,
    }
}

/// Server info only: tools come from the profile, not from here.
impl ServerHandler for Kandev {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default()
            .with_instructions("Kandev task orchestration tools for this agent session.");
        info.server_info = Implementation::new("kandev-mcp", env!("CARGO_PKG_VERSION"));
        info
    }
}
