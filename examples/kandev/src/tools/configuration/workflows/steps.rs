//! The steps (board columns) of a workflow: adding, changing, deleting and
//! reordering them, with their behaviour settings, their own agent profile
//! and the session their work goes to.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::session::{
    AGENT_PROFILE, Place, SESSION_TARGET, SessionEndPolicy, SessionStartPolicy, SessionTarget,
    present, session_target, session_target_schema, target_step,
};
use super::{renumber, step_order};
use crate::store::{BadField, Board, Object, WorkflowStep, check_document, check_name, check_text};
use crate::tools::configuration::{required_text, unless_blank};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

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
    /// An agent profile of the step's own, used while a task is in it.
    pub agent_profile_id: Option<String>,
    /// After a switch to this step's profile: `reuse` the task's session or start a `new` one.
    pub profile_session_start_policy: Option<SessionStartPolicy>,
    /// When a task leaves for another profile: `complete` this step's session or `park` it.
    pub profile_session_end_policy: Option<SessionEndPolicy>,
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
    /// Complete the task when it enters this step (meant for a final step).
    pub complete_task_on_enter: Option<bool>,
    /// At most this many tasks in the step (a whole number).
    #[serde(default, deserialize_with = "crate::tools::numbers::wip_limit")]
    #[schemars(range(min = 0, max = crate::tools::numbers::MAX_COUNT))]
    pub wip_limit: Option<u64>,
    /// A step of the same workflow to pull tasks from.
    pub pull_from_step_id: Option<String>,
    /// Which session the step's work goes to: `{"kind": "initial"}`, or
    /// `{"kind": "step", "step_id": ...}` naming an earlier step with an
    /// agent profile of its own; `null` clears it.
    #[serde(default, deserialize_with = "present")]
    #[schemars(schema_with = "session_target_schema")]
    pub session_target: Option<Option<SessionTarget>>,
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
    /// An agent profile of the step's own, used while a task is in it; an empty string clears it.
    pub agent_profile_id: Option<String>,
    /// After a switch to this step's profile: `reuse` the task's session or start a `new` one.
    pub profile_session_start_policy: Option<SessionStartPolicy>,
    /// When a task leaves for another profile: `complete` this step's session or `park` it.
    pub profile_session_end_policy: Option<SessionEndPolicy>,
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
    /// Complete the task when it enters this step (meant for a final step).
    pub complete_task_on_enter: Option<bool>,
    /// At most this many tasks in the step (a whole number).
    #[serde(default, deserialize_with = "crate::tools::numbers::wip_limit")]
    #[schemars(range(min = 0, max = crate::tools::numbers::MAX_COUNT))]
    pub wip_limit: Option<u64>,
    /// A step of the same workflow to pull tasks from; an empty string clears it.
    pub pull_from_step_id: Option<String>,
    /// Which session the step's work goes to: `{"kind": "initial"}`, or
    /// `{"kind": "step", "step_id": ...}` naming an earlier step with an
    /// agent profile of its own; `null` clears it.
    #[serde(default, deserialize_with = "present")]
    #[schemars(schema_with = "session_target_schema")]
    pub session_target: Option<Option<SessionTarget>>,
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
// Settings
// ---------------------------------------------------------------------------

/// A century of hours: the longest archive delay worth storing.
const MAX_ARCHIVE_HOURS: f64 = 876_600.0;

/// The settings key naming the step a step pulls tasks from.
pub(super) const PULL_FROM: &str = "pull_from_step_id";

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
    agent_profile_id: Option<String>,
    profile_session_start_policy: Option<SessionStartPolicy>,
    profile_session_end_policy: Option<SessionEndPolicy>,
    is_start_step: Option<bool>,
    allow_manual_move: Option<bool>,
    show_in_command_panel: Option<bool>,
    auto_archive_after_hours: Option<f64>,
    auto_advance_requires_signal: Option<bool>,
    cancel_triggers_turn_complete: Option<bool>,
    complete_task_on_enter: Option<bool>,
    wip_limit: Option<u64>,
    pull_from_step_id: Option<String>,
    session_target: Option<Option<SessionTarget>>,
    events: Option<Object>,
}

