//! The operator's kill switch through `kandev-mcp gateway`: three gateway
//! processes on one real `redis-server`, agents on different profiles with
//! a 2025-era session and a 2026-07-28 subscriber on each gateway. A list
//! put through one gateway reaches every session whose visible tools it
//! changes, once, on every gateway, and no other; a killed tool's calls are
//! refused; off again, the tools come back. Its refusals are checked in
//! memory. The Redis test is skipped, saying so, without `redis-server`.

use crate::common::gateway::{call, grant, names, put};
use crate::common::{QUIET, Server};
use crate::gateway::{Agent, OFFICE, TASK, three_gateways};
use mcp_profiles::Vocabulary;
use mcp_profiles_tests::client::{CallOutcome, disabled};
use mcp_profiles_tests::redis::RedisServer;
use reqwest::Method;
use serde_json::{Value, json};

const PATH: &str = "/api/v1/kill-switch";
/// A tool of the task profile only.
const REVIEW: &str = "publish_review_findings_kandev";
/// A group of both the task and the office profile.
const RELATED: &str = "related-tasks";

/// `PUT /api/v1/kill-switch` of `deny` at `version`; status and answer.
async fn put_kill(gateway: &Server, deny: &[&str], version: u64) -> (u16, Value) {
    let body = json!({ "deny": deny, "version": version });
    call(gateway, Method::PUT, PATH, Some(body)).await
}

/// `tools` without the `killed` ones.
fn without(tools: &[String], killed: &[&str]) -> Vec<String> {
    tools
        .iter()
        .filter(|tool| !killed.contains(&tool.as_str()))
        .cloned()
        .collect()
}

