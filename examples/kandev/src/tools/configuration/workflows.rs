//! `configuration-workflows`: workflows, their steps, and the portable
//! workflow document for import and export.

use std::collections::{BTreeMap, BTreeSet};

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{required_text, unless_blank};
use crate::server::Kandev;
use crate::store::{
    BadField, Board, MAX_DOCUMENT_BYTES, Object, Workflow, WorkflowStep, check_document,
    check_items, check_name, check_text,
};
use crate::tools::shared::{WorkflowRef, WorkspaceRef};
use crate::tools::{ToolResult, ok, respond};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// A new workflow.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkflow {
    /// The workspace the workflow belongs to.
    pub workspace_id: String,
    /// The workflow's name, unique within the workspace.
    pub name: String,
    /// What the workflow is for.
    pub description: Option<String>,
}

/// Changes to a workflow.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWorkflow {
    /// The workflow to change.
    pub workflow_id: String,
    /// Its new name, unique within the workspace.
    pub name: Option<String>,
    /// Its new description.
    pub description: Option<String>,
}

/// The workflow to delete.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteWorkflow {
    /// The workflow's ID; it must hold no tasks.
    pub workflow_id: String,
}

/// A workflow document to import.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportWorkflow {
    /// The workspace to import into.
    pub workspace_id: String,
    /// The JSON text export_workflow_kandev returned.
    pub document: String,
}

/// The workflow to export.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportWorkflow {
    /// The workflow's ID.
    pub workflow_id: String,
}

/// A new workflow step (board column).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkflowStep {
    /// The workflow the step belongs to.
    pub workflow_id: String,
    /// The column's name, unique within the workflow.
    pub name: String,
    /// Zero-based column index; appended at the end when omitted.
    #[serde(default, deserialize_with = "crate::tools::numbers::position")]
    #[schemars(range(min = 0, max = crate::tools::numbers::MAX_COUNT))]
    pub position: Option<u64>,
    /// Display colour of the column.
    pub color: Option<String>,
    /// Prompt given to agents whose task enters the step.
    pub prompt: Option<String>,
    /// Make this the step new tasks start in.
    pub is_start_step: Option<bool>,
    /// Let people drag tasks into the step by hand.
    pub allow_manual_move: Option<bool>,
    /// List the step in the command panel.
    pub show_in_command_panel: Option<bool>,
    /// Advance only once the agent signals it is done.
    pub auto_advance_requires_signal: Option<bool>,
    /// Treat cancelling as the end of the agent's turn.
    pub cancel_triggers_turn_complete: Option<bool>,
    /// At most this many tasks in the step (a whole number).
    #[serde(default, deserialize_with = "crate::tools::numbers::wip_limit")]
    #[schemars(range(min = 0, max = crate::tools::numbers::MAX_COUNT))]
    pub wip_limit: Option<u64>,
    /// A step of the same workflow to pull tasks from.
    pub pull_from_step_id: Option<String>,
    /// Event hooks of the step, stored as given.
    pub events: Option<Object>,
}

/// Changes to a workflow step; omitted settings stay as they are.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWorkflowStep {
    /// The step to change.
    pub step_id: String,
    /// Its new name, unique within the workflow.
    pub name: Option<String>,
    /// Display colour; an empty string clears it.
    pub color: Option<String>,
    /// Step prompt; an empty string clears it.
    pub prompt: Option<String>,
    /// Make this the step new tasks start in.
    pub is_start_step: Option<bool>,
    /// Let people drag tasks into the step by hand.
    pub allow_manual_move: Option<bool>,
    /// List the step in the command panel.
    pub show_in_command_panel: Option<bool>,
    /// Archive tasks after this many hours in the step.
    pub auto_archive_after_hours: Option<f64>,
    /// Advance only once the agent signals it is done.
    pub auto_advance_requires_signal: Option<bool>,
    /// Treat cancelling as the end of the agent's turn.
    pub cancel_triggers_turn_complete: Option<bool>,
    /// At most this many tasks in the step (a whole number).
    #[serde(default, deserialize_with = "crate::tools::numbers::wip_limit")]
    #[schemars(range(min = 0, max = crate::tools::numbers::MAX_COUNT))]
    pub wip_limit: Option<u64>,
    /// A step of the same workflow to pull tasks from; an empty string clears it.
    pub pull_from_step_id: Option<String>,
    /// Event hooks of the step, replacing the stored ones.
    pub events: Option<Object>,
}

