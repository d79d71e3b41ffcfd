//! Four tool groups; nothing lists them, the registry finds them at link time.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::Tasks;

/// A question for a person or a parent task.
#[derive(Deserialize, JsonSchema)]
pub struct Question {
    /// What to ask.
    pub question: String,
}

#[tool_group(name = "board", surfaces = ["kanban-task", "external"])]
impl Tasks {
    #[tool(description = "List the tasks on the board")]
    async fn list_tasks(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("[]")]))
    }
}

#[tool_group(capability = "user-question", name = "user-question")]
impl Tasks {
    #[tool(description = "Ask the user a question and wait for the answer")]
    async fn ask_user(
        &self,
        Parameters(q): Parameters<Question>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            q.question,
        )]))
    }
}

#[tool_group(
    surface = "kanban-task",
    capability = "parent-question",
    name = "parent-question"
)]
impl Tasks {
    #[tool(description = "Ask the parent task a blocking question")]
    async fn ask_parent(
        &self,
        Parameters(q): Parameters<Question>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            q.question,
        )]))
    }
}

#[tool_group(surface = "kanban-task", provider = "github", name = "github-pr")]
impl Tasks {
    #[tool(description = "Read the task's pull request")]
    async fn get_pull_request(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}
