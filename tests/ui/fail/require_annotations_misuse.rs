// `require_annotations` is a flag: a value or a repeat is an error.
#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use support::Kandev;

#[tool_group(name = "with-value", surface = "kanban-task", require_annotations = true)]
impl Kandev {
    #[tool(description = "Read the task", annotations(read_only_hint = true))]
    async fn get_task(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "twice", surface = "kanban-task", require_annotations, require_annotations)]
impl Kandev {
    #[tool(description = "Read the plan", annotations(read_only_hint = true))]
    async fn get_plan(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "typo", surface = "kanban-task", require_annotation)]
impl Kandev {
    #[tool(description = "Read the title", annotations(read_only_hint = true))]
    async fn get_title(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
