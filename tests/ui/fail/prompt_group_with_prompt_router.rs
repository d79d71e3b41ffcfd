#[path = "../support.rs"]
mod support;

use mcp_profiles::prompt_group;
use rmcp::model::PromptMessage;
use rmcp::{ErrorData, prompt, prompt_router};
use support::Kandev;

#[prompt_group(name = "review-prompt", provider = "github")]
#[prompt_router]
impl Kandev {
    #[prompt(description = "Review the pull request")]
    async fn review_pull_request_kandev(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![])
    }
}

fn main() {}
