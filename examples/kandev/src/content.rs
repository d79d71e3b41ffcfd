//! Kandev's prompts and resources, under the same profile rules as its
//! tools: the task plan as a resource template on `kanban-task`, and a
//! pull-request review prompt for sessions with GitHub attached.
//!
//! Same shape as the tools: an argument struct, a pure function over the
//! board, a thin handler.

use mcp_profiles::{prompt_group, resource_group};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents, Role};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, prompt};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::model::Board;
use crate::server::Kandev;
use crate::store::BadField;

/// The template's prefix and suffix around the task id.
const PLAN_PREFIX: &str = "kandev://task/";
const PLAN_SUFFIX: &str = "/plan";

/// The pull request to review.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReviewPullRequest {
    /// The pull request's number in the task's repository.
    pub pr_number: String,
    /// What to look at first, if anything.
    pub focus: Option<String>,
}

#[resource_group(name = "task-plan-resource", surface = "kanban-task")]
impl Kandev {
    #[resource(
        uri_template = "kandev://task/{task_id}/plan",
        name = "task-plan",
        description = "A task's markdown plan on the board",
        mime_type = "text/markdown"
    )]
    async fn read_task_plan(
        &self,
        uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let plan = self.store().with(|board| task_plan(board, &uri))?;
        let text = plan.map_err(|bad| ErrorData::resource_not_found(bad.to_string(), None))?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, uri).with_mime_type("text/markdown"),
        ]))
    }
}

#[prompt_group(name = "review-prompt", provider = "github")]
impl Kandev {
    #[prompt(
        name = "review_pull_request_kandev",
        description = "Review the bound task's GitHub pull request against its plan."
    )]
    async fn review_pull_request(
        &self,
        Parameters(args): Parameters<ReviewPullRequest>,
    ) -> Result<GetPromptResult, ErrorData> {
        let text = self
            .store()
            .with(|board| review_prompt(board, &self.task_id, &args))?
            .map_err(|bad| ErrorData::invalid_params(bad.to_string(), None))?;
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description("Review a pull request"),
        )
    }
}

/// The markdown of the plan `uri` names (`kandev://task/{task_id}/plan`).
fn task_plan(board: &Board, uri: &str) -> Result<String, BadField> {
    let task_id = uri
        .strip_prefix(PLAN_PREFIX)
        .and_then(|rest| rest.strip_suffix(PLAN_SUFFIX))
        .ok_or_else(|| BadField::new("uri", format!("`{uri}` is not a task plan URI")))?;
    board.task("task_id", task_id)?;
    let plan = board
        .plans
        .get(task_id)
        .ok_or_else(|| BadField::new("task_id", format!("task `{task_id}` has no plan")))?;
    Ok(format!("# {}\n\n{}", plan.title, plan.content))
}

/// The review instructions for `task_id`'s pull request, with its plan when
/// it has one.
fn review_prompt(
    board: &Board,
    task_id: &str,
    args: &ReviewPullRequest,
) -> Result<String, BadField> {
    let task = board.task("task_id", task_id)?;
    let number = args.pr_number.trim_start_matches('#');
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadField::new(
            "pr_number",
            format!("`{}` is not a pull request number", args.pr_number),
        ));
    }
    let mut text = format!(
        "Review pull request #{number} for task `{}` ({}). Check that it does what the task \
         asks, that tests cover it, and that nothing unrelated changed.",
        task.id, task.title
    );
    if let Some(plan) = board.plans.get(task_id) {
        text.push_str(&format!("\n\nThe task's plan:\n{}", plan.content));
    }
    if let Some(focus) = args.focus.as_deref().filter(|f| !f.is_empty()) {
        text.push_str(&format!("\n\nLook at this first: {focus}"));
    }
    Ok(text)
}
