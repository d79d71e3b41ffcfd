// `#[surface]` for `#[surfaces]`: one error on the attribute, and the enum
// is still the surfaces, so the groups and the code below add none.
use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[derive(Clone)]
pub struct Desk;

mcp_profiles::vocabulary! {
    server Desk;
    #[surface] pub enum Surface { Ticket }
    #[capabilities] pub enum Capability { Refund }
    #[providers] pub enum Provider { Jira }
}

#[tool_group(name = "tickets", surface = "ticket", capability = "refund")]
impl Desk {
    #[tool(description = "List the tickets")]
    async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "night", always, include("tickets"))]
impl Desk {}

fn main() {
    let context = ProfileContext::<Desk>::new(Surface::Ticket);
    let _ = Desk::registry().assemble(&context);
    let _ = (Capability::ALL, Provider::ALL);
}
