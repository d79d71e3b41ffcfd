//! Policies and the operator's kill switch, served over in-process duplex
//! pipes to real rmcp clients: a policy only removes (from the tools' own
//! annotations and names), a removed tool is refused with -32602, and each
//! change sends exactly one `tools/list_changed` to each session whose
//! visible set changed and none to any other.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_profiles::rmcp::model::{CallToolResult, JsonObject, ToolAnnotations};
use mcp_profiles::{
    Catalog, DenyList, KillSwitch, Policy, ProfileContext, ProfileController, Rule, RuntimeTool,
};
use mcp_profiles_tests::client::{CallOutcome, Session, disabled, refused, serve_duplex};
use mcp_profiles_tests::contexts::asking;
use mcp_profiles_tests::modern::{LIMIT, QUIET};
use mcp_profiles_tests::{Surface, TaskServer};
use serde_json::json;

type Context = ProfileContext<TaskServer>;

fn deny(names: &[&str]) -> DenyList<TaskServer> {
    DenyList::new(names).expect("known names")
}

fn read_only() -> Policy<TaskServer> {
    Policy::none().with_read_only(true)
}

/// A session of `controller`'s, served `handler`.
async fn connect(controller: &ProfileController<TaskServer>, handler: &TaskServer) -> Session {
    Session::connect(serve_duplex(controller.server(handler.clone()))).await
}

