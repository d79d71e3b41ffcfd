use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[derive(Clone)]
pub struct Desk;

mcp_profiles::vocabulary! {
    server Desk;

    #[surfaces]
    pub enum Surface { Task }

    #[capabilities]
    pub enum Capability {
        Ask,
        #[exclusive_with(Ask)]
        Delegate,
        #[exclusive_with(Ask)]
        Escalate,
    }

    #[providers]
    pub enum Provider {}
}

#[tool_group(capability = "ask", any_capability = ["delegate", "escalate"])]
impl Desk {
    #[tool(description = "Hand the question on")]
    async fn hand_on(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
