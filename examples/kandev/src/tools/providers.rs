//! Code-host automation for a task's linked changes: `github-pr` and `gitlab-mr`.

use std::collections::BTreeMap;

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{ToolResult, respond};
use crate::server::Kandev;
use crate::store::{BadField, Board, Object};

/// GitHub PR automation settings to change; omitted ones stay as they are.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdatePrAutomation {
    /// The task repository the pull request belongs to.
    pub repository_id: Option<String>,
    /// The linked pull request's number.
    #[serde(default, deserialize_with = "super::numbers::pr_number")]
    #[schemars(range(min = 1, max = super::numbers::MAX_HOST_NUMBER))]
    pub pr_number: Option<u64>,
    /// Let the agent fix failing checks and review comments on its own.
    pub auto_fix_enabled: Option<bool>,
    /// Merge the pull request once it is approved and green.
    pub auto_merge_enabled: Option<bool>,
    /// A custom prompt for auto-fix runs; empty restores the default.
    pub auto_fix_prompt_override: Option<String>,
    /// Tell the agent when a review is requested.
    pub prompt_on_review_requested: Option<bool>,
    /// Tell the agent when the pull request is merged.
    pub prompt_on_merged: Option<bool>,
    /// Tell the agent when the pull request is closed unmerged.
    pub prompt_on_closed: Option<bool>,
}

/// GitLab MR automation settings to change; omitted ones stay as they are.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMrAutomation {
    /// The task repository the merge request belongs to.
    pub repository_id: Option<String>,
    /// The GitLab project path, such as `group/project`.
    pub project_path: Option<String>,
    /// The linked merge request's IID within the project.
    #[serde(default, deserialize_with = "super::numbers::mr_iid")]
    #[schemars(range(min = 1, max = super::numbers::MAX_HOST_NUMBER))]
    pub mr_iid: Option<u64>,
    /// Let the agent fix failing pipelines and review threads on its own.
    pub auto_fix_enabled: Option<bool>,
    /// Merge the merge request once it is approved and green.
    pub auto_merge_enabled: Option<bool>,
    /// A custom prompt for auto-fix runs; empty restores the default.
    pub auto_fix_prompt_override: Option<String>,
    /// Tell the agent when a review is requested.
    pub prompt_on_review_requested: Option<bool>,
    /// Tell the agent when the merge request is merged.
    pub prompt_on_merged: Option<bool>,
    /// Tell the agent when the merge request is closed unmerged.
    pub prompt_on_closed: Option<bool>,
}

#[tool_group(name = "github-pr", surface = "kanban-task", provider = "github")]
impl Kandev {
    #[tool(
        name = "get_task_pr_automation_kandev",
        description = "Show the bound task's GitHub pull request automations and lifecycle alerts.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn github_get_pr_automation(&self) -> ToolResult {
        self.on_board(|board| automation(board, Host::Github, &self.task_id, Object::new()))
    }

    #[tool(
        name = "update_task_pr_automation_kandev",
        description = "Turn GitHub pull request alerts, auto-merge or auto-fix on or off for the bound task.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn github_update_pr_automation(
        &self,
        Parameters(args): Parameters<UpdatePrAutomation>,
    ) -> ToolResult {
        let mut board = self.store.begin()?;
        let result = pr_changes(&board, &self.task_id, args)
            .and_then(|changes| automation(&mut board, Host::Github, &self.task_id, changes));
        board.commit()?;
        respond(result)
    }
}

#[tool_group(name = "gitlab-mr", surface = "kanban-task", provider = "gitlab")]
impl Kandev {
    #[tool(
        name = "get_task_mr_automation_kandev",
        description = "Show the bound task's GitLab merge request automations and lifecycle alerts.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn gitlab_get_mr_automation(&self) -> ToolResult {
        self.on_board(|board| automation(board, Host::Gitlab, &self.task_id, Object::new()))
    }

    #[tool(
        name = "update_task_mr_automation_kandev",
        description = "Turn GitLab merge request alerts, auto-merge or auto-fix on or off for the bound task.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn gitlab_update_mr_automation(
        &self,
        Parameters(args): Parameters<UpdateMrAutomation>,
    ) -> ToolResult {
        let mut board = self.store.begin()?;
        let result = mr_changes(&board, &self.task_id, args)
            .and_then(|changes| automation(&mut board, Host::Gitlab, &self.task_id, changes));
        board.commit()?;
        respond(result)
    }
}

/// Which code host's settings.
#[derive(Clone, Copy)]
enum Host {
    Github,
    Gitlab,
}

