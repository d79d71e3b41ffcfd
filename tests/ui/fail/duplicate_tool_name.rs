#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(surface = "kanban-task")]
impl Kandev {
    #[tool(description = "List tasks")]
    async fn list_tasks_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(name = "list_tasks_kandev", description = "List tasks again")]
    async fn list_tasks_again(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