/// The workflow step to delete.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteWorkflowStep {
    /// The step's ID; no task may be on it.
    pub step_id: String,
}

/// A new column order.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReorderWorkflowSteps {
    /// The workflow to reorder.
    pub workflow_id: String,
    /// Every step ID of the workflow, each once, in the new order.
    pub step_ids: Vec<Value>,
}

// ---------------------------------------------------------------------------
// The portable workflow document
// ---------------------------------------------------------------------------

/// What export_workflow_kandev returns and import_workflow_kandev reads.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkflowDocument {
    workflows: Vec<ExportedWorkflow>,
}

/// One workflow, without IDs.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedWorkflow {
    name: String,
    #[serde(default)]
    description: String,
    /// In column order.
    #[serde(default)]
    steps: Vec<ExportedStep>,
}

/// One step, without IDs: the step it pulls from is named instead.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedStep {
    name: String,
    #[serde(default)]
    settings: Object,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pull_from_step: Option<String>,
}

/// A century of hours: the longest archive delay worth storing.
const MAX_ARCHIVE_HOURS: f64 = 876_600.0;

/// The settings key naming the step a step pulls tasks from.
const PULL_FROM: &str = "pull_from_step_id";

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The step IDs of a workflow, in column order.
fn step_order(board: &Board, workflow_id: &str) -> Vec<String> {
    board
        .steps_of(workflow_id)
        .iter()
        .map(|step| step.id.clone())
        .collect()
}

/// Sets each step's position to its index in `order`.
fn renumber(board: &mut Board, order: &[String]) {
    for (position, id) in order.iter().enumerate() {
        if let Some(step) = board.steps.get_mut(id) {
            step.position = position as u32;
        }
    }
}

/// Refuses `name` when another workflow of the workspace has it.
fn check_workflow_name(
    board: &Board,
    workspace_id: &str,
    name: &str,
    except: Option<&str>,
) -> Result<(), BadField> {
    let taken = board.workflows.values().any(|workflow| {
        workflow.workspace_id == workspace_id
            && workflow.name == name
            && Some(workflow.id.as_str()) != except
    });
    if taken {
        Err(BadField::new(
            "name",
            format!("workspace `{workspace_id}` already has a workflow named `{name}`"),
        ))
    } else {
        Ok(())
    }
}

/// Refuses `name` when another step of the workflow has it.
fn check_step_name(
    board: &Board,
    workflow_id: &str,
    name: &str,
    except: Option<&str>,
) -> Result<(), BadField> {
    let taken = board.steps.values().any(|step| {
        step.workflow_id == workflow_id && step.name == name && Some(step.id.as_str()) != except
    });
    if taken {
        Err(BadField::new(
            "name",
            format!("workflow `{workflow_id}` already has a step named `{name}`"),
        ))
    } else {
        Ok(())
    }
}

/// The behaviour settings a step tool may set; `None` leaves one as it is.
#[derive(Default)]
struct StepSettings {
    color: Option<String>,
    prompt: Option<String>,
    is_start_step: Option<bool>,
    allow_manual_move: Option<bool>,
    show_in_command_panel: Option<bool>,
    auto_archive_after_hours: Option<f64>,
    auto_advance_requires_signal: Option<bool>,
    cancel_triggers_turn_complete: Option<bool>,
    wip_limit: Option<u64>,
    pull_from_step_id: Option<String>,
    events: Option<Object>,
}

