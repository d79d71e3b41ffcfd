//! Moving a task to a workflow step, with one-shot entry overrides:
//! `move_task_kandev` of `kanban-task` and of `configuration-tasks`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::server::Kandev;
use crate::store::{BadField, Board, Message, Object, check_text};

/// Where the task's launch settings keep the entry overrides of its latest
/// move until the step's agent picks them up (Kandev's pending-move marker).
pub(crate) const PENDING_ENTRY: &str = "pending_entry_options";

/// One-shot overrides for the task's entry into the target step.
#[derive(Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryOptions {
    /// Start the step's agent with a fresh context, on top of the step's own reset.
    pub reset_context: Option<bool>,
    /// Instructions delivered once with this entry, after the step's prompt.
    pub instructions: Option<String>,
    /// Leave out the step's own prompt for this entry only.
    pub skip_step_prompt: Option<bool>,
}

/// Where to move a task.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveTask {
    /// The task to move.
    pub task_id: String,
    /// The workflow it moves into.
    pub workflow_id: String,
    /// The step (column) it moves to.
    pub workflow_step_id: String,
    /// Its position within the step.
    #[serde(default, deserialize_with = "super::numbers::position")]
    #[schemars(range(min = 0, max = super::numbers::MAX_COUNT))]
    pub position: Option<u64>,
    /// Legacy alias for `entry_options.instructions`; send one, not both.
    pub prompt: Option<String>,
    /// One-shot overrides for the task's entry into the step.
    pub entry_options: Option<EntryOptions>,
}

/// The entry overrides a move asks for, `prompt` folded into
/// `instructions`, blank instructions and unset switches left out. An
/// error when both `prompt` and `entry_options.instructions` are given.
fn entry_overrides(
    prompt: Option<String>,
    options: Option<EntryOptions>,
) -> Result<Object, BadField> {
    let options = options.unwrap_or_default();
    let (field, instructions) = match (prompt, options.instructions) {
        (Some(_), Some(_)) => {
            return Err(BadField::new(
                "prompt",
                "`prompt` is a legacy alias for `entry_options.instructions`; \
                 send one of them, not both",
            ));
        }
        (Some(prompt), None) => ("prompt", Some(prompt)),
        (None, instructions) => ("entry_options.instructions", instructions),
    };
    let mut overrides = Object::new();
    if let Some(instructions) = instructions.map(|text| text.trim().to_owned())
        && !instructions.is_empty()
    {
        check_text(field, &instructions)?;
        overrides.insert("instructions".into(), Value::String(instructions));
    }
    for (key, switch) in [
        ("reset_context", options.reset_context),
        ("skip_step_prompt", options.skip_step_prompt),
    ] {
        if switch == Some(true) {
            overrides.insert(key.into(), Value::Bool(true));
        }
    }
    Ok(overrides)
}

impl Kandev {
    /// Moves the task and records its entry overrides: the instructions as
    /// a hand-off message for the step's agent, all of them as the task's
    /// pending entry (a destination-only move clears an earlier one).
    pub(crate) fn move_task(&self, board: &mut Board, args: MoveTask) -> Result<Value, BadField> {
        let given_as = if args.prompt.is_some() {
            "prompt"
        } else {
            "entry_options"
        };
        let overrides = entry_overrides(args.prompt, args.entry_options)?;
        let instructions = overrides
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if instructions.is_some() {
            board.make_room(given_as, 1)?;
        }
        board.workflow("workflow_id", &args.workflow_id)?;
        if board
            .step("workflow_step_id", &args.workflow_step_id)?
            .workflow_id
            != args.workflow_id
        {
            return Err(BadField::new(
                "workflow_step_id",
                format!(
                    "step `{}` is not in workflow `{}`",
                    args.workflow_step_id, args.workflow_id
                ),
            ));
        }
        // In range by the argument's deserializer.
        let position = args
            .position
            .map_or(0, |p| u32::try_from(p).unwrap_or(u32::MAX));
        let task = board.task_mut("task_id", &args.task_id)?;
        task.workflow_id = args.workflow_id;
        task.workflow_step_id = args.workflow_step_id;
        task.position = position;
        if overrides.is_empty() {
            task.launch.remove(PENDING_ENTRY);
        } else {
            task.launch
                .insert(PENDING_ENTRY.into(), Value::Object(overrides.clone()));
        }
        let task = task.clone();
        if let Some(text) = instructions {
            let sequence = board.next_sequence();
            let id = board.next_id("message");
            board.messages.push(Message {
                id,
                task_id: task.id.clone(),
                session_id: String::new(),
                kind: "handoff".into(),
                text,
                delivery_mode: "queued".into(),
                reply_to_question_id: None,
                sequence,
            });
        }
        Ok(json!({ "task": task, "entry_options": overrides }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(instructions: Option<&str>, reset: Option<bool>) -> Option<EntryOptions> {
        Some(EntryOptions {
            reset_context: reset,
            instructions: instructions.map(str::to_owned),
            skip_step_prompt: None,
        })
    }

    #[test]
    fn prompt_is_an_alias_for_the_instructions() {
        let overrides = entry_overrides(Some(" Review it. ".into()), None).unwrap();
        assert_eq!(
            Value::Object(overrides),
            json!({ "instructions": "Review it." })
        );
    }

    #[test]
    fn prompt_and_instructions_together_are_refused_naming_both() {
        let error = entry_overrides(Some("a".into()), options(Some("b"), None)).unwrap_err();
        assert_eq!(error.field, "prompt");
        assert!(
            error.message.contains("entry_options.instructions"),
            "{error}"
        );
    }

    #[test]
    fn blank_instructions_and_false_switches_are_left_out() {
        let overrides = entry_overrides(None, options(Some("  "), Some(false))).unwrap();
        assert!(overrides.is_empty());
        let overrides = entry_overrides(None, options(None, Some(true))).unwrap();
        assert_eq!(Value::Object(overrides), json!({ "reset_context": true }));
    }

    #[test]
    fn bad_instructions_name_the_field_they_came_from() {
        let error = entry_overrides(None, options(Some("a\u{202E}b"), None)).unwrap_err();
        assert_eq!(error.field, "entry_options.instructions");
        let error = entry_overrides(Some("a\u{0}b".into()), None).unwrap_err();
        assert_eq!(error.field, "prompt");
    }
}
