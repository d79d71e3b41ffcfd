#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(
    surface,
    capability = "task-title",
    any_capability = ["user-question", "task-title"],
    any_capability = "parent-question",
)]
impl Kandev {
    #[tool(description = "Set the title")]
    async fn set_task_title_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
