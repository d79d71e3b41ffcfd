//! Plugin tools through the gateway's store: each agent's snapshot is put
//! through any gateway's control API (`PUT /api/v1/agents/{principal}/plugin-tools`),
//! kept in Redis beside its profile, installed on every gateway serving the
//! agent with one `list_changed` per session whose tools changed, and its
//! calls forwarded to the gateway's `--plugin-backend`. Skipped, saying so,
//! without `redis-server` (see `mcp_profiles_tests::redis`).

use std::time::Duration;

use crate::common::gateway::{call, grant, names, put};
use crate::common::{QUIET, Server};
use crate::gateway::{Agent, OFFICE, TASK, three_gateways};
use crate::plugins::{PluginBackend, acme, snapshot, tool};
use mcp_profiles_tests::client::{CallOutcome, refused};
use mcp_profiles_tests::redis::RedisServer;
use reqwest::Method;
use serde_json::{Value, json};

pub(crate) fn path(principal: &str) -> String {
    format!("/api/v1/agents/{principal}/plugin-tools")
}

/// A `PUT` of `body` (a snapshot) for `principal`; status and answer.
pub(crate) async fn put_tools(gateway: &Server, principal: &str, body: &str) -> (u16, Value) {
    let body: Value = serde_json::from_str(body).unwrap();
    call(gateway, Method::PUT, &path(principal), Some(body)).await
}

/// `names` with the exposed names of `locals` added, sorted.
fn with_plugins(names: &[String], locals: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = names.to_vec();
    all.extend(locals.iter().map(|local| acme(local)));
    all.sort();
    all
}

