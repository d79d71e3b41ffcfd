//! The coordinator's proposals: each call files one `pending` record for a
//! workspace manager to decide and changes nothing else on the board. A
//! message, move or resume proposal for a task that already has an open one
//! of the same kind answers that one (`"deduplicated": true`), as Kandev's
//! do.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::store::{
    BadField, Board, Evidence, Proposal, ProposalSpec, ProposalStatus, Task, Trigger, check_name,
    check_text,
};
use crate::tools::kanban::latest_session;

/// The longest proposal or improvement title, in characters after trimming.
pub(super) const MAX_TITLE_CHARS: usize = 60;

/// The longest description or rationale, in characters.
pub(super) const MAX_REASON_CHARS: usize = 10_000;

/// The longest message text or replacement context, in characters.
pub(super) const MAX_MESSAGE_CHARS: usize = 4_000;

/// The most standing orders one proposal cites.
pub(super) const MAX_STANDING_ORDERS: usize = 5;

/// The most evidence references one improvement gives.
pub(super) const MAX_EVIDENCE: usize = 10;

/// A task for a manager to approve.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeTask {
    /// The task's title, 1 to 60 characters after trimming.
    pub title: String,
    /// The task's description, at most 10,000 characters.
    pub description: String,
    /// Why the task is proposed, at most 10,000 characters.
    pub rationale: String,
    /// The workflow the task would be created in.
    pub workflow_id: String,
    /// The step it would start in; the workflow's start step by default.
    pub step_id: Option<String>,
    /// A repository of the workflow's workspace for the task to target.
    pub repository_id: Option<String>,
    /// An existing task of the workspace this proposal came from.
    pub source_task_id: Option<String>,
    /// A returned proposal of yours that this one revises.
    pub in_reply_to: Option<String>,
    /// The standing orders behind it: at most 5, each once.
    pub standing_order_ids: Option<Vec<String>>,
}

/// A message for a task's agent, for a manager to approve.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeMessage {
    /// The task whose agent would receive the message.
    pub task_id: String,
    /// The message, 1 to 4,000 characters after trimming.
    pub text: String,
    /// Why it should be sent, at most 10,000 characters.
    pub rationale: Option<String>,
    /// The standing orders behind it: at most 5, each once.
    pub standing_order_ids: Option<Vec<String>>,
}

/// A move of a task to another step, for a manager to approve.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeMove {
    /// The task to move.
    pub task_id: String,
    /// The destination: another step of the task's workflow.
    pub step_id: String,
    /// Why the task should move, at most 10,000 characters.
    pub rationale: Option<String>,
    /// The standing orders behind it: at most 5, each once.
    pub standing_order_ids: Option<Vec<String>>,
}

/// Resuming a task's stopped session, for a manager to approve.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeResume {
    /// The task whose most recent session, now stopped, would be resumed.
    pub task_id: String,
    /// Why it should resume, at most 10,000 characters.
    pub rationale: Option<String>,
    /// The standing orders behind it: at most 5, each once.
    pub standing_order_ids: Option<Vec<String>>,
}

/// One reference backing an improvement: exactly one of the two fields.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvidenceRef {
    /// One of your unattended turns (see list_coordinator_turns_kandev).
    pub run_id: Option<String>,
    /// A task on the board.
    pub task_id: Option<String>,
}

/// Replacement context text for this coordinator, for a person to review.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeImprovement {
    /// A short title, 1 to 60 characters after trimming.
    pub title: String,
    /// Why the change helps, 1 to 10,000 characters.
    pub rationale: String,
    /// The full replacement context text, 1 to 4,000 characters.
    pub context: String,
    /// 1 to 10 references, at least one of them a run.
    pub evidence: Vec<EvidenceRef>,
}

/// `value` trimmed, refused when longer than `max` characters, when it
/// holds what text may not, or (if `required`) when nothing is left.
fn bounded(
    field: &'static str,
    value: &str,
    max: usize,
    required: bool,
) -> Result<String, BadField> {
    let value = value.trim();
    if required && value.is_empty() {
        return Err(BadField::new(field, "the value is empty"));
    }
    let count = value.chars().count();
    if count > max {
        return Err(BadField::new(
            field,
            format!("{count} characters; at most {max}"),
        ));
    }
    check_text(field, value)?;
    Ok(value.to_owned())
}

