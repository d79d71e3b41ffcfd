// Capabilities and providers may be left out, surfaces may not: one error
// naming what to declare. The vocabulary still expands (with an empty
// `Surface`), so the groups and the code below add none.
use mcp_profiles::{Term, Vocabulary, tool_group};
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[derive(Clone)]
pub struct Desk;

mcp_profiles::vocabulary! {
    server Desk;
    #[capabilities] pub enum Capability { Refund }
}

#[tool_group(name = "refunds", capability = "refund")]
impl Desk {
    #[tool(description = "Refund the order")]
    async fn refund(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "night", always, include("refunds"))]
impl Desk {}

fn main() {
    let _ = Desk::registry();
    let _ = (Surface::ALL, Capability::ALL, Provider::ALL);
}
