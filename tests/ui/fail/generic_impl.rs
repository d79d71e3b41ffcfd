#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

pub struct Wrapper<T>(T);

#[tool_group(surface = "kanban-task")]
impl<T: Send + Sync + 'static> Wrapper<T> {
    #[tool(description = "List")]
    async fn list(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {
    let _ = Kandev;
}
