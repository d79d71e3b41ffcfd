#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

trait Tools {
    fn list(&self) -> Result<CallToolResult, ErrorData>;
}

#[tool_group(surface = "kanban-task")]
impl Tools for Kandev {
    #[tool(description = "List")]
    fn list(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
