// `#[require_annotations]` on the vocabulary's `server` line requires
// annotations in every group, even one that does not say so itself.
use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[derive(Clone)]
pub struct Tracker;

mcp_profiles::vocabulary! {
    #[require_annotations]
    server Tracker;

    #[surfaces]
    pub enum Surface { Board }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

#[tool_group(surface = "board")]
impl Tracker {
    #[tool(description = "Archive the board")]
    async fn archive_board(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "Read the board", annotations(read_only_hint = true))]
    async fn get_board(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
