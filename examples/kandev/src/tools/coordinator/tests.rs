//! The coordinator's pure functions over the demo board, whose coordinator
//! ledger belongs to `task-1`.

use chrono::{DateTime, TimeZone, Utc};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::proposals::*;
use super::reads::*;
use crate::store::{BadField, Board};

const ME: &str = "task-1";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 9, 2, 12, 0, 0).unwrap()
}

/// Arguments as a client sends them.
fn args<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("arguments deserialise")
}

/// The message of `result`'s error.
fn refused(result: Result<Value, BadField>) -> String {
    result.expect_err("the call is refused").to_string()
}

fn task(board: &mut Board, value: Value) -> Result<Value, BadField> {
    propose_task(board, ME, now(), args(value))
}

fn a_task() -> Value {
    json!({ "title": "Benchmarks", "description": "Measure it.", "rationale": "Speed.",
            "workflow_id": "wf-1" })
}

/// `base` with `extra`'s fields set.
fn with(base: Value, extra: Value) -> Value {
    let mut base = base;
    let object = base.as_object_mut().unwrap();
    object.extend(extra.as_object().unwrap().clone());
    base
}

#[test]
fn a_task_proposal_is_one_pending_record_and_nothing_else() {
    let mut board = Board::demo();
    let before = board.clone();
    let answer = task(&mut board, a_task()).unwrap();
    let id = answer["proposal"]["id"].as_str().unwrap().to_owned();
    assert_eq!(answer["deduplicated"], false);
    assert_eq!(answer["proposal"]["status"], "pending");
    assert_eq!(answer["proposal"]["coordinator_id"], ME);
    assert_eq!(answer["proposal"]["spec"]["kind"], "task");
    assert_eq!(answer["proposal"]["spec"]["step_id"], "step-backlog");
    assert_eq!(answer["proposal"]["created_at"], "2026-09-02T12:00:00Z");
    // Take the proposal and the counter away: the board is as it was.
    board.coordinator_proposals.remove(&id);
    board.sequence = before.sequence;
    assert!(board == before, "only the proposal was added");
}

