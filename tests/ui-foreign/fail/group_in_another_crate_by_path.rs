// The same as `group_in_another_crate.rs`, the server named by its path.
use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[tool_group(surface = "ticket")]
impl mcp_profiles_ui_foreign::Remote {
    #[tool(description = "List")]
    async fn list(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
