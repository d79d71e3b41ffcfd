// `Remote`, its vocabulary and a group are in the `mcp_profiles_ui_foreign`
// library; this crate imports the type and may not add a group to it.
use mcp_profiles::tool_group;
use mcp_profiles_ui_foreign::Remote;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[tool_group(surface = "ticket")]
impl Remote {
    #[tool(description = "List")]
    async fn list(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
