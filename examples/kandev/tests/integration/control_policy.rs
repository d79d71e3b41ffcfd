//! The policy and kill-switch routes of the control API against a running
//! `kandev-mcp serve --http --control` process, with a real rmcp client over
//! streamable HTTP: one `tools/list_changed` per change, none when nothing
//! changed, refused bodies change nothing, removed tools are refused with
//! -32602, and a mode switch or a stored-task re-resolve keeps the policy.

use crate::common::{BEARER, Db, LIMIT, QUIET, Server};
use mcp_profiles_tests::client::{Session, disabled, refused};
use reqwest::Method;
use serde_json::{Value, json};

const POLICY: &str = "/api/v1/mcp/policy";
const KILL_SWITCH: &str = "/api/v1/mcp/kill-switch";

/// `GET path` with the right token; panics unless it answers 200.
async fn get_ok(server: &Server, http: &reqwest::Client, path: &str) -> Value {
    let (status, answer) = server
        .control(http, Method::GET, path, Some(BEARER), None)
        .await;
    assert_eq!(status, 200, "GET {path}: {answer}");
    answer
}

/// Whether every tool named is read-only by its annotations.
fn all_read_only(tools: &[String]) -> bool {
    tools.iter().all(|tool| {
        kandev_mcp::policy::annotations(tool).and_then(|hints| hints.read_only_hint) == Some(true)
    })
}

/// The tool names of a control-API answer.
fn tools_of(answer: &Value) -> Vec<String> {
    serde_json::from_value(answer["tools"].clone()).expect("the answer lists its tools")
}

/// Sends each `(path, body, expected)`: 400 with `expected` in the error;
/// then checks that nothing changed and nothing was sent.
async fn refuse_all(
    server: &Server,
    http: &reqwest::Client,
    session: &Session,
    bodies: &[(&str, &str, &str)],
) {
    let before = server.profile(http).await;
    let heard = session.notifications();
    for (path, body, expected) in bodies {
        let (status, answer) = server
            .control(http, Method::PUT, path, Some(BEARER), Some((*body).into()))
            .await;
        let message = answer["error"].as_str().unwrap_or_default();
        assert_eq!(status, 400, "{path} {body}: {answer}");
        assert!(message.contains(expected), "{path} {body}: {message}");
    }
    assert_eq!(server.profile(http).await, before, "a refusal changed it");
    tokio::time::sleep(QUIET).await;
    assert_eq!(
        session.notifications(),
        heard,
        "a refusal sent a list_changed"
    );
}

