//! `kandev-mcp gateway --present-without-suffix`: every agent's sessions,
//! 2025-era and 2026-07-28 over streamable HTTP on 127.0.0.1, list Kandev's
//! tools without `_kandev` and call them by either name; the control API
//! keeps the full names for profiles, lists presented names for what
//! sessions see, and refuses a plugin-tool snapshot whose names would
//! collide, naming both, storing nothing and telling no session. In memory,
//! and on Redis across gateways (skipped, saying so, without
//! `redis-server`).

use crate::common::gateway::{call, grant, names, put};
use crate::common::{QUIET, Server};
use crate::gateway::{Agent, TASK, three_gateways};
use crate::gateway_plugins::{path, put_tools};
use crate::plugins::{acme, snapshot, tool};
use mcp_profiles_tests::client::CallOutcome;
use mcp_profiles_tests::redis::RedisServer;
use reqwest::Method;
use serde_json::{Value, json};

const PRESENT: &str = "--present-without-suffix";

/// `full` names as a presenting gateway lists them, sorted.
fn without_suffix(full: &[String]) -> Vec<String> {
    let mut presented: Vec<String> = full
        .iter()
        .map(|name| name.strip_suffix("_kandev").unwrap_or(name).to_owned())
        .collect();
    presented.sort();
    presented
}

/// The same listing calls of `list_tasks` by its presented and its full
/// name answer, on both of `agent`'s sessions.
async fn lists_tasks_by_either_name(agent: &Agent) {
    let arguments = Some(json!({ "workflow_id": "wf-1" }));
    let presented = agent.calls_with("list_tasks", arguments.clone()).await;
    let full = agent.calls_with("list_tasks_kandev", arguments).await;
    for outcome in &presented {
        assert!(
            matches!(outcome, CallOutcome::Ran(texts) if !texts.is_empty()),
            "{outcome:?}"
        );
    }
    assert_eq!(presented, full);
}

/// A snapshot whose `x_kandev` would be listed as `kandev_acme_x`, its
/// sibling's own name.
fn colliding() -> String {
    snapshot(
        1,
        vec![
            tool("x", &["kanban-task"]),
            tool("x_kandev", &["kanban-task"]),
        ],
    )
}

/// Whether `answer` is a 400 naming both tools of [`colliding`].
fn refused_naming_both(status: u16, answer: &Value) -> bool {
    let error = answer["error"].as_str().unwrap_or_default();
    status == 400
        && error.contains(&format!("`{}`", acme("x_kandev")))
        && error.contains(&format!("`{}`", acme("x")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_presenting_gateway_lists_names_without_the_suffix_and_calls_by_either() {
    let gateway = Server::start_gateway(&[PRESENT]).await;
    // Profiles keep the full names.
    let task = names(&put(&gateway, "alice", TASK).await);
    assert!(
        task.iter().any(|name| name == "list_tasks_kandev"),
        "{task:?}"
    );
    grant(&gateway, "alice-token", "alice").await;
    let mut alice = Agent::open(&gateway, "alice-token").await;
    let listed = without_suffix(&task);
    assert!(listed.iter().any(|name| name == "list_tasks"), "{listed:?}");
    assert!(
        !listed.iter().any(|name| name.ends_with("_kandev")),
        "{listed:?}"
    );
    alice.lists(&listed).await;
    lists_tasks_by_either_name(&alice).await;

    // Refused, naming both: nothing stored, nobody told.
    let (status, answer) = put_tools(&gateway, "alice", &colliding()).await;
    assert!(refused_naming_both(status, &answer), "{status}: {answer}");
    let (status, stored) = call(&gateway, Method::GET, &path("alice"), None).await;
    assert_eq!((status, &stored["generation"]), (200, &Value::Null));
    let (_, agent) = call(&gateway, Method::GET, "/api/v1/agents/alice", None).await;
    assert_eq!(agent["version"], 1);
    alice.heard_nothing(0).await;

    // A plugin tool's name loses the suffix too, in the answer and the list.
    let echo = snapshot(2, vec![tool("echo_kandev", &["kanban-task"])]);
    let (status, answer) = put_tools(&gateway, "alice", &echo).await;
    assert_eq!(status, 200, "{answer}");
    let mut with_echo = listed.clone();
    with_echo.push(acme("echo"));
    with_echo.sort();
    assert_eq!(names(&answer), with_echo);
    alice.heard_once(1).await;
    tokio::time::sleep(QUIET).await;
    assert_eq!(alice.legacy.notifications(), 1, "a second list_changed");
    alice.lists(&with_echo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presenting_gateways_on_redis_present_alike_and_refuse_a_colliding_snapshot() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let gateways = three_gateways(&redis, "30000", &[PRESENT]).await;
    let task = names(&put(&gateways[0], "alice", TASK).await);
    grant(&gateways[1], "alice-token", "alice").await;
    let mut alice = Vec::new();
    for gateway in &gateways {
        let agent = Agent::open(gateway, "alice-token").await;
        agent.lists(&without_suffix(&task)).await;
        alice.push(agent);
    }
    lists_tasks_by_either_name(&alice[2]).await;

    // Refused through any gateway before Redis keeps it.
    let (status, answer) = put_tools(&gateways[2], "alice", &colliding()).await;
    assert!(refused_naming_both(status, &answer), "{status}: {answer}");
    for gateway in &gateways {
        let (_, agent) = call(gateway, Method::GET, "/api/v1/agents/alice", None).await;
        assert_eq!(agent["version"], 1);
    }
    for agent in &mut alice {
        agent.heard_nothing(0).await;
    }
}
