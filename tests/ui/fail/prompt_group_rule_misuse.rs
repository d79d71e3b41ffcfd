#[path = "../support.rs"]
mod support;

use mcp_profiles::prompt_group;
use rmcp::model::PromptMessage;
use rmcp::{ErrorData, prompt};
use support::Kandev;

#[prompt_group(surface = "kanban-task", require_annotations)]
impl Kandev {
    #[prompt(description = "Review the pull request")]
    async fn review_pull_request_kandev(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![])
    }
}

fn main() {}
