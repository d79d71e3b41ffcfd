// What `include` and `exclude` cannot mean, said on the literal at fault.
#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(name = "kanban-task", surface = "kanban-task")]
impl Kandev {
    #[tool(description = "List tasks")]
    async fn list_tasks_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(
    name = "coordinator",
    surface = "external",
    include("kanban-task": ["list_tasks_kandev", "list_tasks_kandev", "propose_task_kandev"], "kanban-task", "coordinator", "office": []),
    exclude = ["propose_task_kandev", "list_tasks_kandev", "stop_kandev", "stop_kandev"]
)]
impl Kandev {
    #[tool(description = "Propose a task")]
    async fn propose_task_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "review", surface = "kanban-task", exclude = ["list_tasks_kandev"])]
impl Kandev {
    #[tool(description = "Review")]
    async fn review_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