impl Host {
    /// The settings every task starts with.
    fn defaults(self) -> Object {
        let link = match self {
            Host::Github => json!({ "repository_id": null, "pr_number": null }),
            Host::Gitlab => {
                json!({ "repository_id": null, "project_path": null, "mr_iid": null })
            }
        };
        let mut settings = match link {
            Value::Object(settings) => settings,
            _ => Object::new(),
        };
        for (key, value) in [
            ("auto_fix_enabled", Value::Bool(false)),
            ("auto_merge_enabled", Value::Bool(false)),
            ("auto_fix_prompt_override", Value::Null),
            ("prompt_on_review_requested", Value::Bool(true)),
            ("prompt_on_merged", Value::Bool(true)),
            ("prompt_on_closed", Value::Bool(true)),
        ] {
            settings.insert(key.into(), value);
        }
        settings
    }

    /// Where the board keeps this host's settings.
    fn store(self, board: &mut Board) -> &mut BTreeMap<String, Object> {
        match self {
            Host::Github => &mut board.pr_automation,
            Host::Gitlab => &mut board.mr_automation,
        }
    }
}

/// Merges `changes` into the task's stored settings (created from the
/// defaults on first change) and returns the full settings.
fn automation(
    board: &mut Board,
    host: Host,
    task_id: &str,
    changes: Object,
) -> Result<Value, BadField> {
    board.task("task_id", task_id)?;
    let stored = host.store(board);
    let mut settings = host.defaults();
    if changes.is_empty() {
        if let Some(existing) = stored.get(task_id) {
            settings.extend(existing.clone());
        }
    } else {
        let entry = stored.entry(task_id.to_owned()).or_default();
        entry.extend(changes);
        settings.extend(entry.clone());
    }
    Ok(json!({ "task_id": task_id, "settings": settings }))
}

/// Checks that `repository_id` is a repository of the task's workspace.
fn task_repository(board: &Board, task_id: &str, repository_id: &str) -> Result<(), BadField> {
    let task = board.task("task_id", task_id)?;
    let repository = board
        .repositories
        .get(repository_id)
        .ok_or_else(|| BadField::missing("repository_id", "repository", repository_id))?;
    if repository.workspace_id != task.workspace_id {
        return Err(BadField::new(
            "repository_id",
            format!(
                "repository `{repository_id}` is not in workspace `{}`",
                task.workspace_id
            ),
        ));
    }
    Ok(())
}

/// The settings both hosts share, added to `changes`.
fn common_changes(
    changes: &mut Object,
    flags: [(&str, Option<bool>); 5],
    prompt_override: Option<String>,
) {
    for (key, flag) in flags {
        if let Some(flag) = flag {
            changes.insert(key.into(), Value::Bool(flag));
        }
    }
    if let Some(prompt) = prompt_override {
        let prompt = prompt.trim();
        let value = if prompt.is_empty() {
            Value::Null
        } else {
            Value::String(prompt.to_owned())
        };
        changes.insert("auto_fix_prompt_override".into(), value);
    }
}

/// The validated GitHub changes as settings entries.
fn pr_changes(board: &Board, task_id: &str, args: UpdatePrAutomation) -> Result<Object, BadField> {
    let mut changes = Object::new();
    if let Some(repository_id) = args.repository_id {
        task_repository(board, task_id, &repository_id)?;
        changes.insert("repository_id".into(), Value::String(repository_id));
    }
    if let Some(number) = args.pr_number {
        changes.insert("pr_number".into(), Value::from(number));
    }
    common_changes(
        &mut changes,
        [
            ("auto_fix_enabled", args.auto_fix_enabled),
            ("auto_merge_enabled", args.auto_merge_enabled),
            (
                "prompt_on_review_requested",
                args.prompt_on_review_requested,
            ),
            ("prompt_on_merged", args.prompt_on_merged),
            ("prompt_on_closed", args.prompt_on_closed),
        ],
        args.auto_fix_prompt_override,
    );
    Ok(changes)
}

/// The validated GitLab changes as settings entries.
fn mr_changes(board: &Board, task_id: &str, args: UpdateMrAutomation) -> Result<Object, BadField> {
    let mut changes = Object::new();
    if let Some(repository_id) = args.repository_id {
        task_repository(board, task_id, &repository_id)?;
        changes.insert("repository_id".into(), Value::String(repository_id));
    }
    if let Some(path) = args.project_path {
        let path = path.trim().trim_matches('/');
        if !path.contains('/') || path.split('/').any(str::is_empty) {
            return Err(BadField::new(
                "project_path",
                format!("`{path}` is not a project path such as `group/project`"),
            ));
        }
        changes.insert("project_path".into(), Value::String(path.to_owned()));
    }
    if let Some(iid) = args.mr_iid {
        changes.insert("mr_iid".into(), Value::from(iid));
    }
    common_changes(
        &mut changes,
        [
            ("auto_fix_enabled", args.auto_fix_enabled),
            ("auto_merge_enabled", args.auto_merge_enabled),
            (
                "prompt_on_review_requested",
                args.prompt_on_review_requested,
            ),
            ("prompt_on_merged", args.prompt_on_merged),
            ("prompt_on_closed", args.prompt_on_closed),
        ],
        args.auto_fix_prompt_override,
    );
    Ok(changes)
}
