//! `configuration-automations`: setting up a workspace automation, what its
//! runs launch and the triggers that start them.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{required_text, unless_blank};
use crate::server::Kandev;
use crate::store::{
    Automation, AutomationRepository, AutomationTrigger, BadField, Board, ContinuationPolicy,
    Object, RepositoryMode, TaskMode, TriggerKind, check_document, check_items, check_name,
    check_text,
};
use crate::tools::ToolResult;
use crate::tools::numbers::{MAX_CONCURRENT_RUNS, max_concurrent_runs};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// A new workspace automation; it is enabled at once.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateAutomation {
    /// The workspace it belongs to (see list_workspaces_kandev).
    pub workspace_id: String,
    /// The automation's name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// The workflow its runs' tasks go into; required for `normal_task` runs.
    pub workflow_id: Option<String>,
    /// The step runs start in: a step of `workflow_id`.
    pub workflow_step_id: Option<String>,
    /// The agent profile runs launch with.
    pub agent_profile_id: Option<String>,
    /// The executor profile runs launch in.
    pub executor_profile_id: Option<String>,
    /// Repositories of the workspace, in order, each with an optional base branch.
    pub repositories: Option<Vec<AutomationRepository>>,
    /// The older way to pick repositories; prefer `repositories`, and never send both differing.
    pub repository_ids: Option<Vec<String>>,
    /// The prompt each run starts with.
    pub prompt: Option<String>,
    /// The title of each run's task.
    pub task_title_template: Option<String>,
    /// At most this many runs at once; 1 when omitted.
    #[serde(default, deserialize_with = "max_concurrent_runs")]
    #[schemars(range(min = 1, max = MAX_CONCURRENT_RUNS))]
    pub max_concurrent_runs: Option<u64>,
    /// `new_task` (the default) or `reuse_thread`, which takes one run at a time.
    pub continuation_policy: Option<ContinuationPolicy>,
    /// `automation_run` (the default, hidden from boards) or `normal_task`.
    pub task_mode: Option<TaskMode>,
    /// `none` or `selected`; follows from the repositories when omitted.
    pub repository_mode: Option<RepositoryMode>,
    /// What starts runs; a trigger is off unless `enabled` is true.
    pub triggers: Option<Vec<NewTrigger>>,
}

/// A trigger of a new automation.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTrigger {
    /// What starts a run.
    #[serde(rename = "type")]
    pub kind: TriggerKind,
    /// Turn the trigger on; off when omitted.
    pub enabled: Option<bool>,
    /// The trigger's settings: `scheduled` takes `cron_expression` (five
    /// fields) and an optional `timezone`, `plugin_event` a `plugin_id`;
    /// the others are stored as given.
    pub config: Object,
}

// ---------------------------------------------------------------------------
// Automations
// ---------------------------------------------------------------------------

/// Refuses an ID of a missing record, or of one in another workspace.
fn check_in_workspace(
    field: &'static str,
    kind: &str,
    id: &str,
    found_in: Option<&str>,
    workspace_id: &str,
) -> Result<(), BadField> {
    match found_in {
        None => Err(BadField::missing(field, kind, id)),
        Some(other) if other != workspace_id => Err(BadField::new(
            field,
            format!("{kind} `{id}` is in workspace `{other}`, not `{workspace_id}`"),
        )),
        Some(_) => Ok(()),
    }
}

/// The repositories runs check out, from either selection.
fn repositories(
    board: &Board,
    workspace_id: &str,
    selected: Option<Vec<AutomationRepository>>,
    legacy_ids: Option<Vec<String>>,
) -> Result<Vec<AutomationRepository>, BadField> {
    let selected = selected.unwrap_or_default();
    let legacy_ids = legacy_ids.unwrap_or_default();
    check_items("repositories", selected.len())?;
    check_items("repository_ids", legacy_ids.len())?;
    let selected_ids: Vec<&String> = selected.iter().map(|r| &r.repository_id).collect();
    if !selected.is_empty()
        && !legacy_ids.is_empty()
        && selected_ids != legacy_ids.iter().collect::<Vec<_>>()
    {
        return Err(BadField::new(
            "repository_ids",
            "names other repositories than `repositories`; send only `repositories`",
        ));
    }
    let (field, repositories) = if selected.is_empty() {
        let from_ids = legacy_ids
            .into_iter()
            .map(|repository_id| AutomationRepository {
                repository_id,
                base_branch: None,
            });
        ("repository_ids", from_ids.collect())
    } else {
        ("repositories", selected)
    };
    let mut seen = Vec::new();
    for repository in &repositories {
        let id = &repository.repository_id;
        let found_in = board.repositories.get(id).map(|r| r.workspace_id.as_str());
        check_in_workspace(field, "repository", id, found_in, workspace_id)?;
        if let Some(branch) = &repository.base_branch {
            check_name(field, branch)?;
        }
        if seen.contains(&id) {
            return Err(BadField::new(field, format!("`{id}` is listed twice")));
        }
        seen.push(id);
    }
    Ok(repositories)
}

