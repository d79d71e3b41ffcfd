//! A task's tool policy in its stored metadata, as Kandev keeps a
//! coordinator conversation's binding: set through the control API
//! (checked in full first, refusals change nothing), applied to the live
//! profile with one `tools/list_changed`, and read again when the task is
//! served anew (resume), from the SQLite file.

use crate::common::{Db, LIMIT, Server};
use mcp_profiles_tests::client::Session;
use serde_json::{Value, json};

const PATH: &str = "/api/v1/tasks/task-1/tool-policy";

fn binding(tool_names: &[&str]) -> Value {
    json!({"coordinator_tool_policy": {
        "version": 1,
        "coordinator_id": "coordinator-1",
        "workspace_id": "ws-1",
        "conversation_task_id": "task-1",
        "policy_revision": 1,
        "tool_names": tool_names,
    }})
}

async fn tools(server: &Server, session: &Session) -> Vec<String> {
    let answer = server.profile(&reqwest::Client::new()).await;
    let tools: Vec<String> = serde_json::from_value(answer["tools"].clone()).unwrap();
    assert_eq!(session.tool_names().await, tools);
    tools
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_coordinator_binding_decides_the_profile_at_launch_and_resume() {
    let (db, _) = Db::init();
    let http = reqwest::Client::new();
    let server = db.serve("task-1", &[]).await;
    let session = server.connect().await;
    let before = tools(&server, &session).await;
    assert!(before.contains(&"delete_task_kandev".to_owned()));

    // Refused, nothing saved: a name outside the universe, a bad version,
    // both policies at once.
    let mut bad_version = binding(&[]);
    bad_version["coordinator_tool_policy"]["version"] = json!(2);
    let both = json!({
        "coordinator_tool_policy": binding(&[])["coordinator_tool_policy"],
        "managed_tool_policy": {
            "plugin_id": "acme", "installation_id": "i-1", "workspace_id": "ws-1",
            "instance_key": "main", "conversation_revision": 1, "approval_revision": 1,
            "manifest_digest": "0".repeat(64), "agent_tool_names": []
        }
    });
    for (body, message) in [
        (binding(&["delete_task_kandev"]), "delete_task_kandev"),
        (bad_version, "`version` must be 1, got 2"),
        (both, "not both"),
    ] {
        let (status, answer) = server.put(&http, PATH, body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer.to_string().contains(message), "{body}: {answer}");
    }
    assert_eq!(session.notifications(), 0);
    assert_eq!(tools(&server, &session).await, before);

    // Bound to two tools: the task is now a coordinator conversation.
    let two = ["list_tasks_kandev", "propose_task_kandev"];
    let answer = server.put_ok(&http, PATH, binding(&two)).await;
    assert_eq!(answer["changed"], true, "{answer}");
    assert_eq!(answer["profile"]["surface"], "coordinator", "{answer}");
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(tools(&server, &session).await, two);
    drop(server);

    // Served anew from the file: the stored binding again.
    let server = db.serve("task-1", &[]).await;
    let session = server.connect().await;
    assert_eq!(tools(&server, &session).await, two);

    // Cleared: back to the kanban task.
    server.put_ok(&http, PATH, json!({})).await;
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(tools(&server, &session).await, before);
}