/// A proposal title: one line of 1 to [`MAX_TITLE_CHARS`] characters.
fn title(value: &str) -> Result<String, BadField> {
    let title = bounded("title", value, MAX_TITLE_CHARS, true)?;
    check_name("title", &title)?;
    Ok(title)
}

/// An optional rationale; a blank one is none.
fn rationale_of(value: Option<String>) -> Result<Option<String>, BadField> {
    let Some(value) = value else { return Ok(None) };
    let value = bounded("rationale", &value, MAX_REASON_CHARS, false)?;
    Ok((!value.is_empty()).then_some(value))
}

/// Cited standing orders: at most [`MAX_STANDING_ORDERS`], none blank or
/// repeated. (The board keeps no standing orders to look them up in.)
fn standing_orders(ids: Option<Vec<String>>) -> Result<Vec<String>, BadField> {
    const FIELD: &str = "standing_order_ids";
    let ids = ids.unwrap_or_default();
    if ids.len() > MAX_STANDING_ORDERS {
        return Err(BadField::new(
            FIELD,
            format!("{} ids; at most {MAX_STANDING_ORDERS}", ids.len()),
        ));
    }
    let mut seen = BTreeSet::new();
    for id in &ids {
        if id.trim().is_empty() {
            return Err(BadField::new(FIELD, "an id is empty"));
        }
        check_name(FIELD, id)?;
        if !seen.insert(id) {
            return Err(BadField::new(FIELD, format!("`{id}` is listed twice")));
        }
    }
    Ok(ids)
}

/// A task a proposal may act on: on the board and not archived.
fn live_task<'a>(board: &'a Board, id: &str) -> Result<&'a Task, BadField> {
    let task = board.task("task_id", id)?;
    if task.archived {
        return Err(BadField::new("task_id", format!("task `{id}` is archived")));
    }
    Ok(task)
}

/// The answer for `proposal`.
fn answer(proposal: &Proposal, deduplicated: bool) -> Value {
    json!({ "proposal": proposal, "deduplicated": deduplicated })
}

/// `coordinator`'s pending proposal of `spec`'s kind on `spec`'s task, if
/// it has one: answered instead of filing another.
fn open_duplicate(board: &Board, coordinator: &str, spec: &ProposalSpec) -> Option<Value> {
    let task = spec.target_task()?;
    board
        .coordinator_proposals
        .values()
        .find(|open| {
            open.coordinator_id == coordinator
                && open.status == ProposalStatus::Pending
                && open.spec.kind() == spec.kind()
                && open.spec.target_task() == Some(task)
        })
        .map(|open| answer(open, true))
}

/// What every proposal carries besides its spec.
struct Filing<'a> {
    coordinator: &'a str,
    now: DateTime<Utc>,
    rationale: Option<String>,
    standing_order_ids: Vec<String>,
    /// The argument a full board is reported against.
    field: &'static str,
}

impl<'a> Filing<'a> {
    /// A message, move or resume proposal's: its optional rationale and
    /// standing orders checked; a full board is reported against `task_id`.
    fn on_task(
        coordinator: &'a str,
        now: DateTime<Utc>,
        rationale: Option<String>,
        standing_order_ids: Option<Vec<String>>,
    ) -> Result<Self, BadField> {
        Ok(Filing {
            coordinator,
            now,
            rationale: rationale_of(rationale)?,
            standing_order_ids: standing_orders(standing_order_ids)?,
            field: "task_id",
        })
    }
}

/// Stores `spec` as a new pending proposal, or answers the open duplicate.
fn file(board: &mut Board, filing: Filing<'_>, spec: ProposalSpec) -> Result<Value, BadField> {
    if let Some(open) = open_duplicate(board, filing.coordinator, &spec) {
        return Ok(open);
    }
    board.make_room(filing.field, 1)?;
    let id = board.next_id("proposal");
    let proposal = Proposal {
        id: id.clone(),
        coordinator_id: filing.coordinator.to_owned(),
        status: ProposalStatus::Pending,
        rationale: filing.rationale,
        standing_order_ids: filing.standing_order_ids,
        spec,
        reply: None,
        created_at: filing.now,
        sequence: board.next_sequence(),
    };
    let answered = answer(&proposal, false);
    board.coordinator_proposals.insert(id, proposal);
    Ok(answered)
}

