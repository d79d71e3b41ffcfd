//! Rows round trips: every collection written and read back, and only
//! what changed written.

use super::*;

/// The demo board with a record in every collection it leaves empty.
fn full_board() -> Board {
    use serde_json::{from_value, json};
    let mut board = Board::demo();
    let task = |extra: serde_json::Value| {
        let mut base = json!({ "task_id": "task-1" });
        base.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        base
    };
    board.messages.push(
        from_value(
            json!({ "id": "m-1", "task_id": "task-1", "session_id": "session-1",
            "kind": "prompt", "text": "go", "delivery_mode": "queued",
            "reply_to_question_id": null, "sequence": 7 }),
        )
        .unwrap(),
    );
    board
        .dependencies
        .insert(("task-2".into(), "task-3".into()));
    board.mcp_configs.insert(
        "profile-1".into(),
        from_value(json!({ "enabled": true, "servers": { "a": {} } })).unwrap(),
    );
    board.plan_revisions.insert(
        "plan-revision-1".into(),
        from_value(task(
            json!({ "id": "plan-revision-1", "number": 1, "title": "Plan",
            "content": "1. Registry", "restored_from": null }),
        ))
        .unwrap(),
    );
    board.walkthroughs.insert(
        "task-1".into(),
        from_value(task(json!({ "title": "Tour", "steps": [{ "file": "a" }] }))).unwrap(),
    );
    board.reviews.push(
        from_value(task(
            json!({ "id": "r-1", "summary": "fine", "findings": [] }),
        ))
        .unwrap(),
    );
    board.questions.insert(
        "q-1".into(),
        from_value(task(
            json!({ "id": "q-1", "asked": "parent", "parent_task_id": "task-1",
            "questions": [{}], "context": null, "status": "pending", "answers": [],
            "reject_reason": null, "sequence": 8 }),
        ))
        .unwrap(),
    );
    board.change_requests.insert(
        ("task-1".into(), "github".into(), "repo-1".into(), 7),
        from_value(task(
            json!({ "provider": "github", "repository_id": "repo-1",
            "number": 7, "auto_fix_enabled": true, "auto_merge_enabled": false,
            "prompt_on_review_requested": true, "prompt_on_merged": true,
            "prompt_on_closed": false }),
        ))
        .unwrap(),
    );
    board
        .auto_fix_prompts
        .insert(("task-1".into(), "gitlab".into()), "Fix it.".into());
    board.auto_fix_outcomes.push(
        from_value(task(
            json!({ "outcome": "blocked", "summary": "no access" }),
        ))
        .unwrap(),
    );
    board.canvases.insert(
        "canvas-1".into(),
        from_value(task(
            json!({ "id": "canvas-1", "title": "Board", "summary": "s",
            "source_root": ".kandev/canvases/canvas-1",
            "releases": [{ "number": 1, "source_path": ".kandev/canvases/canvas-1" }],
            "state": { "filter": "open" }, "state_revision": 1 }),
        ))
        .unwrap(),
    );
    board.completions.push(
        from_value(task(
            json!({ "workflow_step_id": "step-done", "summary": "done",
            "handoff": null, "blockers": null }),
        ))
        .unwrap(),
    );
    board
        .rich_outputs
        .push(from_value(json!({ "kind": "table" })).unwrap());
    board.sources.insert(
        "task-1".into(),
        vec![from_value(json!({ "path": "/x" })).unwrap()],
    );
    board.diagnostics.push("/tmp/bundle".into());
    board.automations.insert(
        "automation-1".into(),
        from_value(json!({ "id": "automation-1", "workspace_id": "ws-1",
            "name": "Nightly", "description": "", "enabled": true,
            "workflow_id": null, "workflow_step_id": null, "agent_profile_id": null,
            "executor_profile_id": null,
            "repositories": [{ "repository_id": "repo-1", "base_branch": null }],
            "repository_mode": "selected", "prompt": "", "task_title_template": null,
            "max_concurrent_runs": 1, "continuation_policy": "new_task",
            "task_mode": "automation_run",
            "triggers": [{ "id": "trigger-1", "type": "scheduled", "enabled": false,
                "config": { "cron_expression": "0 3 * * *" } }] }))
        .unwrap(),
    );
    board.settings.insert(
        ("workspace".into(), "ws-1".into()),
        from_value(json!({ "workspace.max_concurrent_tasks": 2 })).unwrap(),
    );
    board
}

/// Reads back what `sync` writes for `board` from nothing.
fn written_and_read(board: &Board) -> (Vec<Change>, Board) {
    let mut saved = Board::default();
    let changes = sync(&mut saved, board);
    assert!(saved == *board, "sync leaves the saved copy equal");
    let records = changes.iter().filter_map(|change| match change {
        Change::Put {
            collection,
            key,
            body,
        } => Some((collection.to_string(), key.clone(), body.clone())),
        _ => None,
    });
    let records = Records::new(records.collect::<Vec<_>>());
    let tasks = board.tasks.values().cloned().collect();
    (changes, records.into_board(tasks).unwrap())
}

/// A board with a record in every collection, written as rows and read
/// back, is the same board: no collection is dropped or renamed.
#[test]
fn every_collection_round_trips() {
    let board = full_board();
    let (changes, read) = written_and_read(&board);
    let collections: BTreeSet<&str> = changes
        .iter()
        .filter_map(|change| match change {
            Change::Put { collection, .. } => Some(*collection),
            _ => None,
        })
        .collect();
    assert_eq!(collections.len(), 34, "{collections:?}");
    assert!(read == board, "the board read back differs");
}

/// One changed record is one change; removed ones are deletes; an
/// unchanged board is none.
#[test]
fn only_what_changed_is_written() {
    let board = full_board();
    let mut saved = board.clone();
    assert_eq!(sync(&mut saved, &board), []);
    let mut now = board.clone();
    now.tasks.get_mut("task-4").unwrap().title = "Renamed".into();
    now.messages.clear();
    now.dependencies.clear();
    let changes = sync(&mut saved, &now);
    assert_eq!(
        changes,
        [
            Change::PutTask("task-4".into()),
            Change::Delete {
                collection: "messages",
                key: "00000000".into()
            },
            Change::Delete {
                collection: "dependencies",
                key: r#"["task-2","task-3"]"#.into()
            },
        ]
    );
    assert!(saved == now);
}

#[test]
fn an_unknown_collection_is_refused() {
    let records = Records::new([("widgets".into(), "w-1".into(), "{}".into())]);
    let Err(error) = records.into_board(Vec::new()) else {
        panic!("a board was read from an unknown collection");
    };
    assert!(
        error.to_string().contains("`widgets` is not a collection"),
        "{error}"
    );
}
