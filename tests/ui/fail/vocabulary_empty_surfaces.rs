// A vocabulary needs at least one surface: one error on the empty enum, and
// nothing else from the groups and code below.
use mcp_profiles::{Term, Vocabulary, tool_group};
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[derive(Clone)]
pub struct Desk;

mcp_profiles::vocabulary! {
    server Desk;
    #[surfaces] pub enum Surface {}
}

#[tool_group(name = "info", always)]
impl Desk {
    #[tool(description = "Server info")]
    async fn info(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {
    let _ = Desk::registry();
    let _ = (Surface::ALL, Capability::ALL, Provider::ALL);
}