/// The step new tasks of `workflow_id` start in: the one flagged
/// `is_start_step`, else the first.
fn start_step(board: &Board, workflow_id: &str) -> Option<String> {
    let steps = board.steps_of(workflow_id);
    let flagged = steps
        .iter()
        .find(|step| step.settings.get("is_start_step") == Some(&Value::Bool(true)));
    flagged.or(steps.first()).map(|step| step.id.clone())
}

/// Refuses `id` (of a `kind` in `workspace`) when it sits in another one.
fn in_workspace(
    field: &'static str,
    kind: &str,
    id: &str,
    actual: &str,
    workspace: &str,
) -> Result<(), BadField> {
    if actual != workspace {
        return Err(BadField::new(
            field,
            format!("{kind} `{id}` is in workspace `{actual}`, not the workflow's `{workspace}`"),
        ));
    }
    Ok(())
}

pub(super) fn propose_task(
    board: &mut Board,
    coordinator: &str,
    now: DateTime<Utc>,
    args: ProposeTask,
) -> Result<Value, BadField> {
    let title = title(&args.title)?;
    let description = bounded("description", &args.description, MAX_REASON_CHARS, false)?;
    let rationale = bounded("rationale", &args.rationale, MAX_REASON_CHARS, false)?;
    let workspace = board
        .workflow("workflow_id", &args.workflow_id)?
        .workspace_id
        .clone();
    let step_id = match args.step_id {
        Some(step) => {
            if board.step("step_id", &step)?.workflow_id != args.workflow_id {
                return Err(BadField::new(
                    "step_id",
                    format!("step `{step}` is not in workflow `{}`", args.workflow_id),
                ));
            }
            step
        }
        None => start_step(board, &args.workflow_id)
            .ok_or_else(|| BadField::new("workflow_id", "the workflow has no steps"))?,
    };
    if let Some(id) = &args.repository_id {
        let repository = board
            .repositories
            .get(id)
            .ok_or_else(|| BadField::missing("repository_id", "repository", id))?;
        in_workspace(
            "repository_id",
            "repository",
            id,
            &repository.workspace_id,
            &workspace,
        )?;
    }
    if let Some(id) = &args.source_task_id {
        let source = board.task("source_task_id", id)?;
        in_workspace(
            "source_task_id",
            "task",
            id,
            &source.workspace_id,
            &workspace,
        )?;
    }
    if let Some(id) = &args.in_reply_to {
        let revised = board.proposal_of("in_reply_to", coordinator, id)?;
        if revised.status != ProposalStatus::Returned {
            return Err(BadField::new(
                "in_reply_to",
                format!(
                    "proposal `{id}` is {}; only a returned one can be revised",
                    revised.status.as_str()
                ),
            ));
        }
    }
    let filing = Filing {
        coordinator,
        now,
        rationale: (!rationale.is_empty()).then_some(rationale),
        standing_order_ids: standing_orders(args.standing_order_ids)?,
        field: "title",
    };
    let spec = ProposalSpec::Task {
        title,
        description,
        workflow_id: args.workflow_id,
        step_id,
        repository_id: args.repository_id,
        source_task_id: args.source_task_id,
        in_reply_to: args.in_reply_to,
    };
    file(board, filing, spec)
}

pub(super) fn propose_message(
    board: &mut Board,
    coordinator: &str,
    now: DateTime<Utc>,
    args: ProposeMessage,
) -> Result<Value, BadField> {
    live_task(board, &args.task_id)?;
    let text = bounded("text", &args.text, MAX_MESSAGE_CHARS, true)?;
    let filing = Filing::on_task(coordinator, now, args.rationale, args.standing_order_ids)?;
    let spec = ProposalSpec::Message {
        task_id: args.task_id,
        text,
    };
    file(board, filing, spec)
}