impl StepSettings {
    /// Checks the settings for step `step_id` (not yet created when `None`)
    /// of `workflow_id`, and returns them as a patch where `null` removes a key.
    fn patch(
        self,
        board: &Board,
        workflow_id: &str,
        step_id: Option<&str>,
    ) -> Result<Object, BadField> {
        let mut patch = Object::new();
        let text = |value: String| unless_blank(value).map_or(Value::Null, Value::String);
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                patch.insert(key.to_owned(), value);
            }
        };
        if let Some(color) = &self.color {
            check_name("color", color)?;
        }
        if let Some(prompt) = &self.prompt {
            check_text("prompt", prompt)?;
        }
        if let Some(events) = &self.events {
            check_document("events", events)?;
        }
        put("color", self.color.map(text));
        put("prompt", self.prompt.map(text));
        put("is_start_step", self.is_start_step.map(Value::Bool));
        put("allow_manual_move", self.allow_manual_move.map(Value::Bool));
        put(
            "show_in_command_panel",
            self.show_in_command_panel.map(Value::Bool),
        );
        let hours = match self.auto_archive_after_hours {
            Some(hours) if !(0.0..=MAX_ARCHIVE_HOURS).contains(&hours) => {
                return Err(BadField::new(
                    "auto_archive_after_hours",
                    format!("expected a number of hours from 0 to {MAX_ARCHIVE_HOURS}"),
                ));
            }
            hours => hours.map(|hours| json!(hours)),
        };
        put("auto_archive_after_hours", hours);
        put(
            "auto_advance_requires_signal",
            self.auto_advance_requires_signal.map(Value::Bool),
        );
        put(
            "cancel_triggers_turn_complete",
            self.cancel_triggers_turn_complete.map(Value::Bool),
        );
        put("wip_limit", self.wip_limit.map(Value::from));
        // A blank ID clears the key; an absent one leaves it.
        let pull_from = match self.pull_from_step_id.map(|id| id.trim().to_owned()) {
            None => None,
            Some(source) if source.is_empty() => Some(Value::Null),
            Some(source) => {
                if board.step(PULL_FROM, &source)?.workflow_id != workflow_id {
                    return Err(BadField::new(
                        PULL_FROM,
                        format!("step `{source}` is not in workflow `{workflow_id}`"),
                    ));
                }
                if Some(source.as_str()) == step_id {
                    return Err(BadField::new(PULL_FROM, "a step cannot pull from itself"));
                }
                Some(Value::String(source))
            }
        };
        put(PULL_FROM, pull_from);
        put("events", self.events.map(Value::Object));
        Ok(patch)
    }
}

