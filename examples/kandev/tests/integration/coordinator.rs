//! The `coordinator` surface over a real rmcp client: the phase-1 seven by
//! default, what an allow list picks otherwise, proposals filed and read
//! back, and proposals kept across a restart of the board's database.

use std::sync::Arc;

use kandev_mcp::Kandev;
use kandev_mcp::store::Store;
use mcp_profiles::ProfileContext;
use mcp_profiles_tests::client::{CallOutcome, Session};
use serde_json::{Value, json};

use crate::common::{call, serve_in_process};

/// The phase-1 tools, sorted.
pub(crate) const PHASE_ONE: [&str; 7] = [
    "get_coordinator_item_kandev",
    "get_task_conversation_kandev",
    "list_repositories_kandev",
    "list_tasks_kandev",
    "list_workflow_steps_kandev",
    "list_workflows_kandev",
    "propose_task_kandev",
];

/// Every tool the coordinator's allow list may name, sorted.
pub(crate) const ALL: [&str; 13] = [
    "get_coordinator_item_kandev",
    "get_task_conversation_kandev",
    "list_coordinator_activity_kandev",
    "list_coordinator_turns_kandev",
    "list_repositories_kandev",
    "list_tasks_kandev",
    "list_workflow_steps_kandev",
    "list_workflows_kandev",
    "propose_improvement_kandev",
    "propose_message_kandev",
    "propose_move_kandev",
    "propose_resume_kandev",
    "propose_task_kandev",
];

/// A session of the demo coordinator (bound to `task-1`) with `context`.
async fn coordinator(store: Arc<Store>, context: Value) -> Session {
    let context = ProfileContext::<Kandev>::from_json(&context.to_string()).expect("a context");
    let (client_io, _controller) = serve_in_process(store, "task-1", context);
    Session::connect(client_io).await
}

fn every_tool() -> Value {
    json!({ "surface": "coordinator", "allow": { "coordinator": ALL } })
}

/// The JSON a successful call answered with.
async fn answer(session: &Session, tool: &str, arguments: Value) -> Value {
    let (failed, text) = call(&session.service, tool, arguments).await;
    assert!(!failed, "{tool}: {text}");
    serde_json::from_str(&text).expect("handlers answer JSON")
}

#[tokio::test]
async fn a_coordinator_gets_the_phase_one_seven_unless_its_allow_list_says_more() {
    let store = Arc::new(Store::demo());
    let plain = coordinator(store.clone(), json!({ "surface": "coordinator" })).await;
    assert_eq!(plain.tool_names().await, PHASE_ONE);
    let full = coordinator(store, every_tool()).await;
    assert_eq!(full.tool_names().await, ALL);
}

#[tokio::test]
async fn a_tool_outside_the_allow_list_is_refused() {
    let store = Arc::new(Store::demo());
    let plain = coordinator(store.clone(), json!({ "surface": "coordinator" })).await;
    let arguments = json!({ "task_id": "task-3", "text": "Start, please." });
    let CallOutcome::Refused(_, message) =
        plain.call("propose_message_kandev", Some(arguments)).await
    else {
        panic!("a tool outside the allow list answered");
    };
    assert_eq!(
        message,
        "tool `propose_message_kandev` is not available in the current profile"
    );
    assert!(
        store.lock().coordinator_proposals.len() == 2,
        "nothing was filed"
    );
}

#[tokio::test]
async fn a_proposal_is_filed_and_shows_in_the_activity() {
    let store = Arc::new(Store::demo());
    let client = coordinator(store.clone(), every_tool()).await;
    let filed = answer(
        &client,
        "propose_task_kandev",
        json!({ "title": "Benchmarks", "description": "Measure assembly.",
                "rationale": "Profiles grow.", "workflow_id": "wf-1",
                "repository_id": "repo-1" }),
    )
    .await;
    let id = filed["proposal"]["id"].as_str().unwrap().to_owned();
    assert_eq!(filed["proposal"]["status"], "pending");
    let activity = answer(
        &client,
        "list_coordinator_activity_kandev",
        json!({ "limit": 1 }),
    )
    .await;
    assert_eq!(activity["proposals"][0]["id"], id.as_str());
    assert_eq!(activity["next_cursor"], id.as_str());
    let item = answer(
        &client,
        "get_coordinator_item_kandev",
        json!({ "kind": "proposal", "id": id }),
    )
    .await;
    assert_eq!(item["proposal"]["spec"]["title"], "Benchmarks");
    // Nothing on the board but the proposal: no task was created.
    assert_eq!(store.lock().tasks.len(), Store::demo().lock().tasks.len());

    let (failed, text) = call(
        &client.service,
        "propose_move_kandev",
        json!({ "task_id": "task-2", "step_id": "step-nowhere" }),
    )
    .await;
    assert!(failed);
    assert_eq!(text, "invalid `step_id`: no workflow step `step-nowhere`");
}

#[tokio::test]
async fn proposals_outlive_a_restart() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("board.db");
    let id = {
        let store = Arc::new(Store::create(&path).expect("a new database"));
        let client = coordinator(store, every_tool()).await;
        let filed = answer(
            &client,
            "propose_message_kandev",
            json!({ "task_id": "task-3", "text": "Start, please." }),
        )
        .await;
        client.service.cancel().await.expect("the session closes");
        filed["proposal"]["id"].as_str().unwrap().to_owned()
    };
    let reopened = Arc::new(Store::open(&path).expect("the database reopens"));
    let client = coordinator(reopened, every_tool()).await;
    let activity = answer(&client, "list_coordinator_activity_kandev", json!({})).await;
    assert_eq!(activity["proposals"][0]["id"], id.as_str());
    assert_eq!(activity["proposals"][0]["spec"]["text"], "Start, please.");
    let turns = answer(
        &client,
        "list_coordinator_turns_kandev",
        json!({ "trigger": "wake" }),
    )
    .await;
    assert_eq!(turns["turns"].as_array().unwrap().len(), 2);
}
