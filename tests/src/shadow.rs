//! A small valid server whose tool names collide under a presentation
//! that strips `_ext`: `lookup_ext` would be listed as `lookup`, which is
//! another tool's name. Attaching that presentation must be refused.

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

/// Two lookups, one of them "extended".
#[derive(Clone, Default)]
pub struct Shadow;

impl rmcp::ServerHandler for Shadow {}

mcp_profiles::vocabulary! {
    server Shadow;

    #[surfaces]
    pub enum Surface { Desk, Shelf }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

// The two are never on together: the check is global all the same.
#[tool_group(name = "lookup", surface = "desk")]
impl Shadow {
    #[tool(description = "Look an item up")]
    async fn lookup(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "lookup-ext", surface = "shelf")]
impl Shadow {
    #[tool(description = "Look an item up, with its history")]
    async fn lookup_ext(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}