/// Waits for the session's `n`th list_changed, then makes sure no other
/// arrives.
async fn expect_notifications(session: &Session, n: usize) {
    assert!(session.wait_for_notifications(n, LIMIT).await >= n);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), n, "one list_changed per change");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_policy_route_restricts_the_live_profile_and_a_mode_switch_keeps_it() {
    let server = Server::start().await;
    let http = reqwest::Client::new();
    let session = server.connect().await;
    let before = session.tool_names().await;
    assert_eq!(
        get_ok(&server, &http, POLICY).await,
        json!({ "policy": { "read_only": false, "no_destructive": false, "deny": [] } })
    );

    refuse_all(
        &server,
        &http,
        &session,
        &[
            (POLICY, r#"{"read_only":true,"x":1}"#, "unknown field `x`"),
            (POLICY, r#"{"readOnly":true}"#, "unknown field `readOnly`"),
            (
                POLICY,
                r#"{"read_only":true,"deny":["delete_tsk_kandev"]}"#,
                "unknown tool or tool group `delete_tsk_kandev`; did you mean `delete_task_kandev`?",
            ),
            (POLICY, r#"{"deny":["plan","plan"]}"#, "`plan` is listed twice"),
            (POLICY, r#"{"read_only":"yes"}"#, "invalid type: string"),
            (POLICY, r#"[true]"#, "expected a JSON object"),
        ],
    )
    .await;
    assert_eq!(session.tool_names().await, before);

    // Read-only: one list_changed, only read-only tools, fewer of them.
    let answer = server
        .put_ok(&http, POLICY, json!({ "read_only": true }))
        .await;
    assert_eq!(answer["changed"], true);
    assert_eq!(
        answer["policy"],
        json!({ "read_only": true, "no_destructive": false, "deny": [] })
    );
    assert_eq!(answer["profile"]["policy"], json!({ "read_only": true }));
    expect_notifications(&session, 1).await;
    let read_only = session.tool_names().await;
    assert_eq!(tools_of(&answer), read_only);
    // Exactly the read-only tools of the profile before it.
    let expected: Vec<String> = before
        .iter()
        .filter(|tool| all_read_only(std::slice::from_ref(tool)))
        .cloned()
        .collect();
    assert_eq!(read_only, expected);
    assert!(!read_only.is_empty() && read_only.len() < before.len());
    assert_eq!(
        session
            .call("delete_task_kandev", Some(json!({ "task_id": "task-1" })))
            .await,
        refused("delete_task_kandev")
    );

    // The same policy again: nothing changes, nothing is sent.
    let again = server
        .put_ok(&http, POLICY, json!({ "read_only": true }))
        .await;
    assert_eq!(again["changed"], false);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 1);

    // A legacy mode switch changes the surface and keeps the policy.
    let switched = server
        .put_ok(&http, "/api/v1/mcp/mode", json!({ "mode": "config" }))
        .await;
    assert_eq!(switched["profile"]["surface"], "configuration");
    assert_eq!(switched["profile"]["policy"], json!({ "read_only": true }));
    expect_notifications(&session, 2).await;
    let config = session.tool_names().await;
    assert!(config.contains(&"list_executors_kandev".to_owned()));
    assert!(all_read_only(&config), "{config:?}");
    // So does a provider change.
    let providers = server
        .put_ok(
            &http,
            "/api/v1/mcp/providers",
            json!({ "mcp_providers": ["github"] }),
        )
        .await;
    assert_eq!(providers["profile"]["policy"], json!({ "read_only": true }));
    assert_eq!(
        get_ok(&server, &http, POLICY).await["policy"]["read_only"],
        true
    );

    // A deny list by tool and group name; then no policy at all.
    let denied = server
        .put_ok(
            &http,
            POLICY,
            json!({ "deny": ["list_executors_kandev", "configuration-workflows"] }),
        )
        .await;
    assert_eq!(denied["changed"], true);
    expect_notifications(&session, 3).await;
    let tools = session.tool_names().await;
    assert!(!tools.iter().any(|tool| tool == "list_executors_kandev"));
    assert!(!tools.iter().any(|tool| tool == "create_workflow_kandev"));
    assert!(
        tools
            .iter()
            .any(|tool| tool == "delete_executor_profile_kandev")
    );
    server.put_ok(&http, POLICY, json!({})).await;
    expect_notifications(&session, 4).await;
    assert!(
        session
            .tool_names()
            .await
            .contains(&"create_workflow_kandev".to_owned())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kill_switch_route_disables_tools_once_and_turns_them_back_on() {
    let server = Server::start().await;
    let http = reqwest::Client::new();
    let session = server.connect().await;
    let before = session.tool_names().await;
    assert_eq!(
        get_ok(&server, &http, KILL_SWITCH).await,
        json!({ "deny": [] })
    );

    refuse_all(
        &server,
        &http,
        &session,
        &[
            (KILL_SWITCH, "{}", "missing field `deny`"),
            (KILL_SWITCH, r#"{"deny":[],"x":1}"#, "unknown field `x`"),
            (
                KILL_SWITCH,
                r#"{"deny":["delete_task_kandv"]}"#,
                "unknown tool or tool group `delete_task_kandv`; did you mean `delete_task_kandev`?",
            ),
            (KILL_SWITCH, r#"{"deny":"plan"}"#, "invalid type: string"),
            (
                KILL_SWITCH,
                r#"{"deny":["plan","plan"]}"#,
                "`plan` is listed twice",
            ),
        ],
    )
    .await;
    assert_eq!(
        get_ok(&server, &http, KILL_SWITCH).await,
        json!({ "deny": [] })
    );

    let killed = server
        .put_ok(
            &http,
            KILL_SWITCH,
            json!({ "deny": ["plan", "delete_task_kandev"] }),
        )
        .await;
    assert_eq!(killed["changed"], true);
    assert_eq!(killed["deny"], json!(["delete_task_kandev", "plan"]));
    expect_notifications(&session, 1).await;
    let tools = session.tool_names().await;
    assert_eq!(tools_of(&killed), tools);
    for gone in [
        "delete_task_kandev",
        "create_task_plan_kandev",
        "get_task_plan_kandev",
    ] {
        assert!(!tools.iter().any(|tool| tool == gone), "{gone} is listed");
    }
    assert_eq!(
        session
            .call("delete_task_kandev", Some(json!({ "task_id": "task-1" })))
            .await,
        disabled("delete_task_kandev")
    );
    // The operator's list is not the profile's policy.
    assert_eq!(
        get_ok(&server, &http, POLICY).await["policy"]["deny"],
        json!([])
    );
    assert_eq!(
        get_ok(&server, &http, KILL_SWITCH).await,
        json!({ "deny": ["delete_task_kandev", "plan"] })
    );

    // The same list again: nothing sent.
    let again = server
        .put_ok(
            &http,
            KILL_SWITCH,
            json!({ "deny": ["delete_task_kandev", "plan"] }),
        )
        .await;
    assert_eq!(again["changed"], false);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 1);

    // Back on: one more list_changed, the tools as before.
    let cleared = server
        .put_ok(&http, KILL_SWITCH, json!({ "deny": [] }))
        .await;
    assert_eq!(cleared["changed"], true);
    expect_notifications(&session, 2).await;
    assert_eq!(session.tool_names().await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_task_re_resolve_keeps_the_policy_serve_was_given() {
    let (db, _) = Db::init();
    let http = reqwest::Client::new();
    // task-2 is an autopilot child: it asks its parent, not the user.
    let server = db
        .serve(
            "task-2",
            &[
                "--policy",
                "no-destructive",
                "--deny",
                "ask_user_question_kandev",
            ],
        )
        .await;
    let session = server.connect().await;
    let tools = session.tool_names().await;
    assert!(tools.contains(&"ask_parent_question_kandev".to_owned()));
    assert!(!tools.contains(&"delete_task_kandev".to_owned()));
    let policy = json!({ "no_destructive": true, "deny": ["ask_user_question_kandev"] });
    assert_eq!(server.profile(&http).await["profile"]["policy"], policy);

    // Off autopilot: the stored row now resolves to user-question, which
    // the kept deny list still removes.
    let answer = server
        .put_ok(
            &http,
            "/api/v1/tasks/task-2/autopilot",
            json!({ "autopilot": false }),
        )
        .await;
    assert_eq!(answer["changed"], true);
    assert_eq!(answer["profile"]["capabilities"], json!(["user-question"]));
    assert_eq!(answer["profile"]["policy"], policy);
    expect_notifications(&session, 1).await;
    let tools = session.tool_names().await;
    for gone in [
        "ask_parent_question_kandev",
        "ask_user_question_kandev",
        "delete_task_kandev",
    ] {
        assert!(!tools.iter().any(|tool| tool == gone), "{gone} is listed");
    }
    assert!(tools.contains(&"list_tasks_kandev".to_owned()));
}
