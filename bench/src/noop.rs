//! The smallest profiled server: one group with one tool that does nothing,
//! so dispatch benchmarks measure dispatch and not the tool.

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

/// A server whose only tool returns an empty success.
#[derive(Clone, Default)]
pub struct Noop;

impl rmcp::ServerHandler for Noop {}

mcp_profiles::vocabulary! {
    server Noop;

    #[surfaces]
    pub enum Surface { Only }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

#[tool_group(name = "noop", surface = "only")]
impl Noop {
    #[tool(description = "Do nothing")]
    async fn noop(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}
