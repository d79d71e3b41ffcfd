// A half-migrated impl, `#[tool_router]` written first: rmcp's macro expands
// before `#[tool_group]` and leaves its router function behind.
#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use support::Kandev;

#[tool_router]
#[tool_group(surface = "kanban-task")]
impl Kandev {
    #[tool(description = "List the tasks")]
    async fn list_tasks(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_router(router = office_router, vis = "pub")]
#[tool_group(surface = "office-task")]
impl Kandev {
    #[tool(description = "List the office tasks")]
    async fn list_office_tasks(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_handler]
impl ServerHandler for Kandev {}

fn main() {}
