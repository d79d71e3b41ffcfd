//! `kandev-mcp serve --tool-search` and `gateway --tool-search`: a
//! configuration session lists the question tool and search's two, finds
//! Kandev's configuration tools by search and calls them through the proxy
//! on the board; a task session keeps its full list; and a profile change
//! through the control API changes what search finds at once.

use mcp_profiles_tests::client::{
    CallOutcome, List, Session, found_tools, http_transport, refused,
};
use serde_json::json;

use crate::common::gateway::{grant, put};
use crate::common::{LIMIT, Server};

async fn search(session: &Session, query: &str) -> Vec<String> {
    found_tools(
        &session
            .call("search_tools", Some(json!({ "query": query })))
            .await,
    )
}

#[tokio::test]
async fn serve_searches_the_configuration_surface_and_keeps_task_lists_whole() {
    let server = Server::start_with_args(&[
        "--tool-search",
        "--profile",
        r#"{"surface":"configuration","capabilities":["user-question"]}"#,
    ])
    .await;
    let session = server.connect().await;
    assert_eq!(
        session.tool_names().await,
        ["ask_user_question_kandev", "call_tool", "search_tools"]
    );
    let workflows = search(&session, "create a workflow").await;
    assert_eq!(workflows[0], "create_workflow_kandev", "{workflows:?}");
    // Through the proxy, on the demo board, as a direct call answers.
    let proxied = session
        .call(
            "call_tool",
            Some(json!({"name": "list_workflows_kandev", "arguments": {}})),
        )
        .await;
    assert!(matches!(&proxied, CallOutcome::Ran(_)), "{proxied:?}");
    assert_eq!(
        proxied,
        session.call("list_workflows_kandev", Some(json!({}))).await
    );
    // A task tool is outside this profile, by search or by proxy.
    assert!(
        !search(&session, "create_task_plan_kandev")
            .await
            .contains(&"create_task_plan_kandev".to_owned())
    );
    assert_eq!(
        session
            .call(
                "call_tool",
                Some(json!({"name": "create_task_plan_kandev", "arguments": {}}))
            )
            .await,
        refused("create_task_plan_kandev")
    );

    // The backend moves the session to a task: its full list, one list_changed.
    let http = reqwest::Client::new();
    server
        .replace(
            &http,
            r#"{"surface":"kanban-task","capabilities":["user-question"]}"#,
        )
        .await;
    assert_eq!(
        session
            .wait_for_notifications_of(List::Tools, 1, LIMIT)
            .await,
        1
    );
    let listed = session.tool_names().await;
    assert!(
        listed.contains(&"create_task_plan_kandev".to_owned()),
        "{listed:?}"
    );
    assert!(!listed.contains(&"search_tools".to_owned()), "{listed:?}");
}

#[tokio::test]
async fn the_gateway_searches_each_agents_profile() {
    let gateway = Server::start_gateway(&["--tool-search"]).await;
    put(&gateway, "alice", r#"{"surface":"external"}"#).await;
    grant(&gateway, "alice-token", "alice").await;
    let alice = Session::connect(http_transport(&gateway.mcp, Some("alice-token"))).await;
    assert_eq!(alice.tool_names().await, ["call_tool", "search_tools"]);
    let found = search(&alice, "create a task").await;
    assert!(
        found.contains(&"create_task_kandev".to_owned()),
        "{found:?}"
    );
    // A change through the control API: what search finds changes at once;
    // the listed tools did not change, so no list_changed.
    put(&gateway, "alice", r#"{"surface":"configuration"}"#).await;
    let after = search(&alice, "create a workflow").await;
    assert_eq!(after[0], "create_workflow_kandev", "{after:?}");
    assert_eq!(alice.notifications_of(List::Tools), 0);
}
