// Two groups define `list_workspaces_kandev` with different methods; a group
// that includes both would put two definitions of one name on together.
#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(name = "kanban-task", surface = "kanban-task")]
impl Kandev {
    #[tool(name = "list_workspaces_kandev", description = "List workspaces")]
    async fn list_workspaces(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "configuration-workflows", surface = "configuration")]
impl Kandev {
    #[tool(name = "list_workspaces_kandev", description = "List every workspace")]
    async fn list_configured_workspaces(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(
    name = "automation",
    surface = "external",
    include("kanban-task", "configuration-workflows")
)]
impl Kandev {}

fn main() {}