#[test]
fn a_task_proposal_names_the_bad_field() {
    let mut board = Board::demo();
    let cases = [
        (
            json!({ "workflow_id": "wf-9" }),
            "invalid `workflow_id`: no workflow `wf-9`",
        ),
        (
            json!({ "step_id": "step-nowhere" }),
            "invalid `step_id`: no workflow step `step-nowhere`",
        ),
        (
            json!({ "repository_id": "repo-9" }),
            "invalid `repository_id`: no repository `repo-9`",
        ),
        (
            json!({ "source_task_id": "task-99" }),
            "invalid `source_task_id`: no task `task-99`",
        ),
        (
            json!({ "title": "  " }),
            "invalid `title`: the value is empty",
        ),
        (
            json!({ "title": "x".repeat(61) }),
            "invalid `title`: 61 characters; at most 60",
        ),
        (
            json!({ "in_reply_to": "proposal-1" }),
            "invalid `in_reply_to`: proposal `proposal-1` is approved; only a returned one can be revised",
        ),
        (
            json!({ "standing_order_ids": ["a", "a"] }),
            "invalid `standing_order_ids`: `a` is listed twice",
        ),
        (
            json!({ "standing_order_ids": ["a", "b", "c", "d", "e", "f"] }),
            "invalid `standing_order_ids`: 6 ids; at most 5",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(refused(task(&mut board, with(a_task(), extra))), expected);
    }
    assert!(board == Board::demo(), "a refused proposal stores nothing");
    let revision = task(
        &mut board,
        with(a_task(), json!({ "in_reply_to": "proposal-2" })),
    );
    assert_eq!(
        revision.unwrap()["proposal"]["spec"]["in_reply_to"],
        "proposal-2"
    );
}

#[test]
fn another_coordinators_proposals_are_not_found() {
    let mut board = Board::demo();
    let theirs = propose_task(
        &mut board,
        "task-4",
        now(),
        args(with(a_task(), json!({ "in_reply_to": "proposal-2" }))),
    );
    assert_eq!(
        refused(theirs),
        "invalid `in_reply_to`: no proposal `proposal-2` of this coordinator"
    );
    let item = get_item(
        &board,
        "task-4",
        args(json!({ "kind": "proposal", "id": "proposal-1" })),
    );
    assert_eq!(
        refused(item),
        "invalid `id`: no proposal `proposal-1` of this coordinator"
    );
}

#[test]
fn a_repeated_message_proposal_answers_the_open_one() {
    let mut board = Board::demo();
    let message = |text: &str| json!({ "task_id": "task-3", "text": text });
    let first = propose_message(&mut board, ME, now(), args(message("Start, please."))).unwrap();
    let again = propose_message(&mut board, ME, now(), args(message("Really."))).unwrap();
    assert_eq!(again["deduplicated"], true);
    assert_eq!(again["proposal"], first["proposal"]);
    // Another kind on the same task is a proposal of its own.
    let moved = propose_move(
        &mut board,
        ME,
        now(),
        args(json!({ "task_id": "task-3", "step_id": "step-doing" })),
    )
    .unwrap();
    assert_eq!(moved["deduplicated"], false);
    assert_eq!(moved["proposal"]["spec"]["from_step_id"], "step-backlog");
    let empty = propose_message(&mut board, ME, now(), args(message(" ")));
    assert_eq!(refused(empty), "invalid `text`: the value is empty");
}

#[test]
fn a_move_goes_to_another_step_of_the_tasks_workflow() {
    let mut board = Board::demo();
    let mut propose = |step: &str| {
        propose_move(
            &mut board,
            ME,
            now(),
            args(json!({ "task_id": "task-2", "step_id": step })),
        )
    };
    assert_eq!(
        refused(propose("step-doing")),
        "invalid `step_id`: task `task-2` is already on step `step-doing`"
    );
    assert_eq!(
        refused(propose("step-9")),
        "invalid `step_id`: no workflow step `step-9`"
    );
    assert!(propose("step-review").is_ok());
}

#[test]
fn only_a_stopped_session_can_be_proposed_for_resuming() {
    let mut board = Board::demo();
    let resume = |board: &mut Board, task: &str| {
        propose_resume(board, ME, now(), args(json!({ "task_id": task })))
    };
    assert_eq!(
        refused(resume(&mut board, "task-2")),
        "invalid `task_id`: session `session-1` of task `task-2` is still running"
    );
    assert_eq!(
        refused(resume(&mut board, "task-4")),
        "invalid `task_id`: task `task-4` has no session to resume"
    );
    board.sessions.get_mut("session-1").unwrap().running = false;
    let answer = resume(&mut board, "task-2").unwrap();
    assert_eq!(answer["proposal"]["spec"]["session_id"], "session-1");
    board.tasks.get_mut("task-2").unwrap().archived = true;
    assert_eq!(
        refused(resume(&mut board, "task-2")),
        "invalid `task_id`: task `task-2` is archived"
    );
}

#[test]
fn an_improvement_rests_on_an_unattended_turn() {
    let mut board = Board::demo();
    let improve = |board: &mut Board, evidence: Value| {
        propose_improvement(
            board,
            ME,
            now(),
            args(json!({ "title": "Be brief", "rationale": "Shorter turns.",
                         "context": "Answer in one line.", "evidence": evidence })),
        )
    };
    let cases = [
        (json!([]), "invalid `evidence`: 0 references; give 1 to 10"),
        (
            json!([{ "run_id": "turn-2", "task_id": "task-3" }]),
            "invalid `evidence`: each reference has exactly one of `run_id` and `task_id`",
        ),
        (
            json!([{ "run_id": "turn-1" }]),
            "invalid `evidence`: turn `turn-1` was not an unattended (wake) turn",
        ),
        (
            json!([{ "run_id": "turn-9" }]),
            "invalid `evidence`: no turn `turn-9` of this coordinator",
        ),
        (
            json!([{ "task_id": "task-3" }]),
            "invalid `evidence`: at least one reference is a `run_id`",
        ),
    ];
    for (evidence, expected) in cases {
        assert_eq!(refused(improve(&mut board, evidence)), expected);
    }
    let answer = improve(
        &mut board,
        json!([{ "run_id": "turn-2" }, { "task_id": "task-3" }]),
    );
    assert_eq!(
        answer.unwrap()["proposal"]["spec"]["evidence"],
        json!([{ "run_id": "turn-2" }, { "task_id": "task-3" }])
    );
}

#[test]
fn an_item_is_a_proposal_or_a_stall() {
    let board = Board::demo();
    let item = |kind: &str, id: &str| get_item(&board, ME, args(json!({ "kind": kind, "id": id })));
    assert_eq!(
        item("proposal", "proposal-2").unwrap()["proposal"]["status"],
        "returned"
    );
    assert_eq!(
        item("stall", "task-3").unwrap()["stall"]["workflow_step_id"],
        "step-backlog"
    );
    assert_eq!(
        refused(item("stall", "task-4")),
        "invalid `id`: task `task-4` has no stall record"
    );
    assert_eq!(
        refused(item("stall", "task-99")),
        "invalid `id`: no task `task-99`"
    );
    assert_eq!(
        refused(item("task", "task-3")),
        "invalid `kind`: `task` is not `proposal` or `stall`"
    );
}

#[test]
fn activity_pages_newest_first() {
    let mut board = Board::demo();
    let filed: Vec<String> = ["task-2", "task-3", "task-4"]
        .into_iter()
        .map(|task| {
            let answer = propose_message(
                &mut board,
                ME,
                now(),
                args(json!({ "task_id": task, "text": "Status?" })),
            )
            .unwrap();
            answer["proposal"]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    let ids = |page: &Value| -> Vec<String> {
        page["proposals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|proposal| proposal["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let first = list_activity(&board, ME, args(json!({ "limit": 2 }))).unwrap();
    assert_eq!(ids(&first), [filed[2].clone(), filed[1].clone()]);
    assert_eq!(first["next_cursor"], filed[1]);
    let rest = list_activity(&board, ME, args(json!({ "before": filed[1] }))).unwrap();
    assert_eq!(ids(&rest), [filed[0].as_str(), "proposal-2", "proposal-1"]);
    assert_eq!(rest["next_cursor"], Value::Null);
    let unknown = list_activity(&board, ME, args(json!({ "before": "proposal-77" })));
    assert_eq!(
        refused(unknown),
        "invalid `before`: no proposal `proposal-77` of this coordinator"
    );
    let theirs = list_activity(&board, "task-4", args(json!({}))).unwrap();
    assert_eq!(theirs["proposals"], json!([]));
}

#[test]
fn turns_filter_and_page_newest_first() {
    let board = Board::demo();
    let turns = |value: Value| {
        let page = list_turns(&board, ME, args(value))?;
        let ids: Vec<String> = page["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|turn| turn["id"].as_str().unwrap().to_owned())
            .collect();
        Ok::<_, BadField>((ids, page["next_before"].clone()))
    };
    assert_eq!(turns(json!({})).unwrap().0, ["turn-3", "turn-2", "turn-1"]);
    assert_eq!(
        turns(json!({ "limit": 1 })).unwrap(),
        (vec!["turn-3".to_owned()], json!("turn-3"))
    );
    assert_eq!(
        turns(json!({ "before": "turn-3" })).unwrap().0,
        ["turn-2", "turn-1"]
    );
    assert_eq!(
        turns(json!({ "since": "2026-09-01T11:00:00+01:00" }))
            .unwrap()
            .0,
        ["turn-3", "turn-2"]
    );
    assert_eq!(
        turns(json!({ "verdict": "proposed", "trigger": "wake" }))
            .unwrap()
            .0,
        ["turn-2"]
    );
    assert_eq!(
        turns(json!({ "task": "task-2" })).unwrap().0,
        ["turn-2", "turn-1"]
    );
    let refusals = [
        (
            json!({ "verdict": "done" }),
            "invalid `verdict`: `done` is not one of acted, proposed, nothing_needed, blocked, needs_you",
        ),
        (
            json!({ "trigger": "cron" }),
            "invalid `trigger`: `cron` is not one of message, wake, dream",
        ),
        (
            json!({ "task": "task-99" }),
            "invalid `task`: no task `task-99`",
        ),
        (
            json!({ "before": "turn-9" }),
            "invalid `before`: no turn `turn-9` of this coordinator",
        ),
    ];
    for (value, expected) in refusals {
        assert_eq!(turns(value).unwrap_err().to_string(), expected);
    }
    let since = turns(json!({ "since": "yesterday" }))
        .unwrap_err()
        .to_string();
    assert!(
        since.starts_with("invalid `since`: `yesterday` is not an RFC 3339 time"),
        "{since}"
    );
    assert_eq!(
        list_turns(&board, "task-4", args(json!({}))).unwrap()["turns"],
        json!([])
    );
}

#[test]
fn a_limit_outside_1_to_50_is_refused_by_the_arguments() {
    for limit in [json!(0), json!(51), json!(2.5)] {
        let error = serde_json::from_value::<ListCoordinatorTurns>(json!({ "limit": limit }))
            .err()
            .expect("refused");
        assert!(error.to_string().contains("invalid `limit`"), "{error}");
    }
}
