// A listed tool the group does not have, and a group nobody declared.
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
    include("kanban-task": ["list_task_kandev"], "kanban-tasks")
)]
impl Kandev {}

fn main() {}
