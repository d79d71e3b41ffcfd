// A group that fails (an unknown key, an unknown surface) still declares
// what other groups include of it: its errors are the only ones.
#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(name = "tasks", surface = "kanban-tsk")]
impl Kandev {
    #[tool(description = "List the tasks")]
    async fn list_tasks(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "plans", surface = "kanban-task", bogus = 1)]
impl Kandev {
    #[tool(description = "Read the plan")]
    async fn get_plan(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "coordinator", surface = "external", include("tasks", "plans": ["get_plan"]))]
impl Kandev {}

fn main() {}