/// Checks a trigger's type-specific settings.
fn check_trigger(trigger: &NewTrigger) -> Result<(), BadField> {
    check_document("triggers", &trigger.config)?;
    let text = |key: &str| trigger.config.get(key).map(|value| value.as_str());
    match trigger.kind {
        TriggerKind::Scheduled => {
            let cron = match text("cron_expression") {
                Some(Some(cron)) => cron,
                _ => {
                    return Err(BadField::new(
                        "triggers",
                        "a scheduled trigger needs `cron_expression`, a string",
                    ));
                }
            };
            check_name("triggers", cron)?;
            let fields = cron.split_whitespace().count();
            if fields != 5 {
                return Err(BadField::new(
                    "triggers",
                    format!("`cron_expression` `{cron}` has {fields} fields, not 5"),
                ));
            }
            match text("timezone") {
                None => Ok(()),
                Some(Some(zone)) => check_name("triggers", zone),
                Some(None) => Err(BadField::new("triggers", "`timezone` is a string")),
            }
        }
        TriggerKind::PluginEvent => match text("plugin_id") {
            Some(Some(plugin)) if !plugin.trim().is_empty() => check_name("triggers", plugin),
            _ => Err(BadField::new(
                "triggers",
                "a plugin_event trigger needs `plugin_id`, a string",
            )),
        },
        _ => Ok(()),
    }
}

fn create_automation(board: &mut Board, args: CreateAutomation) -> Result<Value, BadField> {
    let workspace_id = args.workspace_id.trim().to_owned();
    board.workspace("workspace_id", &workspace_id)?;
    let name = required_text("name", args.name)?;
    for (field, text) in [("description", &args.description), ("prompt", &args.prompt)] {
        if let Some(text) = text {
            check_text(field, text)?;
        }
    }
    if let Some(template) = &args.task_title_template {
        check_name("task_title_template", template)?;
    }
    let task_mode = args.task_mode.unwrap_or_default();
    let workflow_id = args.workflow_id.and_then(unless_blank);
    match &workflow_id {
        Some(id) => {
            let found_in = board.workflows.get(id).map(|w| w.workspace_id.as_str());
            check_in_workspace("workflow_id", "workflow", id, found_in, &workspace_id)?;
        }
        None if task_mode == TaskMode::NormalTask => {
            return Err(BadField::new(
                "workflow_id",
                "a normal_task automation needs the workflow its tasks go into",
            ));
        }
        None => {}
    }
    let workflow_step_id = args.workflow_step_id.and_then(unless_blank);
    if let Some(step) = &workflow_step_id {
        let Some(workflow) = &workflow_id else {
            return Err(BadField::new(
                "workflow_step_id",
                "a starting step needs `workflow_id` too",
            ));
        };
        if board.step("workflow_step_id", step)?.workflow_id != *workflow {
            return Err(BadField::new(
                "workflow_step_id",
                format!("step `{step}` is not in workflow `{workflow}`"),
            ));
        }
    }
    let agent_profile_id = args.agent_profile_id.and_then(unless_blank);
    if let Some(id) = &agent_profile_id
        && !board.agent_profiles.contains_key(id)
    {
        return Err(BadField::missing("agent_profile_id", "agent profile", id));
    }
    let executor_profile_id = args.executor_profile_id.and_then(unless_blank);
    if let Some(id) = &executor_profile_id
        && !board.executor_profiles.contains_key(id)
    {
        return Err(BadField::missing(
            "executor_profile_id",
            "executor profile",
            id,
        ));
    }
    let repositories = repositories(board, &workspace_id, args.repositories, args.repository_ids)?;
    let derived_mode = if repositories.is_empty() {
        RepositoryMode::None
    } else {
        RepositoryMode::Selected
    };
    let repository_mode = args.repository_mode.unwrap_or(derived_mode);
    if repository_mode != derived_mode {
        let problem = match repository_mode {
            RepositoryMode::None => "`none` with repositories selected",
            RepositoryMode::Selected => "`selected` with no repository selected",
        };
        return Err(BadField::new("repository_mode", problem));
    }
    // In range by the argument's deserializer.
    let max_concurrent_runs = args.max_concurrent_runs.unwrap_or(1) as u32;
    let continuation_policy = args.continuation_policy.unwrap_or_default();
    if continuation_policy == ContinuationPolicy::ReuseThread && max_concurrent_runs != 1 {
        return Err(BadField::new(
            "continuation_policy",
            format!("reuse_thread takes one run at a time, not {max_concurrent_runs}"),
        ));
    }
    let triggers = args.triggers.unwrap_or_default();
    check_items("triggers", triggers.len())?;
    for trigger in &triggers {
        check_trigger(trigger)?;
    }
    board.make_room("name", 1)?;
    let id = board.next_id("automation");
    let triggers = triggers
        .into_iter()
        .map(|trigger| AutomationTrigger {
            id: board.next_id("trigger"),
            kind: trigger.kind,
            enabled: trigger.enabled.unwrap_or(false),
            config: trigger.config,
        })
        .collect();
    let automation = Automation {
        id: id.clone(),
        workspace_id,
        name,
        description: args.description.unwrap_or_default(),
        enabled: true,
        workflow_id,
        workflow_step_id,
        agent_profile_id,
        executor_profile_id,
        repositories,
        repository_mode,
        prompt: args.prompt.unwrap_or_default(),
        task_title_template: args.task_title_template.and_then(unless_blank),
        max_concurrent_runs,
        continuation_policy,
        task_mode,
        triggers,
    };
    board.automations.insert(id, automation.clone());
    Ok(json!({ "automation": automation }))
}

// ---------------------------------------------------------------------------
// The tool group
// ---------------------------------------------------------------------------

#[tool_group(name = "configuration-automations", surface = "configuration")]
impl Kandev {
    #[tool(
        name = "create_automation_kandev",
        description = "Sets up an enabled workspace automation with optional triggers; retries may duplicate it.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn config_create_automation(
        &self,
        Parameters(args): Parameters<CreateAutomation>,
    ) -> ToolResult {
        self.on_board(|board| create_automation(board, args))
    }
}

#[cfg(test)]
#[path = "automations_tests.rs"]
mod tests;