/// Merges a settings patch into a step; a start step demotes its siblings.
fn apply_settings(board: &mut Board, workflow_id: &str, step_id: &str, patch: Object) {
    if patch.get("is_start_step") == Some(&Value::Bool(true)) {
        for step in board
            .steps
            .values_mut()
            .filter(|step| step.workflow_id == workflow_id && step.id != step_id)
        {
            if let Some(flag) = step.settings.get_mut("is_start_step") {
                *flag = Value::Bool(false);
            }
        }
    }
    if let Some(step) = board.steps.get_mut(step_id) {
        for (key, value) in patch {
            if value.is_null() {
                step.settings.remove(&key);
            } else {
                step.settings.insert(key, value);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Workflows and steps
// ---------------------------------------------------------------------------

fn create_workflow(board: &mut Board, args: CreateWorkflow) -> Result<Value, BadField> {
    board.workspace("workspace_id", &args.workspace_id)?;
    let name = required_text("name", args.name)?;
    if let Some(description) = &args.description {
        check_text("description", description)?;
    }
    check_workflow_name(board, &args.workspace_id, &name, None)?;
    board.make_room("name", 1)?;
    let id = board.next_id("workflow");
    let workflow = Workflow {
        id: id.clone(),
        workspace_id: args.workspace_id,
        name,
        description: args.description.unwrap_or_default(),
    };
    board.workflows.insert(id, workflow.clone());
    Ok(json!({ "workflow": workflow }))
}

fn update_workflow(board: &mut Board, args: UpdateWorkflow) -> Result<Value, BadField> {
    let workspace_id = board
        .workflow("workflow_id", &args.workflow_id)?
        .workspace_id
        .clone();
    let name = args
        .name
        .map(|name| required_text("name", name))
        .transpose()?;
    if let Some(name) = &name {
        check_workflow_name(board, &workspace_id, name, Some(&args.workflow_id))?;
    }
    if let Some(description) = &args.description {
        check_text("description", description)?;
    }
    let workflow = board
        .workflows
        .get_mut(&args.workflow_id)
        .ok_or_else(|| BadField::missing("workflow_id", "workflow", &args.workflow_id))?;
    if let Some(name) = name {
        workflow.name = name;
    }
    if let Some(description) = args.description {
        workflow.description = description;
    }
    Ok(json!({ "workflow": workflow }))
}

fn delete_workflow(board: &mut Board, args: DeleteWorkflow) -> Result<Value, BadField> {
    board.workflow("workflow_id", &args.workflow_id)?;
    let tasks = board
        .tasks
        .values()
        .filter(|task| task.workflow_id == args.workflow_id)
        .count();
    if tasks > 0 {
        return Err(BadField::new(
            "workflow_id",
            format!(
                "workflow `{}` still holds {tasks} task(s); move or delete them first",
                args.workflow_id
            ),
        ));
    }
    let steps = step_order(board, &args.workflow_id);
    board
        .steps
        .retain(|_, step| step.workflow_id != args.workflow_id);
    board.workflows.remove(&args.workflow_id);
    Ok(json!({ "deleted": args.workflow_id, "deleted_steps": steps }))
}

fn export_workflow(board: &Board, args: ExportWorkflow) -> Result<WorkflowDocument, BadField> {
    let workflow = board.workflow("workflow_id", &args.workflow_id)?;
    let steps = board
        .steps_of(&workflow.id)
        .into_iter()
        .map(|step| {
            let mut settings = step.settings.clone();
            let pull_from_step = settings
                .remove(PULL_FROM)
                .and_then(|source| board.steps.get(source.as_str()?))
                .map(|source| source.name.clone());
            ExportedStep {
                name: step.name.clone(),
                settings,
                pull_from_step,
            }
        })
        .collect();
    Ok(WorkflowDocument {
        workflows: vec![ExportedWorkflow {
            name: workflow.name.clone(),
            description: workflow.description.clone(),
            steps,
        }],
    })
}

/// Reads an export: `{"workflows": [...]}`, or a single workflow object.
fn parse_document(document: &str) -> Result<Vec<ExportedWorkflow>, BadField> {
    if document.len() > MAX_DOCUMENT_BYTES {
        return Err(BadField::new(
            "document",
            format!(
                "{} bytes; one call imports at most {MAX_DOCUMENT_BYTES}",
                document.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(document)
        .map_err(|err| BadField::new("document", format!("not JSON: {err}")))?;
    let workflows = if value.get("workflows").is_some() {
        serde_json::from_value::<WorkflowDocument>(value).map(|document| document.workflows)
    } else {
        serde_json::from_value::<ExportedWorkflow>(value).map(|workflow| vec![workflow])
    }
    .map_err(|err| BadField::new("document", format!("not a workflow export: {err}")))?;
    if workflows.is_empty() {
        return Err(BadField::new("document", "the document holds no workflows"));
    }
    check_items("document", workflows.len())?;
    for workflow in &workflows {
        if workflow.name.trim().is_empty() {
            return Err(BadField::new("document", "a workflow has no name"));
        }
        check_name("document", &workflow.name)?;
        check_text("document", &workflow.description)?;
        check_items("document", workflow.steps.len())?;
        for step in &workflow.steps {
            check_name("document", &step.name)?;
        }
        let mut names = BTreeSet::new();
        for step in &workflow.steps {
            let name = step.name.trim();
            if name.is_empty() {
                return Err(BadField::new(
                    "document",
                    format!("a step of workflow `{}` has no name", workflow.name),
                ));
            }
            if !names.insert(name) {
                return Err(BadField::new(
                    "document",
                    format!("workflow `{}` has two steps named `{name}`", workflow.name),
                ));
            }
        }
        for step in &workflow.steps {
            if let Some(source) = &step.pull_from_step
                && !names.contains(source.trim())
            {
                return Err(BadField::new(
                    "document",
                    format!(
                        "step `{}` pulls from `{source}`, which workflow `{}` does not have",
                        step.name, workflow.name
                    ),
                ));
            }
        }
    }
    Ok(workflows)
}

fn import_workflows(board: &mut Board, args: ImportWorkflow) -> Result<Value, BadField> {
    board.workspace("workspace_id", &args.workspace_id)?;
    let workflows = parse_document(&args.document)?;
    let records = workflows
        .iter()
        .map(|workflow| 1 + workflow.steps.len())
        .sum();
    board.make_room("document", records)?;
    let mut present: BTreeSet<String> = board
        .workflows
        .values()
        .filter(|workflow| workflow.workspace_id == args.workspace_id)
        .map(|workflow| workflow.name.clone())
        .collect();
    let (mut imported, mut skipped) = (Vec::new(), Vec::new());
    for workflow in workflows {
        let name = workflow.name.trim().to_owned();
        if !present.insert(name.clone()) {
            skipped.push(name);
            continue;
        }
        let id = board.next_id("workflow");
        board.workflows.insert(
            id.clone(),
            Workflow {
                id: id.clone(),
                workspace_id: args.workspace_id.clone(),
                name: name.clone(),
                description: workflow.description,
            },
        );
        let mut ids_by_name = BTreeMap::new();
        let mut pulls = Vec::new();
        let step_count = workflow.steps.len();
        for (position, step) in workflow.steps.into_iter().enumerate() {
            let step_id = board.next_id("step");
            let step_name = step.name.trim().to_owned();
            let mut settings = step.settings;
            // IDs from another board mean nothing here.
            settings.remove(PULL_FROM);
            if let Some(source) = step.pull_from_step {
                pulls.push((step_id.clone(), source.trim().to_owned()));
            }
            ids_by_name.insert(step_name.clone(), step_id.clone());
            board.steps.insert(
                step_id.clone(),
                WorkflowStep {
                    id: step_id,
                    workflow_id: id.clone(),
                    name: step_name,
                    position: position as u32,
                    settings,
                },
            );
        }
        for (step_id, source) in pulls {
            if let (Some(step), Some(source)) =
                (board.steps.get_mut(&step_id), ids_by_name.get(&source))
            {
                step.settings
                    .insert(PULL_FROM.to_owned(), Value::String(source.clone()));
            }
        }
        imported.push(json!({ "workflow_id": id, "name": name, "steps": step_count }));
    }
    Ok(json!({ "imported": imported, "skipped": skipped }))
}

fn create_workflow_step(board: &mut Board, args: CreateWorkflowStep) -> Result<Value, BadField> {
    board.workflow("workflow_id", &args.workflow_id)?;
    let name = required_text("name", args.name)?;
    check_step_name(board, &args.workflow_id, &name, None)?;
    board.make_room("name", 1)?;
    let mut order = step_order(board, &args.workflow_id);
    let index = match args.position {
        Some(position) => usize::try_from(position)
            .unwrap_or(usize::MAX)
            .min(order.len()),
        None => order.len(),
    };
    let patch = StepSettings {
        color: args.color,
        prompt: args.prompt,
        is_start_step: args.is_start_step,
        allow_manual_move: args.allow_manual_move,
        show_in_command_panel: args.show_in_command_panel,
        auto_advance_requires_signal: args.auto_advance_requires_signal,
        cancel_triggers_turn_complete: args.cancel_triggers_turn_complete,
        wip_limit: args.wip_limit,
        pull_from_step_id: args.pull_from_step_id,
        events: args.events,
        ..StepSettings::default()
    }
    .patch(board, &args.workflow_id, None)?;
    let id = board.next_id("step");
    board.steps.insert(
        id.clone(),
        WorkflowStep {
            id: id.clone(),
            workflow_id: args.workflow_id.clone(),
            name,
            position: 0,
            settings: Object::new(),
        },
    );
    apply_settings(board, &args.workflow_id, &id, patch);
    order.insert(index, id.clone());
    renumber(board, &order);
    Ok(json!({ "step": board.steps.get(&id) }))
}

fn update_workflow_step(board: &mut Board, args: UpdateWorkflowStep) -> Result<Value, BadField> {
    let workflow_id = board.step("step_id", &args.step_id)?.workflow_id.clone();
    let name = args
        .name
        .map(|name| required_text("name", name))
        .transpose()?;
    if let Some(name) = &name {
        check_step_name(board, &workflow_id, name, Some(&args.step_id))?;
    }
    let patch = StepSettings {
        color: args.color,
        prompt: args.prompt,
        is_start_step: args.is_start_step,
        allow_manual_move: args.allow_manual_move,
        show_in_command_panel: args.show_in_command_panel,
        auto_archive_after_hours: args.auto_archive_after_hours,
        auto_advance_requires_signal: args.auto_advance_requires_signal,
        cancel_triggers_turn_complete: args.cancel_triggers_turn_complete,
        wip_limit: args.wip_limit,
        pull_from_step_id: args.pull_from_step_id,
        events: args.events,
    }
    .patch(board, &workflow_id, Some(&args.step_id))?;
    apply_settings(board, &workflow_id, &args.step_id, patch);
    let step = board
        .steps
        .get_mut(&args.step_id)
        .ok_or_else(|| BadField::missing("step_id", "workflow step", &args.step_id))?;
    if let Some(name) = name {
        step.name = name;
    }
    Ok(json!({ "step": step }))
}

fn delete_workflow_step(board: &mut Board, args: DeleteWorkflowStep) -> Result<Value, BadField> {
    let workflow_id = board.step("step_id", &args.step_id)?.workflow_id.clone();
    let tasks = board
        .tasks
        .values()
        .filter(|task| task.workflow_step_id == args.step_id)
        .count();
    if tasks > 0 {
        return Err(BadField::new(
            "step_id",
            format!(
                "step `{}` still holds {tasks} task(s); move them first",
                args.step_id
            ),
        ));
    }
    board.steps.remove(&args.step_id);
    for step in board.steps.values_mut() {
        if step.settings.get(PULL_FROM).and_then(Value::as_str) == Some(args.step_id.as_str()) {
            step.settings.remove(PULL_FROM);
        }
    }
    let order = step_order(board, &workflow_id);
    renumber(board, &order);
    Ok(json!({ "deleted": args.step_id, "workflow_id": workflow_id }))
}

fn reorder_workflow_steps(
    board: &mut Board,
    args: ReorderWorkflowSteps,
) -> Result<Value, BadField> {
    board.workflow("workflow_id", &args.workflow_id)?;
    let current: BTreeSet<String> = step_order(board, &args.workflow_id).into_iter().collect();
    let mut order = Vec::with_capacity(args.step_ids.len());
    let mut seen = BTreeSet::new();
    for value in args.step_ids {
        let Value::String(id) = value else {
            return Err(BadField::new(
                "step_ids",
                format!("`{value}` is not a step ID string"),
            ));
        };
        if !current.contains(&id) {
            return Err(BadField::new(
                "step_ids",
                format!("`{id}` is not a step of workflow `{}`", args.workflow_id),
            ));
        }
        if !seen.insert(id.clone()) {
            return Err(BadField::new("step_ids", format!("`{id}` is listed twice")));
        }
        order.push(id);
    }
    let left_out: Vec<&str> = current
        .iter()
        .filter(|id| !seen.contains(*id))
        .map(String::as_str)
        .collect();
    if !left_out.is_empty() {
        return Err(BadField::new(
            "step_ids",
            format!(
                "list every step of the workflow; missing: {}",
                left_out.join(", ")
            ),
        ));
    }
    renumber(board, &order);
    Ok(json!({ "steps": board.steps_of(&args.workflow_id) }))
}

// ---------------------------------------------------------------------------
// The tool group
// ---------------------------------------------------------------------------

#[tool_group(name = "configuration-workflows", surfaces = ["configuration", "external"])]
impl Kandev {
    #[tool(
        name = "list_workspaces_kandev",
        description = "List all workspaces with their IDs.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_workspaces(&self) -> ToolResult {
        ok(self.list_workspaces())
    }

    #[tool(
        name = "list_workflows_kandev",
        description = "List the workflows of a workspace.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_workflows(
        &self,
        Parameters(args): Parameters<WorkspaceRef>,
    ) -> ToolResult {
        respond(self.list_workflows(args))
    }

    #[tool(
        name = "list_repositories_kandev",
        description = "List a workspace's repositories and their default branches.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_repositories(
        &self,
        Parameters(args): Parameters<WorkspaceRef>,
    ) -> ToolResult {
        respond(self.list_repositories(args))
    }

    #[tool(
        name = "create_workflow_kandev",
        description = "Create a workflow in a workspace under a new name.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_create_workflow(
        &self,
        Parameters(args): Parameters<CreateWorkflow>,
    ) -> ToolResult {
        self.on_board(|board| create_workflow(board, args))
    }

    #[tool(
        name = "update_workflow_kandev",
        description = "Change a workflow's name or description.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_workflow(
        &self,
        Parameters(args): Parameters<UpdateWorkflow>,
    ) -> ToolResult {
        self.on_board(|board| update_workflow(board, args))
    }

    #[tool(
        name = "delete_workflow_kandev",
        description = "Permanently delete an empty workflow and all of its steps.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_delete_workflow(
        &self,
        Parameters(args): Parameters<DeleteWorkflow>,
    ) -> ToolResult {
        self.on_board(|board| delete_workflow(board, args))
    }

    #[tool(
        name = "import_workflow_kandev",
        description = "Create workflows in a workspace from an exported JSON document; names that already exist are skipped.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_import_workflow(
        &self,
        Parameters(args): Parameters<ImportWorkflow>,
    ) -> ToolResult {
        self.on_board(|board| import_workflows(board, args))
    }

    #[tool(
        name = "export_workflow_kandev",
        description = "Export a workflow and its steps as an ID-free JSON document that import_workflow_kandev accepts.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_export_workflow(
        &self,
        Parameters(args): Parameters<ExportWorkflow>,
    ) -> ToolResult {
        respond(export_workflow(&self.store.lock(), args))
    }

    #[tool(
        name = "list_workflow_steps_kandev",
        description = "List a workflow's steps (board columns) in order.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_workflow_steps(
        &self,
        Parameters(args): Parameters<WorkflowRef>,
    ) -> ToolResult {
        respond(self.list_workflow_steps(args))
    }

    #[tool(
        name = "create_workflow_step_kandev",
        description = "Add a column to a workflow, optionally at a position and with behaviour settings.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn config_create_workflow_step(
        &self,
        Parameters(args): Parameters<CreateWorkflowStep>,
    ) -> ToolResult {
        self.on_board(|board| create_workflow_step(board, args))
    }

    #[tool(
        name = "update_workflow_step_kandev",
        description = "Change a workflow step's name or behaviour settings.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_workflow_step(
        &self,
        Parameters(args): Parameters<UpdateWorkflowStep>,
    ) -> ToolResult {
        self.on_board(|board| update_workflow_step(board, args))
    }

    #[tool(
        name = "delete_workflow_step_kandev",
        description = "Permanently delete a workflow step that holds no tasks.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_delete_workflow_step(
        &self,
        Parameters(args): Parameters<DeleteWorkflowStep>,
    ) -> ToolResult {
        self.on_board(|board| delete_workflow_step(board, args))
    }

    #[tool(
        name = "reorder_workflow_steps_kandev",
        description = "Reorder a workflow's columns; list every one of its step IDs exactly once.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_reorder_workflow_steps(
        &self,
        Parameters(args): Parameters<ReorderWorkflowSteps>,
    ) -> ToolResult {
        self.on_board(|board| reorder_workflow_steps(board, args))
    }
}
