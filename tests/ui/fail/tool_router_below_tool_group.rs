// A half-migrated impl, `#[tool_group]` written first: it sees
// `#[tool_router]` among the item's attributes.
#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, ServerHandler, tool, tool_handler};
use support::Kandev;

#[tool_group(surface = "kanban-task")]
#[rmcp::tool_router]
impl Kandev {
    #[tool(description = "List the tasks")]
    async fn list_tasks(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_handler]
impl ServerHandler for Kandev {}

fn main() {}
