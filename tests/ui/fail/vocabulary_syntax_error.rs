// A syntax error in a part: syn's one error, and the part is still declared
// with the variants it names, so the groups and code below add none.
use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[derive(Clone)]
pub struct Desk;

mcp_profiles::vocabulary! {
    server Desk;
    #[surfaces] pub enum Surface { Ticket Chat }
    #[capabilities] pub enum Capability { Refund }
}

#[tool_group(name = "chats", surface = "chat", capability = "refund")]
impl Desk {
    #[tool(description = "List the chats")]
    async fn list_chats(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "night", always, include("chats"))]
impl Desk {}

fn main() {
    let context = ProfileContext::<Desk>::new(Surface::Chat);
    let _ = Desk::registry().assemble(&context);
    let _ = (Capability::ALL, Provider::ALL);
}