impl StepSettings {
    /// Checks the settings for the step at `place`, and returns them as a
    /// patch where `null` removes a key.
    fn patch(self, board: &Board, place: Place<'_>) -> Result<Object, BadField> {
        let Place {
            workflow_id,
            step_id,
            ..
        } = place;
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
        let profile = self.agent_profile_id.map(|id| id.trim().to_owned());
        if let Some(id) = profile.as_ref().filter(|id| !id.is_empty())
            && !board.agent_profiles.contains_key(id)
        {
            return Err(BadField::missing(AGENT_PROFILE, "agent profile", id));
        }
        put(AGENT_PROFILE, profile.map(text));
        put(
            "profile_session_start_policy",
            self.profile_session_start_policy
                .map(|policy| json!(policy)),
        );
        put(
            "profile_session_end_policy",
            self.profile_session_end_policy.map(|policy| json!(policy)),
        );
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
        put(
            "complete_task_on_enter",
            self.complete_task_on_enter.map(Value::Bool),
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
        let target = self
            .session_target
            .map(|target| session_target(board, place, target))
            .transpose()?;
        put(SESSION_TARGET, target);
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
// Steps
// ---------------------------------------------------------------------------

pub(super) fn create_workflow_step(
    board: &mut Board,
    args: CreateWorkflowStep,
) -> Result<Value, BadField> {
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
    let place = Place {
        workflow_id: &args.workflow_id,
        step_id: None,
        // Within u32: `order` lists the workflow's steps.
        index: index as u32,
    };
    let patch = StepSettings {
        color: args.color,
        prompt: args.prompt,
        agent_profile_id: args.agent_profile_id,
        profile_session_start_policy: args.profile_session_start_policy,
        profile_session_end_policy: args.profile_session_end_policy,
        is_start_step: args.is_start_step,
        allow_manual_move: args.allow_manual_move,
        show_in_command_panel: args.show_in_command_panel,
        auto_advance_requires_signal: args.auto_advance_requires_signal,
        cancel_triggers_turn_complete: args.cancel_triggers_turn_complete,
        complete_task_on_enter: args.complete_task_on_enter,
        wip_limit: args.wip_limit,
        pull_from_step_id: args.pull_from_step_id,
        session_target: args.session_target,
        events: args.events,
        ..StepSettings::default()
    }
    .patch(board, place)?;
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

pub(super) fn update_workflow_step(
    board: &mut Board,
    args: UpdateWorkflowStep,
) -> Result<Value, BadField> {
    let step = board.step("step_id", &args.step_id)?;
    let (workflow_id, index) = (step.workflow_id.clone(), step.position);
    let name = args
        .name
        .map(|name| required_text("name", name))
        .transpose()?;
    if let Some(name) = &name {
        check_step_name(board, &workflow_id, name, Some(&args.step_id))?;
    }
    let place = Place {
        workflow_id: &workflow_id,
        step_id: Some(&args.step_id),
        index,
    };
    let patch = StepSettings {
        color: args.color,
        prompt: args.prompt,
        agent_profile_id: args.agent_profile_id,
        profile_session_start_policy: args.profile_session_start_policy,
        profile_session_end_policy: args.profile_session_end_policy,
        is_start_step: args.is_start_step,
        allow_manual_move: args.allow_manual_move,
        show_in_command_panel: args.show_in_command_panel,
        auto_archive_after_hours: args.auto_archive_after_hours,
        auto_advance_requires_signal: args.auto_advance_requires_signal,
        cancel_triggers_turn_complete: args.cancel_triggers_turn_complete,
        complete_task_on_enter: args.complete_task_on_enter,
        wip_limit: args.wip_limit,
        pull_from_step_id: args.pull_from_step_id,
        session_target: args.session_target,
        events: args.events,
    }
    .patch(board, place)?;
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

pub(super) fn delete_workflow_step(
    board: &mut Board,
    args: DeleteWorkflowStep,
) -> Result<Value, BadField> {
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
    // No step may go on naming it.
    let deleted = Some(args.step_id.as_str());
    for step in board.steps.values_mut() {
        if step.settings.get(PULL_FROM).and_then(Value::as_str) == deleted {
            step.settings.remove(PULL_FROM);
        }
        if target_step(&step.settings) == deleted {
            step.settings.remove(SESSION_TARGET);
        }
    }
    let order = step_order(board, &workflow_id);
    renumber(board, &order);
    Ok(json!({ "deleted": args.step_id, "workflow_id": workflow_id }))
}

pub(super) fn reorder_workflow_steps(
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

#[cfg(test)]
#[path = "steps_tests.rs"]
mod tests;
