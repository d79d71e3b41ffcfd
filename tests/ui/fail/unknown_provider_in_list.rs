#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(surface = "kanban-task", providers = ["github", "gitlub"])]
impl Kandev {
    #[tool(description = "Set the title")]
    async fn set_task_title_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
