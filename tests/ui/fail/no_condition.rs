#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(name = "parent-question")]
impl Kandev {
    #[tool(description = "Ask the parent task")]
    async fn ask_parent_question_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
