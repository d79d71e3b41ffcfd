//! A server with its vocabulary and a tool group, for the trybuild case that
//! declares another group on it from another crate
//! (`fail/group_in_another_crate.rs`).

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

/// A server whose vocabulary and groups this crate declares.
#[derive(Clone, Default)]
pub struct Remote;

mcp_profiles::vocabulary! {
    server Remote;

    #[surfaces]
    pub enum Surface { Ticket }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

#[tool_group(name = "tickets", surface = "ticket")]
impl Remote {
    /// Lists the tickets.
    #[tool(description = "List the tickets")]
    pub async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}
