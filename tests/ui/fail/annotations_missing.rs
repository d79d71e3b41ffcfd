// A group that requires annotations: each tool that leaves a hint unstated
// gets its own error, all reported together. A read-only tool need not say
// whether it is destructive.
#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(name = "tasks", surface = "kanban-task", require_annotations)]
impl Kandev {
    #[tool(description = "Delete the task")]
    async fn delete_task(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "Rename the task", annotations(read_only_hint = false))]
    async fn rename_task(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "Add a comment", annotations(destructive_hint = false))]
    async fn add_comment(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "Read the task", annotations(read_only_hint = true))]
    async fn get_task(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(
        description = "Move the task",
        annotations(read_only_hint = false, destructive_hint = false)
    )]
    async fn move_task(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