/// Each session heard exactly its expected count of list_changed: waits
/// for each count, then listens a while longer to prove none follows.
async fn expect_heard(sessions: &[&Session], expected: &[usize]) {
    for (session, expected) in sessions.iter().zip(expected) {
        session.wait_for_notifications(*expected, LIMIT).await;
    }
    tokio::time::sleep(QUIET).await;
    let heard: Vec<usize> = sessions.iter().map(|s| s.notifications()).collect();
    assert_eq!(heard, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_lists_only_read_only_tools_and_refuses_the_rest() {
    // The issue's JSON form, decoded strictly.
    let context = Context::from_json(
        r#"{"surface":"kanban-task","capabilities":["user-question"],"policy":{"read_only":true}}"#,
    )
    .unwrap();
    let handler = TaskServer::default();
    let controller = ProfileController::new(context);
    let session = connect(&controller, &handler).await;

    assert_eq!(
        session.tool_names().await,
        ["list_tasks", "wait_for_release"]
    );
    // Not annotated read-only: refused like any tool outside the profile,
    // and no handler runs.
    for tool in ["create_task", "ask_user_question"] {
        assert_eq!(session.call(tool, None).await, refused(tool));
        assert_eq!(handler.calls(tool), 0);
    }
    let ran = session
        .call("list_tasks", Some(json!({"workflow_id": "w1"})))
        .await;
    assert_eq!(ran, CallOutcome::Ran(vec!["w1".into()]));

    // No-destructive also keeps tools that only add.
    controller.replace(asking().with_policy(Policy::none().with_no_destructive(true)));
    assert_eq!(
        session.tool_names().await,
        ["create_task", "list_tasks", "wait_for_release"]
    );
    assert_eq!(
        session.call("create_task", None).await,
        CallOutcome::Ran(vec![])
    );
    assert_eq!(
        session.call("ask_user_question", None).await,
        refused("ask_user_question")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changing_only_the_policy_notifies_once_and_not_at_all_when_nothing_visible_changes() {
    let handler = TaskServer::default();
    let controller = ProfileController::new(asking());
    let (first, second) = (
        connect(&controller, &handler).await,
        connect(&controller, &handler).await,
    );

    let change = controller.replace(asking().with_policy(read_only()));
    assert_eq!(change.diff.removed, ["ask_user_question", "create_task"]);
    assert_eq!(change.notified_sessions, 2);
    expect_heard(&[&first, &second], &[1, 1]).await;

    // Denying a tool the policy already removed changes the context, not
    // what anyone sees: nobody is told.
    let denying = read_only().with_deny(deny(&["create_task", "user-question"]));
    let change = controller.replace(asking().with_policy(denying));
    assert!(!change.changed());
    assert_eq!(change.notified_sessions, 0);
    assert_eq!(controller.current().context().policy(), denying);

    // Denying a group removes its tools, once more one notification each.
    let change =
        controller.replace(asking().with_policy(Policy::none().with_deny(deny(&["kanban-task"]))));
    assert_eq!(change.diff.added, ["ask_user_question"]);
    assert_eq!(change.diff.removed, ["list_tasks", "wait_for_release"]);
    assert_eq!(first.tool_names().await, ["ask_user_question"]);
    assert_eq!(
        first
            .call("list_tasks", Some(json!({"workflow_id": "w"})))
            .await,
        refused("list_tasks")
    );
    expect_heard(&[&first, &second], &[2, 2]).await;
    assert_eq!(handler.calls("list_tasks"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kill_switch_notifies_only_the_sessions_whose_tools_change() {
    let handler = TaskServer::default();
    let switch = KillSwitch::new();
    let kanban = ProfileController::with_kill_switch(asking(), &switch);
    let configuration =
        ProfileController::with_kill_switch(Context::new(Surface::Configuration), &switch);
    let elsewhere = ProfileController::new(asking()); // its own switch
    let (a, b) = (
        connect(&kanban, &handler).await,
        connect(&kanban, &handler).await,
    );
    let c = connect(&configuration, &handler).await;
    let d = connect(&elsewhere, &handler).await;
    let all = [&a, &b, &c, &d];

    // `create_task` is served on kanban-task only.
    let change = switch.set(deny(&["create_task"]));
    assert_eq!(change.replacements.len(), 1);
    assert_eq!(change.unchanged, 1);
    assert_eq!(change.notified_sessions(), 2);
    expect_heard(&all, &[1, 1, 0, 0]).await;
    assert_eq!(a.call("create_task", None).await, disabled("create_task"));
    assert_eq!(handler.calls("create_task"), 0);
    assert!(!b.tool_names().await.contains(&"create_task".to_owned()));
    // A tool outside the profile anyway keeps the ordinary refusal.
    assert_eq!(c.call("create_task", None).await, refused("create_task"));
    // Another switch's controller serves it still.
    assert_eq!(d.call("create_task", None).await, CallOutcome::Ran(vec![]));

    // `list_tasks` is served by both controllers (two groups, one name).
    let change = switch.set(deny(&["create_task", "list_tasks"]));
    assert_eq!(change.replacements.len(), 2);
    assert_eq!(change.notified_sessions(), 3);
    expect_heard(&all, &[2, 2, 1, 0]).await;
    let args = Some(json!({"workflow_id": "w"}));
    assert_eq!(
        c.call("list_tasks", args.clone()).await,
        disabled("list_tasks")
    );

    // The same list again: nothing for anyone.
    assert_eq!(
        switch
            .set(deny(&["list_tasks", "create_task"]))
            .notified_sessions(),
        0
    );

    // Back on: every session that lost a tool gets it back, once.
    let change = switch.set(DenyList::empty());
    assert_eq!(change.notified_sessions(), 3);
    expect_heard(&all, &[3, 3, 2, 0]).await;
    assert_eq!(
        c.call("list_tasks", args).await,
        CallOutcome::Ran(vec!["w".into()])
    );
    assert_eq!(a.call("create_task", None).await, CallOutcome::Ran(vec![]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_call_of_a_killed_tool_finishes_and_new_calls_are_refused() {
    let handler = TaskServer::default();
    let controller = ProfileController::new(asking());
    let session = Arc::new(connect(&controller, &handler).await);
    let running = {
        let session = Arc::clone(&session);
        tokio::spawn(async move { session.call("wait_for_release", None).await })
    };
    tokio::time::timeout(LIMIT, handler.wait_for_calls("wait_for_release_started", 1))
        .await
        .expect("the call starts");

    let change = controller.kill_switch().set(deny(&["kanban-task"]));
    assert_eq!(
        change.replacements[0].diff.removed,
        ["create_task", "list_tasks", "wait_for_release"]
    );
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(
        session.call("wait_for_release", None).await,
        disabled("wait_for_release")
    );
    handler.release(1);
    let outcome = tokio::time::timeout(LIMIT, running).await.unwrap().unwrap();
    assert_eq!(outcome, CallOutcome::Ran(vec![]));
    assert_eq!(handler.calls("wait_for_release"), 1);

    // The operator's refusal is clipped like every echo of a client's string.
    let long = "x".repeat(300);
    let CallOutcome::Refused(code, message) = session.call(&long, None).await else {
        panic!("an unknown tool ran");
    };
    assert_eq!(code, -32602);
    assert!(message.len() < 150, "{message}");
}

/// A runtime tool that counts its calls, with `annotations`.
fn plugin(
    name: &str,
    annotations: Option<ToolAnnotations>,
    calls: &Arc<AtomicUsize>,
) -> RuntimeTool<TaskServer> {
    let calls = Arc::clone(calls);
    let schema: JsonObject = json!({"type": "object"}).as_object().cloned().unwrap();
    let tool = RuntimeTool::new(
        name,
        "A plugin tool",
        schema,
        Rule::always(),
        move |_, _| {
            calls.fetch_add(1, Ordering::SeqCst);
            async { Ok(CallToolResult::success(vec![])) }
        },
    );
    match annotations {
        Some(annotations) => tool.with_annotations(annotations),
        None => tool,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runtime_tools_obey_the_policy_through_their_own_annotations() {
    let handler = TaskServer::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let catalog = Catalog::new(
        "gen-1",
        1,
        vec![
            plugin(
                "plugin_read",
                Some(ToolAnnotations::new().read_only(true)),
                &calls,
            ),
            plugin(
                "plugin_add",
                Some(ToolAnnotations::new().destructive(false)),
                &calls,
            ),
            plugin("plugin_plain", None, &calls),
        ],
    )
    .unwrap();
    let context = Context::new(Surface::Configuration);
    let controller = ProfileController::new(context.with_policy(read_only()));
    controller.install(&catalog);
    let session = connect(&controller, &handler).await;
    assert_eq!(session.tool_names().await, ["list_tasks", "plugin_read"]);
    assert_eq!(
        session.call("plugin_plain", Some(json!({}))).await,
        refused("plugin_plain")
    );
    assert_eq!(
        session.call("plugin_read", Some(json!({}))).await,
        CallOutcome::Ran(vec![])
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // Loosening to no-destructive shows the additive plugin tool: one
    // notification, and the replacement says which runtime tool came.
    let change = controller.replace(context.with_policy(Policy::none().with_no_destructive(true)));
    assert_eq!(change.runtime.added, ["plugin_add"]);
    assert!(change.diff.is_empty());
    expect_heard(&[&session], &[1]).await;
    assert_eq!(
        session.tool_names().await,
        ["list_tasks", "plugin_add", "plugin_read"]
    );

    // Without a policy the unannotated one joins too.
    controller.replace(context);
    expect_heard(&[&session], &[2]).await;
    assert_eq!(
        session.call("plugin_plain", Some(json!({}))).await,
        CallOutcome::Ran(vec![])
    );
}
