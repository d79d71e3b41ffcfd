use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[derive(Clone)]
pub struct Unprofiled;

#[tool_group(surface = "kanban-task")]
impl Unprofiled {
    #[tool(description = "List")]
    async fn list(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