pub(super) fn propose_move(
    board: &mut Board,
    coordinator: &str,
    now: DateTime<Utc>,
    args: ProposeMove,
) -> Result<Value, BadField> {
    let task = live_task(board, &args.task_id)?;
    let step = board.step("step_id", &args.step_id)?;
    if step.workflow_id != task.workflow_id {
        return Err(BadField::new(
            "step_id",
            format!(
                "step `{}` is not in workflow `{}` of task `{}`",
                step.id, task.workflow_id, task.id
            ),
        ));
    }
    if step.id == task.workflow_step_id {
        return Err(BadField::new(
            "step_id",
            format!("task `{}` is already on step `{}`", task.id, step.id),
        ));
    }
    let from_step_id = task.workflow_step_id.clone();
    let filing = Filing::on_task(coordinator, now, args.rationale, args.standing_order_ids)?;
    let spec = ProposalSpec::Move {
        task_id: args.task_id,
        from_step_id,
        step_id: args.step_id,
    };
    file(board, filing, spec)
}

pub(super) fn propose_resume(
    board: &mut Board,
    coordinator: &str,
    now: DateTime<Utc>,
    args: ProposeResume,
) -> Result<Value, BadField> {
    live_task(board, &args.task_id)?;
    let session = latest_session(board, &args.task_id).ok_or_else(|| {
        BadField::new(
            "task_id",
            format!("task `{}` has no session to resume", args.task_id),
        )
    })?;
    if session.running {
        return Err(BadField::new(
            "task_id",
            format!(
                "session `{}` of task `{}` is still running",
                session.id, args.task_id
            ),
        ));
    }
    let session_id = session.id.clone();
    let filing = Filing::on_task(coordinator, now, args.rationale, args.standing_order_ids)?;
    let spec = ProposalSpec::Resume {
        task_id: args.task_id,
        session_id,
    };
    file(board, filing, spec)
}

/// One evidence reference checked: a wake turn of `coordinator`, or a task.
fn evidence(board: &Board, coordinator: &str, item: EvidenceRef) -> Result<Evidence, BadField> {
    match (item.run_id, item.task_id) {
        (Some(run), None) => {
            let turn = board.turn_of("evidence", coordinator, &run)?;
            if turn.trigger != Trigger::Wake {
                return Err(BadField::new(
                    "evidence",
                    format!("turn `{run}` was not an unattended (wake) turn"),
                ));
            }
            Ok(Evidence::RunId(run))
        }
        (None, Some(task)) => {
            board.task("evidence", &task)?;
            Ok(Evidence::TaskId(task))
        }
        _ => Err(BadField::new(
            "evidence",
            "each reference has exactly one of `run_id` and `task_id`",
        )),
    }
}

pub(super) fn propose_improvement(
    board: &mut Board,
    coordinator: &str,
    now: DateTime<Utc>,
    args: ProposeImprovement,
) -> Result<Value, BadField> {
    let title = title(&args.title)?;
    let rationale = bounded("rationale", &args.rationale, MAX_REASON_CHARS, true)?;
    let context = bounded("context", &args.context, MAX_MESSAGE_CHARS, true)?;
    let count = args.evidence.len();
    if !(1..=MAX_EVIDENCE).contains(&count) {
        return Err(BadField::new(
            "evidence",
            format!("{count} references; give 1 to {MAX_EVIDENCE}"),
        ));
    }
    let evidence = args
        .evidence
        .into_iter()
        .map(|item| evidence(board, coordinator, item))
        .collect::<Result<Vec<_>, _>>()?;
    if !evidence
        .iter()
        .any(|item| matches!(item, Evidence::RunId(_)))
    {
        return Err(BadField::new(
            "evidence",
            "at least one reference is a `run_id`",
        ));
    }
    let filing = Filing {
        coordinator,
        now,
        rationale: Some(rationale),
        standing_order_ids: Vec::new(),
        field: "title",
    };
    let spec = ProposalSpec::Improvement {
        title,
        context,
        evidence,
    };
    file(board, filing, spec)
}