async fn three_gateways_with(redis: &RedisServer, backend: &PluginBackend) -> Vec<Server> {
    three_gateways(redis, "30000", &["--plugin-backend", &backend.url]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_put_through_one_gateway_reaches_every_session_of_the_agent_once() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let backend = PluginBackend::start().await;
    let gateways = three_gateways_with(&redis, &backend).await;
    let task = names(&put(&gateways[0], "alice", TASK).await);
    put(&gateways[0], "bob", TASK).await;
    grant(&gateways[0], "alice-token", "alice").await;
    grant(&gateways[0], "bob-token", "bob").await;
    let (mut alice, mut bob) = (Vec::new(), Vec::new());
    for gateway in &gateways {
        alice.push(Agent::open(gateway, "alice-token").await);
        bob.push(Agent::open(gateway, "bob-token").await);
    }
    for gateway in &gateways {
        let (status, answer) = call(gateway, Method::GET, &path("alice"), None).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(
            answer,
            json!({"generation": null, "revision": null, "tools": []})
        );
    }

    // Put through the second gateway: every alice session hears once, bob
    // nothing; the agent's version counts it.
    let echo = snapshot(1, vec![tool("echo", &["kanban-task"])]);
    let (status, answer) = put_tools(&gateways[1], "alice", &echo).await;
    assert_eq!(status, 200, "{answer}");
    let with_echo = with_plugins(&task, &["echo"]);
    assert_eq!(
        (
            &answer["principal"],
            &answer["generation"],
            &answer["revision"]
        ),
        (&json!("alice"), &json!("gen-1"), &json!(1))
    );
    assert_eq!(
        (&answer["changed"], &answer["version"]),
        (&json!(true), &json!(2))
    );
    assert_eq!(names(&answer), with_echo);
    for agent in &mut alice {
        agent.heard_once(1).await;
    }
    tokio::time::sleep(QUIET).await;
    for agent in &mut alice {
        assert_eq!(agent.legacy.notifications(), 1, "a second list_changed");
        agent.lists(&with_echo).await;
    }
    for agent in &mut bob {
        agent.heard_nothing(0).await;
        agent.lists(&task).await;
    }
    let stored: Value = serde_json::from_str(&echo).unwrap();
    for gateway in &gateways {
        let (status, answer) = call(gateway, Method::GET, &path("alice"), None).await;
        assert_eq!((status, &answer["tools"]), (200, &stored["tools"]));
        let (_, agent) = call(gateway, Method::GET, "/api/v1/agents/alice", None).await;
        assert_eq!(agent["version"], 2);
    }

    // Calls on every gateway go to the plugin backend; bob's are refused.
    for agent in &alice {
        let outcome = agent
            .legacy
            .call(&acme("echo"), Some(json!({"text": "hi"})))
            .await;
        assert_eq!(
            outcome,
            CallOutcome::Ran(vec!["kanban-task says hi".to_owned()])
        );
    }
    assert_eq!(backend.calls().len(), 3);
    let outcome = bob[0]
        .legacy
        .call(&acme("echo"), Some(json!({"text": "hi"})))
        .await;
    assert_eq!(outcome, refused(&acme("echo")));
    assert_eq!(backend.calls().len(), 3);

    // The same revision again is stale: nothing stored, nobody told.
    let (status, answer) = put_tools(&gateways[2], "alice", &echo).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        (&answer["changed"], &answer["version"], &answer["revision"]),
        (&json!(false), &json!(2), &json!(1))
    );
    assert_eq!(names(&answer), with_echo);

    // A profile that hides the plugin surface, and back: the catalog stays.
    // (The agent routes answer the profile's compiled tools.)
    let office = put(&gateways[2], "alice", OFFICE).await;
    for agent in &mut alice {
        agent.heard_once(2).await;
        agent.lists(&names(&office)).await;
    }
    let back = put(&gateways[0], "alice", TASK).await;
    assert_eq!(names(&back), task);
    for agent in &mut alice {
        agent.heard_once(3).await;
        agent.lists(&with_echo).await;
    }

    // Redis restarts: a put fails with 503 and changes nothing, then the
    // next one reaches every session once.
    redis.kill();
    let two = snapshot(
        2,
        vec![
            tool("echo", &["kanban-task"]),
            tool("fails", &["kanban-task"]),
        ],
    );
    let (status, answer) = put_tools(&gateways[0], "alice", &two).await;
    assert_eq!(status, 503, "{answer}");
    redis.restart();
    let answer = loop {
        let (status, answer) = put_tools(&gateways[2], "alice", &two).await;
        // 202: made, but a gateway still resubscribing had not confirmed it.
        if matches!(status, 200 | 202) {
            break answer;
        }
        assert_eq!(status, 503, "{answer}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let with_both = with_plugins(&task, &["echo", "fails"]);
    assert_eq!(
        (&answer["changed"], names(&answer)),
        (&json!(true), with_both.clone())
    );
    for agent in &mut alice {
        agent.heard_once(4).await;
    }
    tokio::time::sleep(QUIET).await;
    for agent in &mut alice {
        assert_eq!(agent.legacy.notifications(), 4, "a second list_changed");
        agent.lists(&with_both).await;
    }
    for agent in &mut bob {
        agent.heard_nothing(0).await;
    }

    // A gateway started now serves the agent whole from its first request.
    let late =
        Server::start_gateway(&["--store", &redis.url(), "--plugin-backend", &backend.url]).await;
    Agent::open(&late, "alice-token")
        .await
        .lists(&with_both)
        .await;

    // Deleting the agent takes its snapshot.
    let (status, _) = call(&gateways[1], Method::DELETE, "/api/v1/agents/alice", None).await;
    assert_eq!(status, 200);
    for gateway in &gateways {
        let (status, answer) = call(gateway, Method::GET, &path("alice"), None).await;
        assert_eq!(status, 404, "{answer}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_gateway_checks_snapshots_like_serve() {
    let gateway = Server::start_gateway(&[]).await;
    let echo = snapshot(1, vec![tool("echo", &["kanban-task"])]);
    let (status, answer) = put_tools(&gateway, "carol", &echo).await;
    assert_eq!(status, 404, "{answer}");
    assert_eq!(answer["error"], "no agent `carol`");
    let (status, _) = call(&gateway, Method::GET, &path("carol"), None).await;
    assert_eq!(status, 404);

    let task = names(&put(&gateway, "alice", TASK).await);
    let mut bad_name = tool("named", &["kanban-task"]);
    bad_name["exposed_name"] = json!("kandev_named");
    for (body, expected) in [
        (
            snapshot(1, vec![bad_name]),
            "`exposed_name` must be `kandev_acme_named`",
        ),
        (
            snapshot(1, vec![tool("x", &["configuration"])]),
            "unknown surface `configuration`",
        ),
        (
            json!({"generation": "g", "revision": 1, "extra": 1}).to_string(),
            "unknown field `extra`",
        ),
    ] {
        let (status, answer) = put_tools(&gateway, "alice", &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains(expected), "{body}: {error}");
    }
    let (status, answer) = call(&gateway, Method::GET, &path("alice"), None).await;
    assert_eq!((status, &answer["generation"]), (200, &Value::Null));

    let (status, answer) = put_tools(&gateway, "alice", &echo).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(names(&answer), with_plugins(&task, &["echo"]));
    let (_, agent) = call(&gateway, Method::GET, "/api/v1/agents/alice", None).await;
    assert_eq!(agent["version"], 2);
    // A snapshot body past the cap is refused before it is read.
    let huge = format!(
        r#"{{"generation":"g","revision":2,"tools":[],"pad":"{}"}}"#,
        "x".repeat(2 * 1024 * 1024)
    );
    let http = reqwest::Client::new();
    let (status, answer) = gateway
        .control(
            &http,
            Method::PUT,
            &path("alice"),
            Some(crate::common::BEARER),
            Some(huge),
        )
        .await;
    assert_eq!(status, 413, "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grouping_client_sees_each_plugin_as_a_group_of_its_tools() {
    use mcp_profiles::{GROUP_MEMBERSHIP_KEY, GROUPING_EXTENSION};
    use mcp_profiles_tests::raw::RawSession;

    let gateway = Server::start_gateway(&["--grouping"]).await;
    put(&gateway, "alice", TASK).await;
    grant(&gateway, "alice-token", "alice").await;
    let mut echo = tool("echo", &["kanban-task"]);
    echo["plugin_display_name"] = json!("Acme Corp");
    let mut ping = tool("ping", &["kanban-task"]);
    ping["plugin_id"] = json!("Globex.Labs");
    ping["exposed_name"] = json!(kandev_mcp::plugins::exposed_name("Globex.Labs", "ping"));
    let (status, answer) = put_tools(&gateway, "alice", &snapshot(1, vec![echo, ping])).await;
    assert_eq!(status, 200, "{answer}");

    let declares = json!({"extensions": {GROUPING_EXTENSION: {}}});
    let session = RawSession::open_with(&gateway.mcp, "alice-token", declares).await;
    let groups = session
        .request("alice-token", "groups/list", json!({}))
        .await;
    let plugins: Vec<&Value> = groups["result"]["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter(|group| group["name"].as_str().unwrap().starts_with("plugin."))
        .collect();
    assert_eq!(
        plugins,
        [
            &json!({"name": "plugin.acme", "title": "Acme Corp"}),
            &json!({"name": "plugin.globex_labs"}),
        ]
    );
    let listed = session
        .request("alice-token", "tools/list", json!({}))
        .await;
    let membership = |name: String| {
        let tools = listed["result"]["tools"].as_array().expect("tools");
        let tool = tools.iter().find(|tool| tool["name"] == name.as_str());
        tool.expect("listed")["_meta"][GROUP_MEMBERSHIP_KEY].clone()
    };
    assert_eq!(membership(acme("echo")), json!(["plugin.acme"]));
    let globex = kandev_mcp::plugins::exposed_name("Globex.Labs", "ping");
    assert_eq!(membership(globex), json!(["plugin.globex_labs"]));
}
