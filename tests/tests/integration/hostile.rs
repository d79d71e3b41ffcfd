//! Hidden tools never run, and no MCP request changes the profile, in every
//! valid context of the fixture vocabulary: a real rmcp client over duplex
//! calls every tool of the registry (the hidden ones with and without
//! arguments), invented names and methods, initialises again, and sends
//! notifications only a server should; the per-tool call counters of
//! `TaskServer` then match exactly the calls that were allowed.

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::client::{CallOutcome, Session, refused};
use rmcp::ServiceExt;
use rmcp::model::{ClientNotification, ClientRequest, ProtocolVersion};
use serde_json::{Value, json};

/// How long a test waits for something that must happen.
const LIMIT: Duration = Duration::from_secs(10);
/// How long a test waits to be sure something does not happen.
const QUIET: Duration = Duration::from_millis(500);

/// Every tool name of the registry, sorted, without repeats.
fn every_tool() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = TaskServer::registry()
        .groups()
        .iter()
        .flat_map(|group| group.tools().iter().copied())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Names no group declares, some close to real ones.
const INVENTED: [&str; 10] = [
    "set_profile",
    "replace_profile",
    "",
    " ",
    "ask_parent_question ",
    "ASK_PARENT_QUESTION",
    "get_pull_request\0",
    "../set_task_title",
    "ask_parent",
    "*",
];

/// Requests and notifications that try to change the profile some other way.
fn hostile_requests() -> Vec<Value> {
    let version = ProtocolVersion::LATEST_WITH_INITIALIZE.to_string();
    vec![
        json!({ "method": "profile/set", "params": { "surface": "external" } }),
        json!({ "method": "profile/replace", "params": { "surface": "configuration", "capabilities": ["task-title"] } }),
        json!({ "method": "tools/enable", "params": { "name": "get_pull_request" } }),
        json!({ "method": "notifications/tools/list_changed", "params": {} }),
        json!({ "method": "providers/set", "params": { "mcp_providers": ["github", "gitlab"] } }),
        json!({ "method": "", "params": {} }),
        json!({ "method": "initialize", "params": { "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "hostile", "version": "0" } } }),
        json!({ "method": "logging/setLevel", "params": { "level": "debug" } }),
        json!({ "method": "resources/read", "params": { "uri": "profile://current" } }),
        json!({ "method": "prompts/get", "params": { "name": "set_profile" } }),
        json!({ "method": "completion/complete", "params": { "ref": { "type": "ref/prompt", "name": "x" }, "argument": { "name": "surface", "value": "ext" } } }),
    ]
}

fn hostile_notifications() -> Vec<Value> {
    vec![
        json!({ "method": "notifications/initialized" }),
        json!({ "method": "notifications/tools/list_changed" }),
        json!({ "method": "notifications/roots/list_changed" }),
        json!({ "method": "notifications/cancelled", "params": { "requestId": 1 } }),
        json!({ "method": "notifications/profile/changed", "params": { "surface": "external" } }),
    ]
}

/// Arguments a handler would accept, so that a call that ran would count.
fn arguments_for(tool: &str) -> Option<Value> {
    (tool == "list_tasks").then(|| json!({ "workflow_id": "wf-1" }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_tools_never_run_and_no_request_changes_the_profile_in_any_context() {
    let contexts: Vec<ProfileContext<TaskServer>> = ProfileContext::all().collect();
    let controller = ProfileController::new(contexts[0]);
    let handler = TaskServer::default();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = controller.server(handler.clone());
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    let session = Session::connect(client_io).await;

    let tools = every_tool();
    let mut expected: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut effective, mut hidden_calls, mut allowed_calls, mut hostile) = (0, 0, 0, 0);
    for context in &contexts {
        if controller.replace(*context).changed() {
            effective += 1;
        }
        assert_eq!(
            session.wait_for_notifications(effective, LIMIT).await,
            effective
        );
        let profile = controller.current();
        for tool in &tools {
            if profile.contains(tool) {
                if *tool == "wait_for_release" {
                    handler.release(1);
                    *expected.entry("wait_for_release_started").or_default() += 1;
                }
                let outcome = session.call(tool, arguments_for(tool)).await;
                assert!(
                    matches!(outcome, CallOutcome::Ran(_)),
                    "{tool}: {outcome:?}"
                );
                *expected.entry(tool).or_default() += 1;
                allowed_calls += 1;
            } else {
                for arguments in [None, Some(json!({ "workflow_id": "wf-1" }))] {
                    let outcome = session.call(tool, arguments).await;
                    assert_eq!(outcome, refused(tool), "{context}");
                    hidden_calls += 1;
                }
            }
        }
        for name in INVENTED {
            assert_eq!(session.call(name, None).await, refused(name));
            hidden_calls += 1;
        }
        for message in hostile_requests() {
            let request: ClientRequest = serde_json::from_value(message.clone())
                .unwrap_or_else(|err| panic!("{message}: {err}"));
            // Whatever it answers; only what it changes matters.
            let _ = tokio::time::timeout(LIMIT, session.service.send_request(request))
                .await
                .unwrap_or_else(|_| panic!("{message} got no answer"));
            hostile += 1;
        }
        for message in hostile_notifications() {
            let notification: ClientNotification = serde_json::from_value(message.clone())
                .unwrap_or_else(|err| panic!("{message}: {err}"));
            let _ = session.service.send_notification(notification).await;
            hostile += 1;
        }
        assert_eq!(
            controller.current().context(),
            context,
            "an MCP request changed the profile"
        );
    }
    tokio::time::sleep(QUIET).await;
    assert_eq!(
        session.notifications(),
        effective,
        "a request sent a list_changed"
    );
    for tool in tools.iter().copied().chain(["wait_for_release_started"]) {
        assert_eq!(
            handler.calls(tool),
            expected.get(tool).copied().unwrap_or(0),
            "{tool} ran other than when it was in the profile"
        );
    }
    eprintln!(
        "hostile fixture: {} contexts, {effective} effective replacements; {allowed_calls} \
         allowed calls ran, {hidden_calls} calls of hidden or invented tools refused and never \
         ran; {hostile} other hostile requests and notifications changed nothing",
        contexts.len()
    );
}
