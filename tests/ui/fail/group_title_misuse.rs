#[path = "../support.rs"]
mod support;

use mcp_profiles::{prompt_group, tool_group};
use rmcp::model::{CallToolResult, PromptMessage};
use rmcp::{ErrorData, prompt, tool};
use support::Kandev;

// A blank title.
#[tool_group(name = "plans", surface = "kanban-task", title = "  ")]
impl Kandev {
    #[tool(description = "Read the plan")]
    async fn get_task_plan_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

// A title over two lines, and a description given twice.
#[tool_group(
    name = "titles",
    surface = "kanban-task",
    title = "Titles\nand more",
    description = "Set the task's title",
    description = "Again"
)]
impl Kandev {
    #[tool(description = "Set the title")]
    async fn set_task_title_kandev(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

// A list where one text goes, on a prompt group.
#[prompt_group(surface = "kanban-task", description = ["Review", "pull requests"])]
impl Kandev {
    #[prompt(description = "Review the pull request")]
    async fn review_pull_request_kandev(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![])
    }
}

fn main() {}