/// The tools of the `related-tasks` group.
fn related_tools() -> Vec<&'static str> {
    let registry = kandev_mcp::Kandev::registry();
    let group = registry.group(RELATED).expect("the group is declared");
    group.tools().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_switch_put_through_one_gateway_reaches_each_affected_session_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let gateways = three_gateways(&redis, "5000", &[]).await;
    let task = names(&put(&gateways[0], "alice", TASK).await);
    let office = names(&put(&gateways[0], "bob", OFFICE).await);
    assert!(task.iter().any(|tool| tool == REVIEW));
    assert!(!office.iter().any(|tool| tool == REVIEW));
    grant(&gateways[0], "alice-token", "alice").await;
    grant(&gateways[0], "bob-token", "bob").await;
    let (mut alice, mut bob) = (Vec::new(), Vec::new());
    for gateway in &gateways {
        alice.push(Agent::open(gateway, "alice-token").await);
        bob.push(Agent::open(gateway, "bob-token").await);
    }
    for gateway in &gateways {
        let (status, answer) = call(gateway, Method::GET, PATH, None).await;
        assert_eq!((status, answer), (200, json!({"deny": [], "version": 0})));
    }

    // A tool only alice's profile has: every alice session hears once, on
    // every gateway; bob's sessions hear nothing.
    let (status, answer) = put_kill(&gateways[1], &[REVIEW], 0).await;
    assert_eq!(
        (status, answer),
        (200, json!({"deny": [REVIEW], "version": 1}))
    );
    for agent in &mut alice {
        agent.heard_once(1).await;
    }
    tokio::time::sleep(QUIET).await;
    for agent in &mut bob {
        agent.heard_nothing(0).await;
        agent.lists(&office).await;
    }
    for agent in &alice {
        assert_eq!(agent.legacy.notifications(), 1, "a second list_changed");
        agent.lists(&without(&task, &[REVIEW])).await;
        assert_eq!(
            agent.calls(REVIEW).await,
            [disabled(REVIEW), disabled(REVIEW)]
        );
    }
    assert_eq!(
        disabled(REVIEW),
        CallOutcome::Refused(
            -32602,
            format!("tool `{REVIEW}` is disabled by the operator")
        )
    );
    for gateway in &gateways {
        let (status, answer) = call(gateway, Method::GET, PATH, None).await;
        assert_eq!(
            (status, answer),
            (200, json!({"deny": [REVIEW], "version": 1}))
        );
    }

    // Refused puts, through any gateway, change nothing and notify nobody.
    let (status, answer) = put_kill(&gateways[2], &[], 0).await;
    assert_eq!(status, 409, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("version 1"),
        "{answer}"
    );
    let (status, answer) = put_kill(&gateways[0], &["related-task"], 1).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("`related-task`; did you mean `related-tasks`?"),
        "{answer}"
    );

    // A group both profiles have: every session hears once more.
    let (status, answer) = put_kill(&gateways[2], &[REVIEW, RELATED], 1).await;
    assert_eq!(
        (status, answer),
        (200, json!({"deny": [REVIEW, RELATED], "version": 2}))
    );
    let related = related_tools();
    for agent in &mut alice {
        agent.heard_once(2).await;
    }
    for agent in &mut bob {
        agent.heard_once(1).await;
    }
    tokio::time::sleep(QUIET).await;
    let mut killed = related.clone();
    killed.push(REVIEW);
    for agent in &alice {
        assert_eq!(agent.legacy.notifications(), 2);
        agent.lists(&without(&task, &killed)).await;
    }
    for agent in &bob {
        assert_eq!(agent.legacy.notifications(), 1);
        agent.lists(&without(&office, &related)).await;
        let tool = related[0];
        assert_eq!(agent.calls(tool).await, [disabled(tool), disabled(tool)]);
    }

    // Off: every session hears once more and lists its tools again.
    let (status, answer) = put_kill(&gateways[0], &[], 2).await;
    assert_eq!((status, answer), (200, json!({"deny": [], "version": 3})));
    for agent in &mut alice {
        agent.heard_once(3).await;
    }
    for agent in &mut bob {
        agent.heard_once(2).await;
    }
    tokio::time::sleep(QUIET).await;
    for agent in &alice {
        assert_eq!(agent.legacy.notifications(), 3);
        agent.lists(&task).await;
        for outcome in agent.calls(REVIEW).await {
            assert_ne!(outcome, disabled(REVIEW));
        }
    }
    for agent in &bob {
        assert_eq!(agent.legacy.notifications(), 2);
        agent.lists(&office).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kill_switch_routes_refuse_bad_input_and_change_nothing() {
    let gateway = Server::start_gateway(&[]).await;
    let http = reqwest::Client::new();
    for method in [Method::GET, Method::PUT] {
        let (status, _) = gateway
            .control(
                &http,
                method.clone(),
                PATH,
                None,
                Some(r#"{"deny":[],"version":0}"#.into()),
            )
            .await;
        assert_eq!(status, 401, "{method}");
    }
    let task = names(&put(&gateway, "alice", TASK).await);
    grant(&gateway, "alice-token", "alice").await;
    let mut alice = Agent::open(&gateway, "alice-token").await;
    for (body, status, needle) in [
        (json!({"deny": [REVIEW]}), 400, "missing field `version`"),
        (json!({"version": 0}), 400, "missing field `deny`"),
        (
            json!({"deny": [REVIEW], "version": null}),
            400,
            "`version` must be a whole number",
        ),
        (
            json!({"deny": [REVIEW], "version": -1}),
            400,
            "`version` must be a whole number",
        ),
        (
            json!({"deny": [REVIEW], "version": 0, "principal": "alice"}),
            400,
            "unknown field `principal`",
        ),
        (json!({"deny": REVIEW, "version": 0}), 400, "invalid type"),
        (
            json!({"deny": ["publish_review_finding_kandev"], "version": 0}),
            400,
            "unknown tool or tool group `publish_review_finding_kandev`; did you mean `publish_review_findings_kandev`?",
        ),
        (
            json!({"deny": ["no-such-thing-at-all-here"], "version": 0}),
            400,
            "`no-such-thing-at-all-here`",
        ),
        (
            json!({"deny": [REVIEW, REVIEW], "version": 0}),
            400,
            "listed twice",
        ),
        (
            json!({"deny": [REVIEW], "version": 7}),
            409,
            "the kill switch is at version 0",
        ),
    ] {
        let (got, answer) = call(&gateway, Method::PUT, PATH, Some(body.clone())).await;
        assert_eq!(got, status, "{body}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(needle),
            "{body}: expected {needle:?} in {answer}"
        );
    }
    let (status, answer) = call(&gateway, Method::DELETE, PATH, None).await;
    assert_eq!(status, 405, "{answer}");
    let (status, answer) = call(&gateway, Method::GET, PATH, None).await;
    assert_eq!((status, answer), (200, json!({"deny": [], "version": 0})));
    alice.heard_nothing(0).await;
    alice.lists(&task).await;

    // In memory too: a put applies at once.
    let (status, answer) = put_kill(&gateway, &["review"], 0).await;
    assert_eq!(
        (status, answer),
        (200, json!({"deny": ["review"], "version": 1}))
    );
    alice.heard_once(1).await;
    alice.lists(&without(&task, &[REVIEW])).await;
}
