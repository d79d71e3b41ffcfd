//! Provider tools, with the group name left to its default: this module's name.

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[tool_group(surface = "kanban-task", provider = "github")]
impl crate::TaskServer {
    #[tool(
        description = "Read the task's pull request",
        annotations(read_only_hint = true)
    )]
    async fn get_pull_request(&self) -> Result<CallToolResult, ErrorData> {
        self.record("get_pull_request");
        Ok(CallToolResult::success(vec![]))
    }
}
