//! The coordinator's reads of its own records: one proposal or stall, its
//! activity (proposals, newest first) and its turn ledger. Each pages with
//! `limit` (1 to 50, default 20) and `before`, the cursor the previous page
//! answered with: the rows strictly older than that row, whatever the
//! filters, so a page never repeats or skips one.

use std::cmp::Reverse;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::store::{BadField, Board, Proposal, Trigger, Turn, Verdict};
use crate::tools::numbers::MAX_PAGE;

/// The page size when `limit` is left out.
pub(super) const DEFAULT_PAGE: usize = 20;

/// A referenced coordinator item.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetCoordinatorItem {
    /// `proposal` or `stall`.
    pub kind: String,
    /// A proposal ID for kind `proposal`; the stalled task's ID for kind `stall`.
    pub id: String,
}

/// A page of this coordinator's proposals.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListCoordinatorActivity {
    /// At most this many proposals, 1 to 50 (default 20).
    #[serde(default, deserialize_with = "crate::tools::numbers::page_limit")]
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub before: Option<String>,
}

/// A page of this coordinator's turns.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListCoordinatorTurns {
    /// Only turns started at or after this RFC 3339 time.
    pub since: Option<String>,
    /// Only turns with this verdict: `acted`, `proposed`, `nothing_needed`,
    /// `blocked` or `needs_you`.
    pub verdict: Option<String>,
    /// Only turns started by `message`, `wake` or `dream`.
    pub trigger: Option<String>,
    /// Only turns with a call on this task (a task ID).
    pub task: Option<String>,
    /// At most this many turns, 1 to 50 (default 20).
    #[serde(default, deserialize_with = "crate::tools::numbers::page_limit")]
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub limit: Option<u64>,
    /// The `next_before` of the previous page.
    pub before: Option<String>,
}

/// At most `limit` of `rows` (sorted newest first), and the ID of the last
/// one returned when more remain.
fn page<T>(
    mut rows: Vec<&T>,
    limit: Option<u64>,
    id: impl Fn(&T) -> &str,
) -> (Vec<&T>, Option<String>) {
    // In range by the argument's deserializer.
    let limit = limit.map_or(DEFAULT_PAGE, |limit| limit as usize);
    let next = (rows.len() > limit).then(|| id(rows[limit - 1]).to_owned());
    rows.truncate(limit);
    (rows, next)
}

/// `value` as one of the names of `T` (its serde names, listed in `names`).
fn one_of<T: DeserializeOwned>(
    field: &'static str,
    value: &str,
    names: &[&str],
) -> Result<T, BadField> {
    serde_json::from_value(Value::from(value)).map_err(|_| {
        BadField::new(
            field,
            format!("`{value}` is not one of {}", names.join(", ")),
        )
    })
}

pub(super) fn get_item(
    board: &Board,
    coordinator: &str,
    args: GetCoordinatorItem,
) -> Result<Value, BadField> {
    match args.kind.as_str() {
        "proposal" => {
            let proposal = board.proposal_of("id", coordinator, &args.id)?;
            Ok(json!({ "kind": "proposal", "proposal": proposal }))
        }
        "stall" => {
            board.task("id", &args.id)?;
            let stall = board.coordinator_stalls.get(&args.id).ok_or_else(|| {
                BadField::new("id", format!("task `{}` has no stall record", args.id))
            })?;
            Ok(json!({ "kind": "stall", "stall": stall }))
        }
        other => Err(BadField::new(
            "kind",
            format!("`{other}` is not `proposal` or `stall`"),
        )),
    }
}

pub(super) fn list_activity(
    board: &Board,
    coordinator: &str,
    args: ListCoordinatorActivity,
) -> Result<Value, BadField> {
    let cursor = args
        .before
        .as_deref()
        .map(|id| board.proposal_of("before", coordinator, id))
        .transpose()?
        .map(|proposal| proposal.sequence);
    let mut rows: Vec<&Proposal> = board
        .coordinator_proposals
        .values()
        .filter(|proposal| proposal.coordinator_id == coordinator)
        .filter(|proposal| cursor.is_none_or(|cursor| proposal.sequence < cursor))
        .collect();
    rows.sort_by_key(|proposal| Reverse(proposal.sequence));
    let (proposals, next) = page(rows, args.limit, |proposal| &proposal.id);
    Ok(json!({ "proposals": proposals, "next_cursor": next }))
}

/// Where a turn sorts: by start time, then by sequence.
fn turn_key(turn: &Turn) -> (DateTime<Utc>, u64) {
    (turn.started_at, turn.sequence)
}

pub(super) fn list_turns(
    board: &Board,
    coordinator: &str,
    args: ListCoordinatorTurns,
) -> Result<Value, BadField> {
    let since = args
        .since
        .as_deref()
        .map(|since| {
            DateTime::parse_from_rfc3339(since).map_err(|err| {
                BadField::new("since", format!("`{since}` is not an RFC 3339 time: {err}"))
            })
        })
        .transpose()?
        .map(|since| since.with_timezone(&Utc));
    let verdict = args
        .verdict
        .as_deref()
        .map(|verdict| one_of::<Verdict>("verdict", verdict, Verdict::NAMES))
        .transpose()?;
    let trigger = args
        .trigger
        .as_deref()
        .map(|trigger| one_of::<Trigger>("trigger", trigger, Trigger::NAMES))
        .transpose()?;
    if let Some(task) = &args.task {
        board.task("task", task)?;
    }
    let cursor = args
        .before
        .as_deref()
        .map(|id| board.turn_of("before", coordinator, id))
        .transpose()?
        .map(turn_key);
    let mut rows: Vec<&Turn> = board
        .coordinator_turns
        .values()
        .filter(|turn| turn.coordinator_id == coordinator)
        .filter(|turn| since.is_none_or(|since| turn.started_at >= since))
        .filter(|turn| verdict.is_none_or(|verdict| turn.verdict == Some(verdict)))
        .filter(|turn| trigger.is_none_or(|trigger| turn.trigger == trigger))
        .filter(|turn| {
            args.task.as_ref().is_none_or(|task| {
                turn.calls
                    .iter()
                    .any(|call| call.task_id.as_ref() == Some(task))
            })
        })
        .filter(|turn| cursor.is_none_or(|cursor| turn_key(turn) < cursor))
        .collect();
    rows.sort_by_key(|turn| Reverse(turn_key(turn)));
    let (turns, next) = page(rows, args.limit, |turn| &turn.id);
    Ok(json!({ "turns": turns, "next_before": next }))
}
