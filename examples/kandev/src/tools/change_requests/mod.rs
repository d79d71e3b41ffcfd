//! A task's pull requests (GitHub) and merge requests (GitLab), provider
//! neutral: `task-pr-links` links them and switches their automation;
//! `github-pr` takes the outcome of a GitHub auto-fix turn.
//!
//! Reading and switching automation are bound to the calling task (they
//! take no `task_id`); linking may name any task of its workspace.

mod automation;
mod links;

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::ToolResult;
use crate::server::Kandev;
use crate::store::{BadField, Board, ChangeRequest};
use automation::{AutoFixOutcomeReport, UpdateAutomation};
use links::ManageChangeRequest;

/// The code host a change request lives on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodeHost {
    /// A GitHub pull request.
    Github,
    /// A GitLab merge request.
    Gitlab,
}

impl CodeHost {
    const ALL: [CodeHost; 2] = [CodeHost::Github, CodeHost::Gitlab];

    fn as_str(self) -> &'static str {
        match self {
            CodeHost::Github => "github",
            CodeHost::Gitlab => "gitlab",
        }
    }

    /// What Kandev can do with this host's requests; only GitHub auto-fix
    /// turns report an outcome.
    fn abilities(self) -> Value {
        json!({
            "auto_fix": true,
            "auto_merge": true,
            "lifecycle_prompts": true,
            "auto_fix_outcome_reports": self == CodeHost::Github,
        })
    }
}

/// A link as the tools show it.
fn shown(link: &ChangeRequest) -> Value {
    json!({
        "provider": link.provider,
        "repository_id": link.repository_id,
        "number": link.number,
        "auto_fix_enabled": link.auto_fix_enabled,
        "auto_merge_enabled": link.auto_merge_enabled,
        "prompt_on_review_requested": link.prompt_on_review_requested,
        "prompt_on_merged": link.prompt_on_merged,
        "prompt_on_closed": link.prompt_on_closed,
    })
}

/// The task's links, in key order (provider, repository, number).
pub(crate) fn links_of<'a>(
    board: &'a Board,
    task_id: &'a str,
) -> impl Iterator<Item = &'a ChangeRequest> + 'a {
    board
        .change_requests
        .values()
        .filter(move |link| link.task_id == task_id)
}

/// The task's links as the tools show them.
fn shown_links(board: &Board, task_id: &str) -> Vec<Value> {
    links_of(board, task_id).map(shown).collect()
}

/// The task's custom auto-fix prompt per provider (`null` for the default).
fn prompts_of(board: &Board, task_id: &str) -> Value {
    let prompts: serde_json::Map<String, Value> = CodeHost::ALL
        .into_iter()
        .map(|host| {
            let prompt = board
                .auto_fix_prompts
                .get(&(task_id.to_owned(), host.as_str().to_owned()));
            (host.as_str().to_owned(), json!(prompt))
        })
        .collect();
    Value::Object(prompts)
}

/// What `get_task_change_requests_kandev` answers for the bound task.
fn change_requests(board: &Board, task_id: &str) -> Result<Value, BadField> {
    board.task("task_id", task_id)?;
    let abilities: serde_json::Map<String, Value> = CodeHost::ALL
        .into_iter()
        .map(|host| (host.as_str().to_owned(), host.abilities()))
        .collect();
    Ok(json!({
        "task_id": task_id,
        "change_requests": shown_links(board, task_id),
        "auto_fix_prompts": prompts_of(board, task_id),
        "providers": abilities,
    }))
}

/// No arguments: the tool is bound to the calling task.
#[derive(JsonSchema)]
pub struct BoundTask {}

/// Refuses any argument, naming it and the binding (a `task_id` here is a
/// caller trying to reach another task).
impl<'de> Deserialize<'de> for BoundTask {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let arguments = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        match arguments.keys().next() {
            None => Ok(BoundTask {}),
            Some(name) => Err(serde::de::Error::custom(format!(
                "unknown argument `{name}`: this tool is bound to the calling task; \
                 cross-task targeting is not supported"
            ))),
        }
    }
}

#[tool_group(
    name = "task-pr-links",
    surface = "kanban-task",
    providers = ["github", "gitlab"]
)]
impl Kandev {
    #[tool(
        name = "get_task_change_requests_kandev",
        description = "Reports the bound task's linked GitHub PRs/GitLab MRs, automation switches and provider abilities.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn pr_links_get(&self, Parameters(_): Parameters<BoundTask>) -> ToolResult {
        self.on_board(|board| change_requests(board, &self.task_id))
    }

    #[tool(
        name = "manage_task_change_request_kandev",
        description = "Links, unlinks or swaps a pull/merge request association on a task.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn pr_links_manage(
        &self,
        Parameters(args): Parameters<ManageChangeRequest>,
    ) -> ToolResult {
        self.on_board(|board| links::manage(board, &self.task_id, args))
    }

    #[tool(
        name = "update_task_change_request_automation_kandev",
        description = "Toggles automation switches for one linked change request or whole providers.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn pr_links_update_automation(
        &self,
        Parameters(args): Parameters<UpdateAutomation>,
    ) -> ToolResult {
        self.on_board(|board| automation::update(board, &self.task_id, args))
    }
}

#[tool_group(name = "github-pr", surface = "kanban-task", provider = "github")]
impl Kandev {
    #[tool(
        name = "report_change_request_auto_fix_outcome_kandev",
        description = "Records the single result of a Kandev-dispatched review auto-fix turn.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn github_report_auto_fix_outcome(
        &self,
        Parameters(args): Parameters<AutoFixOutcomeReport>,
    ) -> ToolResult {
        self.on_board(|board| automation::report_outcome(board, &self.task_id, args))
    }
}
