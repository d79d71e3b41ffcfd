// Kandev's automation surface registers seven groups and then deletes 21
// names, 8 of which none of those groups ever registered (dead names its
// code cannot see). Here each dead name is a compile error on its literal.
#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(name = "kanban-task", surface = "kanban-task")]
impl Kandev {
    #[tool(description = "List tasks")]
    async fn list_tasks_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "Delete a task")]
    async fn delete_task_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "configuration-workflows", surface = "configuration")]
impl Kandev {
    #[tool(description = "List workflows")]
    async fn list_workflows_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "Delete a workflow")]
    async fn delete_workflow_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(
    name = "automation",
    surface = "external",
    include("kanban-task", "configuration-workflows"),
    exclude = [
        "delete_task_kandev",
        "delete_workflow_kandev",
        "update_task_state_kandev",
        "update_agent_kandev",
        "create_agent_profile_kandev",
        "delete_agent_profile_kandev",
        "list_agent_profiles_kandev",
        "update_agent_profile_kandev",
        "get_mcp_config_kandev",
        "update_mcp_config_kandev",
    ]
)]
impl Kandev {}

fn main() {}
