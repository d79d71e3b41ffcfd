// `#[prompt_group]` on a trait impl: one error, and the `prompt` import the
// impl's methods use is not reported unused beside it.
#[path = "../support.rs"]
mod support;

use mcp_profiles::prompt_group;
use rmcp::model::PromptMessage;
use rmcp::{ErrorData, prompt};
use support::Kandev;

trait Prompts {
    fn review(&self) -> Result<Vec<PromptMessage>, ErrorData>;
}

#[prompt_group(name = "review-prompt", provider = "github")]
impl Prompts for Kandev {
    #[prompt(description = "Review the pull request")]
    fn review(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![])
    }
}

fn main() {}
