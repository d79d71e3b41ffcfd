// `#[require_annotations]` on the `server` line is a flag given once, and
// the only attribute that line takes. A misused one counts as absent, so the
// group's unannotated tool adds no error of its own.
use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

#[derive(Clone)]
pub struct Tracker;

mcp_profiles::vocabulary! {
    #[require_annotations = true]
    #[require_annotations]
    #[require_annotation]
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
}

fn main() {}
