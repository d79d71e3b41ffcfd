#[path = "../support.rs"]
mod support;

use mcp_profiles::prompt_group;
use rmcp::model::PromptMessage;
use rmcp::{ErrorData, prompt};
use support::Kandev;

#[prompt_group(name = "review-prompt", provider = "github")]
impl Kandev {
    #[prompt(name = "review", description = "Review the pull request")]
    async fn review_pull_request(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![])
    }

    #[prompt(name = "review", description = "Review the merge request")]
    async fn review_merge_request(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![])
    }
}

fn main() {}
