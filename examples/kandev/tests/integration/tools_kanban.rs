//! The kanban side of the September 2026 catalog over a real rmcp client:
//! change-request links and their automation, versioned plans and their
//! revisions, canvases, and a move's entry options.

use std::sync::Arc;

use kandev_mcp::store::Store;
use kandev_mcp::{Capability, Kandev, Provider, Surface};
use mcp_profiles::ProfileContext;
use serde_json::json;

use crate::tools::{call, connect, error_of, json_of};

fn kanban(capabilities: &[Capability], providers: &[Provider]) -> ProfileContext<Kandev> {
    ProfileContext::new(Surface::KanbanTask)
        .with_capabilities(capabilities.iter().copied())
        .unwrap()
        .with_providers(providers.iter().copied())
}

#[tokio::test]
async fn a_pull_request_is_linked_switched_and_its_auto_fix_reported() {
    let store = Arc::new(Store::demo());
    let context = kanban(&[], &[Provider::Github]);
    let client = connect(context, Kandev::new(Arc::clone(&store), "task-4")).await;
    let linked = json_of(
        &call(
            &client,
            "manage_task_change_request_kandev",
            json!({ "operation": "link", "task_id": "task-4", "provider": "github",
                    "repository_id": "repo-1", "number": 7 }),
        )
        .await,
    );
    assert_eq!(linked["change_requests"][0]["number"], 7);
    let refused = call(
        &client,
        "report_change_request_auto_fix_outcome_kandev",
        json!({ "outcome": "action_taken", "summary": "Pushed the fix." }),
    )
    .await;
    assert!(error_of(&refused).starts_with("invalid `outcome`"));
    json_of(
        &call(
            &client,
            "update_task_change_request_automation_kandev",
            json!({ "target": { "scope": "task", "providers": ["github"] },
                    "patch": { "auto_fix_enabled": true, "auto_fix_prompt_override": "Fix CI." } }),
        )
        .await,
    );
    json_of(
        &call(
            &client,
            "report_change_request_auto_fix_outcome_kandev",
            json!({ "outcome": "action_taken", "summary": "Pushed the fix." }),
        )
        .await,
    );
    let read = json_of(&call(&client, "get_task_change_requests_kandev", json!({})).await);
    assert_eq!(read["change_requests"][0]["auto_fix_enabled"], true);
    assert_eq!(read["auto_fix_prompts"]["github"], "Fix CI.");
    assert_eq!(
        read["providers"]["gitlab"]["auto_fix_outcome_reports"],
        false
    );
    let elsewhere = error_of(
        &call(
            &client,
            "get_task_change_requests_kandev",
            json!({ "task_id": "task-1" }),
        )
        .await,
    );
    assert!(
        elsewhere.contains("bound to the calling task"),
        "{elsewhere}"
    );
    assert_eq!(store.lock().auto_fix_outcomes.len(), 1);
}

#[tokio::test]
async fn plan_writes_are_versioned_and_a_revision_comes_back() {
    let store = Arc::new(Store::demo());
    let client = connect(kanban(&[], &[]), Kandev::new(Arc::clone(&store), "task-1")).await;
    let read = json_of(&call(&client, "get_task_plan_kandev", json!({})).await);
    let first = read["plan"]["version"].as_str().unwrap().to_owned();
    let edited = json_of(
        &call(
            &client,
            "edit_task_plan_kandev",
            json!({ "expected_version": first, "old_text": "2. Runtime", "new_text": "2. Runtime (done)" }),
        )
        .await,
    );
    let stale = error_of(
        &call(
            &client,
            "update_task_plan_kandev",
            json!({ "content": "Gone", "expected_version": first }),
        )
        .await,
    );
    assert!(
        stale.starts_with("invalid `expected_version`: stale"),
        "{stale}"
    );
    let page = json_of(
        &call(
            &client,
            "list_task_plan_revisions_kandev",
            json!({ "limit": 1, "before_revision_number": 2 }),
        )
        .await,
    );
    let original = page["revisions"][0]["revision_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let revision = json_of(
        &call(
            &client,
            "get_task_plan_revision_kandev",
            json!({ "revision_id": original }),
        )
        .await,
    );
    let restored = json_of(
        &call(
            &client,
            "restore_task_plan_revision_kandev",
            json!({ "revision_id": original, "expected_version": edited["version"],
                    "expected_revision_version": revision["revision_version"] }),
        )
        .await,
    );
    assert_eq!(restored["status"], "restored");
    assert_eq!(
        store.lock().plans["task-1"].content,
        "1. Registry\n2. Runtime\n3. Kandev example"
    );
}

#[tokio::test]
async fn a_canvas_is_drafted_published_and_keeps_shared_state() {
    let store = Arc::new(Store::demo());
    let context = kanban(&[Capability::CanvasAuthoring], &[]);
    let client = connect(context, Kandev::new(Arc::clone(&store), "task-4")).await;
    let created = json_of(
        &call(
            &client,
            "create_canvas_kandev",
            json!({ "title": "Release board", "summary": "Deploy health." }),
        )
        .await,
    );
    let (id, root) = (&created["canvas_id"], &created["source_root"]);
    let published = json_of(
        &call(
            &client,
            "publish_canvas_kandev",
            json!({ "canvas_id": id, "source_path": root }),
        )
        .await,
    );
    assert_eq!(published["status"], "active");
    json_of(
        &call(&client, "set_canvas_state_kandev",
            json!({ "canvas_id": id, "key": "filter", "value": { "open": true }, "expected_revision": 0 })).await,
    );
    let state = json_of(
        &call(
            &client,
            "get_canvas_state_kandev",
            json!({ "canvas_id": id, "key": "filter" }),
        )
        .await,
    );
    assert_eq!(
        (&state["value"], &state["revision"]),
        (&json!({ "open": true }), &json!(1))
    );
    let listed = json_of(&call(&client, "list_canvases_kandev", json!({})).await);
    assert_eq!(listed["canvases"][0]["live_release"], 1);
}

#[tokio::test]
async fn a_move_takes_entry_options_but_not_prompt_and_instructions_together() {
    let store = Arc::new(Store::demo());
    let client = connect(kanban(&[], &[]), Kandev::new(Arc::clone(&store), "task-1")).await;
    let target =
        json!({ "task_id": "task-4", "workflow_id": "wf-1", "workflow_step_id": "step-review" });
    let mut both = target.clone();
    both["prompt"] = json!("Review it.");
    both["entry_options"] = json!({ "instructions": "Review it." });
    let refused = error_of(&call(&client, "move_task_kandev", both).await);
    assert!(refused.starts_with("invalid `prompt`"), "{refused}");
    assert!(refused.contains("entry_options.instructions"), "{refused}");
    let mut options = target;
    options["entry_options"] = json!({ "reset_context": true, "instructions": " Start QA. " });
    let moved = json_of(&call(&client, "move_task_kandev", options).await);
    assert_eq!(
        moved["entry_options"],
        json!({ "reset_context": true, "instructions": "Start QA." })
    );
    let board = store.lock();
    assert_eq!(board.tasks["task-4"].workflow_step_id, "step-review");
    assert_eq!(board.messages.last().unwrap().text, "Start QA.");
}
