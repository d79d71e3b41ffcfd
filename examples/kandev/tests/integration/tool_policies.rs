//! Kandev's per-session tool policies on the wire, over streamable HTTP
//! with real rmcp clients of both protocol eras: a coordinator session
//! whose binding widens from the phase-1 seven to all 13 hears exactly one
//! `tools/list_changed` and then lists exactly the 13; a managed
//! conversation lists only the plugin tools its policy allows, and none
//! without a policy. Bad bindings are refused and change nothing.

use crate::common::{BEARER, LIMIT, QUIET, Server};
use crate::coordinator::{ALL, PHASE_ONE};
use crate::plugins::{acme, snapshot, tool};
use mcp_profiles_tests::modern::{ModernSession, expect_one_list_changed, expect_silence};
use reqwest::Method;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::Value;

/// A coordinator context bound to `tools` at `revision`.
fn bound(tools: &[&str], revision: u32) -> String {
    let names: Vec<String> = tools.iter().map(|name| format!("\"{name}\"")).collect();
    format!(
        r#"{{"surface":"coordinator","coordinator_tool_policy":{{"version":1,
        "coordinator_id":"coordinator-1","workspace_id":"ws-1","conversation_task_id":"task-1",
        "policy_revision":{revision},"tool_names":[{}]}}}}"#,
        names.join(",")
    )
}

fn sorted(names: impl IntoIterator<Item = impl Into<String>>) -> Vec<String> {
    let mut names: Vec<String> = names.into_iter().map(Into::into).collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coordinator_binding_widened_to_all_thirteen_notifies_once() {
    let server = Server::start_with_args(&["--profile", &bound(&PHASE_ONE, 1)]).await;
    let http = reqwest::Client::new();
    let legacy = server.connect().await;
    let modern =
        ModernSession::connect(StreamableHttpClientTransport::from_uri(server.mcp.clone())).await;
    let mut events = modern.subscribe().await;
    assert_eq!(legacy.tool_names().await, sorted(PHASE_ONE));
    assert_eq!(modern.tool_names().await, sorted(PHASE_ONE));

    let all: Vec<&str> = ALL.to_vec();
    let answer = server.replace(&http, &bound(&all, 2)).await;
    assert_eq!(answer["changed"], true, "{answer}");
    expect_one_list_changed(&mut events).await;
    assert_eq!(legacy.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(legacy.tool_names().await, sorted(all.clone()));
    assert_eq!(modern.tool_names().await, sorted(all.clone()));

    // A new revision of the same names changes nothing a client sees.
    server.replace(&http, &bound(&all, 3)).await;
    expect_silence(&mut events).await;

    // A name outside the coordinator's universe: refused, nothing changed.
    let (status, answer) = server
        .control(
            &http,
            Method::PUT,
            "/api/v1/mcp/profile",
            Some(BEARER),
            Some(bound(&["delete_task_kandev"], 4)),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    let message = answer.to_string();
    assert!(message.contains("delete_task_kandev"), "{message}");
    assert!(message.contains("coordinator_tool_policy"), "{message}");
    tokio::time::sleep(QUIET).await;
    assert_eq!(legacy.notifications(), 1);
    assert_eq!(legacy.tool_names().await, sorted(all));
    assert_eq!(modern.unsolicited(), 0);
}

const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A managed conversation of plugin `acme` allowed `locals`.
fn managed(locals: &[&str]) -> String {
    let names: Vec<String> = locals.iter().map(|name| format!("\"{name}\"")).collect();
    format!(
        r#"{{"surface":"managed-conversation","managed_tool_policy":{{"plugin_id":"acme",
        "installation_id":"install-1","workspace_id":"ws-1","instance_key":"main",
        "conversation_revision":1,"approval_revision":1,"manifest_digest":"{DIGEST}",
        "agent_tool_names":[{}]}}}}"#,
        names.join(",")
    )
}

async fn install_three(server: &Server, http: &reqwest::Client) {
    let surfaces = ["kanban-task", "managed-conversation"];
    let body = snapshot(
        1,
        vec![
            tool("summarise", &surfaces),
            tool("file_issue", &surfaces),
            tool("search", &surfaces),
        ],
    );
    let (status, answer) = server
        .control(
            http,
            Method::PUT,
            "/api/v1/mcp/plugin-tools",
            Some(BEARER),
            Some(body),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_managed_conversation_lists_only_its_allowed_plugin_tools() {
    let server = Server::start_with_args(&["--profile", &managed(&["summarise", "search"])]).await;
    let http = reqwest::Client::new();
    install_three(&server, &http).await;
    let legacy = server.connect().await;
    let modern =
        ModernSession::connect(StreamableHttpClientTransport::from_uri(server.mcp.clone())).await;
    // No built-in group is on a managed conversation: only the allowed two.
    let allowed = sorted([acme("search"), acme("summarise")]);
    assert_eq!(legacy.tool_names().await, allowed);
    assert_eq!(modern.tool_names().await, allowed);
    let refused = legacy
        .call(&acme("file_issue"), Some(serde_json::json!({"text": "x"})))
        .await;
    assert!(
        matches!(
            &refused,
            mcp_profiles_tests::client::CallOutcome::Refused(-32602, _)
        ),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_managed_conversation_without_a_policy_sees_no_plugin_tool() {
    let server =
        Server::start_with_args(&["--profile", r#"{"surface":"managed-conversation"}"#]).await;
    let http = reqwest::Client::new();
    install_three(&server, &http).await;
    let legacy = server.connect().await;
    assert_eq!(legacy.tool_names().await, Vec::<String>::new());
    // The same plugin tools on a kanban task: all three.
    let answer: Value = server.replace(&http, r#"{"surface":"kanban-task"}"#).await;
    let tools = answer["tools"].as_array().expect("tools").len();
    assert!(tools > 3, "{answer}");
    for local in ["summarise", "file_issue", "search"] {
        assert!(legacy.tool_names().await.contains(&acme(local)));
    }
}
