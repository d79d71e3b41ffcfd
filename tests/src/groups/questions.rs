//! Question tools: the user or the parent task, never both. They carry no
//! annotations (MCP's defaults: not read-only, maybe destructive), and
//! neither does `set_task_title`, which overwrites a title.

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

use crate::TaskServer;

#[tool_group(capability = "user-question", name = "user-question")]
impl TaskServer {
    #[tool(description = "Ask the user")]
    async fn ask_user_question(&self) -> Result<CallToolResult, ErrorData> {
        self.record("ask_user_question");
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(
    surface = "kanban-task",
    capability = "parent-question",
    name = "parent-question"
)]
impl TaskServer {
    #[tool(description = "Ask the parent task")]
    async fn ask_parent_question(&self) -> Result<CallToolResult, ErrorData> {
        self.record("ask_parent_question");
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(surface = "kanban-task", capabilities = ["task-title"], name = "task-title")]
impl TaskServer {
    #[tool(description = "Set the task's title")]
    async fn set_task_title(&self) -> Result<CallToolResult, ErrorData> {
        self.record("set_task_title");
        Ok(CallToolResult::success(vec![]))
    }
}
