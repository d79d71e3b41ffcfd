//! `kandev-mcp gateway`: three gateway processes on one real `redis-server`,
//! with 2025-era sessions and 2026-07-28 subscribers of two principals on
//! each; and the control API's refusals, in memory. The Redis tests are
//! skipped, saying so, without `redis-server` (see `mcp_profiles_tests::redis`).

use crate::common;

use std::time::Duration;

use crate::common::gateway::{admitted, call, change, grant, names, put};
use crate::common::{LIMIT, QUIET, Server};
use mcp_profiles_tests::client::{CallOutcome, Session, disabled, http_transport, refused};
use mcp_profiles_tests::modern::{ModernSession, expect_one_list_changed, expect_silence};
use mcp_profiles_tests::redis::RedisServer;
use mcp_profiles_tests::redis_cluster::RedisCluster;
use reqwest::Method;
use rmcp::service::Subscription;
use serde_json::{Value, json};

pub(crate) const TASK: &str = r#"{"surface":"kanban-task","capabilities":["user-question"]}"#;
const CONFIG: &str = r#"{"surface":"configuration"}"#;
pub(crate) const OFFICE: &str = r#"{"surface":"office-task"}"#;

/// One principal's sessions on one gateway: a 2025-era session and a
/// 2026-07-28 subscriber.
pub(crate) struct Agent {
    pub(crate) legacy: Session,
    modern: ModernSession,
    events: Subscription,
}

impl Agent {
    pub(crate) async fn open(gateway: &Server, token: &str) -> Agent {
        let legacy = Session::connect(http_transport(&gateway.mcp, Some(token))).await;
        let modern = ModernSession::connect(http_transport(&gateway.mcp, Some(token))).await;
        let events = modern.subscribe().await;
        Agent {
            legacy,
            modern,
            events,
        }
    }

    /// One more list_changed on each session (`n` in all on the 2025-era
    /// one), and nothing after it.
    pub(crate) async fn heard_once(&mut self, n: usize) {
        expect_one_list_changed(&mut self.events).await;
        assert_eq!(self.legacy.wait_for_notifications(n, LIMIT).await, n);
    }

    pub(crate) async fn heard_nothing(&mut self, n: usize) {
        expect_silence(&mut self.events).await;
        assert_eq!(self.legacy.notifications(), n);
    }

    /// What a call of `tool` with no arguments answers on the 2025-era
    /// session and on the 2026-07-28 one.
    pub(crate) async fn calls(&self, tool: &str) -> [CallOutcome; 2] {
        self.calls_with(tool, None).await
    }

    /// What a call of `tool` with `arguments` answers on the 2025-era
    /// session and on the 2026-07-28 one.
    pub(crate) async fn calls_with(
        &self,
        tool: &str,
        arguments: Option<Value>,
    ) -> [CallOutcome; 2] {
        [
            self.legacy.call(tool, arguments.clone()).await,
            self.modern.call(tool, arguments).await,
        ]
    }

    pub(crate) async fn lists(&self, tools: &[String]) {
        assert_eq!(self.legacy.tool_names().await, tools);
        assert_eq!(self.modern.tool_names().await, tools);
    }
}

/// Three gateways on `redis`, each given `extra` arguments too.
pub(crate) async fn three_gateways(
    redis: &RedisServer,
    grace_ms: &str,
    extra: &[&str],
) -> Vec<Server> {
    three_gateways_on(&redis.url(), grace_ms, extra).await
}

/// Three gateways on the store at `url`, each given `extra` arguments too.
async fn three_gateways_on(url: &str, grace_ms: &str, extra: &[&str]) -> Vec<Server> {
    let mut gateways = Vec::new();
    for _ in 0..3 {
        let mut args = vec![
            "--store".to_owned(),
            url.to_owned(),
            "--grace-ms".to_owned(),
            grace_ms.to_owned(),
        ];
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gateways.push(Server::start_gateway(&args).await);
    }
    gateways
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_gateways_notify_every_session_of_the_principal_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let gateways = three_gateways(&redis, "5000", &[]).await;
    every_session_of_the_principal_hears_once(&gateways).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_gateways_on_a_redis_cluster_notify_every_session_of_the_principal_once() {
    let Some(cluster) = RedisCluster::start() else {
        return;
    };
    let gateways = three_gateways_on(&cluster.store_url(), "5000", &[]).await;
    every_session_of_the_principal_hears_once(&gateways).await;
}

/// Through each of three gateways in turn, a replacement reaches every
/// session of its principal once and no other session.
async fn every_session_of_the_principal_hears_once(gateways: &[Server]) {
    let task = put(&gateways[0], "alice", TASK).await;
    assert_eq!(
        (task["version"].clone(), task["changed"].clone()),
        (json!(1), json!(true))
    );
    put(&gateways[0], "bob", TASK).await;
    grant(&gateways[0], "alice-token", "alice").await;
    grant(&gateways[1], "bob-token", "bob").await;
    let (mut alice, mut bob) = (Vec::new(), Vec::new());
    for gateway in gateways {
        alice.push(Agent::open(gateway, "alice-token").await);
        bob.push(Agent::open(gateway, "bob-token").await);
    }
    for agent in alice.iter().chain(&bob) {
        agent.lists(&names(&task)).await;
    }

    // A replacement through each instance in turn reaches every alice
    // session once, and no bob session.
    for (round, (gateway, profile)) in gateways.iter().zip([CONFIG, OFFICE, TASK]).enumerate() {
        let answer = put(gateway, "alice", profile).await;
        assert_eq!(answer["principal"], "alice");
        assert_eq!(answer["changed"], true);
        assert_eq!(answer["version"], json!(round + 2));
        for agent in &mut alice {
            agent.heard_once(round + 1).await;
        }
        tokio::time::sleep(QUIET).await;
        for agent in &mut alice {
            assert_eq!(
                agent.legacy.notifications(),
                round + 1,
                "a second list_changed"
            );
            agent.lists(&names(&answer)).await;
        }
        for agent in &mut bob {
            agent.heard_nothing(0).await;
        }
        // Every instance answers the same agent.
        for other in gateways {
            let (status, got) = call(other, Method::GET, "/api/v1/agents/alice", None).await;
            assert_eq!(status, 200, "{got}");
            assert_eq!(
                (got["version"].clone(), got["tools"].clone()),
                (answer["version"].clone(), answer["tools"].clone())
            );
        }
    }
    for agent in alice.iter().chain(&bob) {
        assert_eq!(agent.modern.unsolicited(), 0);
    }
    // A compare-and-set on a stale version is refused by every instance.
    let stale = json!({"profile": serde_json::from_str::<Value>(CONFIG).unwrap(), "version": 2});
    for gateway in gateways {
        let (status, answer) = call(
            gateway,
            Method::PUT,
            "/api/v1/agents/alice",
            Some(stale.clone()),
        )
        .await;
        assert_eq!(status, 409, "{answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("version 4"),
            "{answer}"
        );
    }
    let current = json!({"profile": serde_json::from_str::<Value>(TASK).unwrap(), "version": 4});
    let (status, answer) = call(
        &gateways[1],
        Method::PUT,
        "/api/v1/agents/alice",
        Some(current),
    )
    .await;
    assert_eq!(
        (status, answer["version"].clone(), answer["changed"].clone()),
        (200, json!(5), json!(false)),
        "{answer}"
    );
    for agent in &mut alice {
        agent.heard_nothing(3).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_token_is_refused_on_every_gateway() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let gateways = three_gateways(&redis, "5000", &[]).await;
    put(&gateways[0], "alice", TASK).await;
    grant(&gateways[0], "alice-token", "alice").await;
    grant(&gateways[0], "alice-phone", "alice").await;
    for gateway in &gateways {
        assert_eq!(admitted(gateway, "alice-token").await, 200);
        assert_eq!(admitted(gateway, "mallory-token").await, 401);
    }
    let mut on_last = Agent::open(&gateways[2], "alice-token").await;

    let (status, answer) = call(
        &gateways[1],
        Method::POST,
        "/api/v1/tokens/revoke",
        Some(json!({"token": "alice-token"})),
    )
    .await;
    assert_eq!((status, answer), (200, json!({"revoked": true})));
    // Answered once every gateway applied it: refused everywhere at once.
    for gateway in &gateways {
        assert_eq!(admitted(gateway, "alice-token").await, 401);
    }
    let ended = tokio::time::timeout(LIMIT, on_last.events.next()).await;
    assert!(!matches!(ended, Ok(Ok(Some(_)))), "{ended:?}");
    for gateway in &gateways {
        assert_eq!(admitted(gateway, "alice-phone").await, 200);
    }
    // Deleting the agent takes its other token everywhere too.
    let (status, _) = call(&gateways[2], Method::DELETE, "/api/v1/agents/alice", None).await;
    assert_eq!(status, 200);
    for gateway in &gateways {
        assert_eq!(admitted(gateway, "alice-phone").await, 401);
        let (status, _) = call(gateway, Method::GET, "/api/v1/agents/alice", None).await;
        assert_eq!(status, 404);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_is_answered_once_every_gateway_applies_it_or_names_those_that_did_not() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let mut gateways = Vec::new();
    for name in ["gw-a", "gw-b", "gw-c"] {
        let args = [
            "--store",
            &redis.url(),
            "--instance-name",
            name,
            "--propagation-wait-ms",
            "500",
        ];
        gateways.push(Server::start_gateway(&args).await);
    }
    put(&gateways[0], "alice", TASK).await;
    grant(&gateways[0], "alice-token", "alice").await;
    let mut agents = Vec::new();
    for gateway in &gateways {
        agents.push(Agent::open(gateway, "alice-token").await);
    }

    // Answered 200 only once all three apply it: every gateway refuses the
    // narrowed tool as soon as the answer is in.
    let profile: Value = serde_json::from_str(CONFIG).unwrap();
    let body = json!({ "profile": profile });
    let (status, applied, pending, answer) =
        change(&gateways[1], Method::PUT, "/api/v1/agents/alice", body).await;
    assert_eq!(
        (status, applied.as_deref(), pending),
        (200, Some("3"), None)
    );
    assert_eq!(answer["version"], 2);
    for agent in &agents {
        agent.lists(&names(&answer)).await;
        for outcome in agent.calls("list_related_tasks_kandev").await {
            assert_eq!(outcome, refused("list_related_tasks_kandev"));
        }
    }

    // A gateway listed as live that never confirms (stalled): the change
    // stands, and the answer is 202 naming it.
    let far = format!("{}", u64::MAX >> 12);
    redis.command(&["ZADD", "mcp-profiles:instances", &far, "gw-stalled"]);
    let served = names(&answer);
    let killed = served[0].clone();
    let body = json!({"deny": [killed], "version": 0});
    let (status, applied, pending, answer) =
        change(&gateways[2], Method::PUT, "/api/v1/kill-switch", body).await;
    assert_eq!(
        (status, applied.as_deref(), pending.as_deref()),
        (202, Some("3"), Some("gw-stalled"))
    );
    assert_eq!(answer["version"], 1);
    // The three live gateways did confirm: their sessions stop listing
    // what it kills, and refuse it, at once.
    let spared: Vec<String> = served.into_iter().filter(|name| *name != killed).collect();
    for agent in &agents {
        agent.lists(&spared).await;
        for outcome in agent.calls(&killed).await {
            assert_eq!(outcome, disabled(&killed));
        }
    }
    drop(agents);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restarting_redis_or_a_gateway_loses_no_change() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let mut gateways = three_gateways(&redis, "30000", &[]).await;
    put(&gateways[0], "alice", TASK).await;
    put(&gateways[0], "bob", TASK).await;
    grant(&gateways[0], "alice-token", "alice").await;
    grant(&gateways[0], "bob-token", "bob").await;
    let mut alice = Vec::new();
    for gateway in &gateways {
        alice.push(Agent::open(gateway, "alice-token").await);
    }
    let mut bob = Agent::open(&gateways[1], "bob-token").await;

    // Redis dies: writes fail with 503 and change nothing; Redis returns
    // and the first change made reaches every session once.
    redis.kill();
    let body = json!({"profile": serde_json::from_str::<Value>(CONFIG).unwrap()});
    let (status, answer) = call(
        &gateways[0],
        Method::PUT,
        "/api/v1/agents/alice",
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, 503, "{answer}");
    redis.restart();
    let answer = loop {
        let (status, answer) = call(
            &gateways[1],
            Method::PUT,
            "/api/v1/agents/alice",
            Some(body.clone()),
        )
        .await;
        // 202: made, but a gateway still resubscribing had not confirmed it.
        if matches!(status, 200 | 202) {
            break answer;
        }
        assert_eq!(status, 503, "{answer}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    for agent in &mut alice {
        agent.heard_once(1).await;
    }
    tokio::time::sleep(QUIET).await;
    for agent in &mut alice {
        assert_eq!(agent.legacy.notifications(), 1);
        agent.lists(&names(&answer)).await;
    }
    bob.heard_nothing(0).await;

    // One gateway dies; a change made meanwhile reaches the others once and
    // the restarted gateway serves it.
    gateways[2].kill().await;
    alice.pop();
    // Its name stays live until its grace period runs out, and it cannot
    // confirm: the change stands, answered 202 naming it.
    let profile: Value = serde_json::from_str(OFFICE).unwrap();
    let (status, _, pending, answer) = change(
        &gateways[0],
        Method::PUT,
        "/api/v1/agents/alice",
        json!({ "profile": profile }),
    )
    .await;
    assert_eq!((status, pending.is_some()), (202, true), "{answer}");
    for agent in &mut alice {
        agent.heard_once(2).await;
        agent.lists(&names(&answer)).await;
    }
    gateways[2] = Server::start_gateway(&["--store", &redis.url()]).await;
    let again = Agent::open(&gateways[2], "alice-token").await;
    again.lists(&names(&answer)).await;
    tokio::time::sleep(QUIET).await;
    for agent in &alice {
        assert_eq!(agent.legacy.notifications(), 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_gateway_serves_agents_and_refuses_bad_input() {
    let gateway = Server::start_gateway(&[]).await;
    let http = reqwest::Client::new();
    let (status, _) = gateway
        .control(&http, Method::GET, "/api/v1/agents/alice", None, None)
        .await;
    assert_eq!(status, 401);
    let (status, answer) = call(&gateway, Method::GET, "/api/v1/agents/alice", None).await;
    assert_eq!(
        (status, answer),
        (
            404,
            json!({"error": "no agent `alice`", "code": "not-found", "status": 404})
        )
    );
    let (status, answer) = call(
        &gateway,
        Method::PUT,
        "/api/v1/agents/al%20ice",
        Some(json!({"profile": {"surface": "external"}})),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("al ice"),
        "{answer}"
    );
    let (status, answer) = call(
        &gateway,
        Method::PUT,
        "/api/v1/agents/alice",
        Some(json!({"profile": {"surface": "nowhere"}})),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("nowhere"),
        "{answer}"
    );
    let (status, answer) = call(
        &gateway,
        Method::PUT,
        "/api/v1/agents/alice",
        Some(json!({"profile": {"surface": "external"}, "extra": 1})),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    let (status, answer) = call(
        &gateway,
        Method::POST,
        "/api/v1/tokens",
        Some(json!({"token": "t0ken", "principal": "carol"})),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("carol"),
        "{answer}"
    );
    let (status, answer) = call(
        &gateway,
        Method::POST,
        "/api/v1/tokens",
        Some(json!({"token": "two words", "principal": "carol"})),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        !answer["error"].as_str().unwrap().contains("two words"),
        "{answer}"
    );
    let (status, answer) = call(&gateway, Method::PATCH, "/api/v1/agents/alice", None).await;
    assert_eq!(status, 405, "{answer}");

    // The happy path, in memory.
    let answer = put(&gateway, "alice", TASK).await;
    assert_eq!(
        (answer["version"].clone(), answer["changed"].clone()),
        (json!(1), json!(true))
    );
    grant(&gateway, "alice-token", "alice").await;
    let mut agent = Agent::open(&gateway, "alice-token").await;
    agent.lists(&names(&answer)).await;
    let answer = put(&gateway, "alice", CONFIG).await;
    assert_eq!(answer["version"], json!(2));
    agent.heard_once(1).await;
    agent.lists(&names(&answer)).await;
    let (status, answer) = call(
        &gateway,
        Method::POST,
        "/api/v1/tokens/revoke",
        Some(json!({"token": "alice-token"})),
    )
    .await;
    assert_eq!((status, answer), (200, json!({"revoked": true})));
    assert_eq!(admitted(&gateway, "alice-token").await, 401);
}

/// `kandev-mcp gateway ARGS` run to its end: exit code and stderr.
fn gateway_exit(args: &[&str]) -> (Option<i32>, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kandev-mcp"))
        .args([
            "gateway",
            "--http",
            "127.0.0.1:0",
            "--control",
            "127.0.0.1:0",
        ])
        .args(["--control-token", common::TOKEN])
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("kandev-mcp runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_bad_or_unreachable_store_is_refused_at_start() {
    let (code, stderr) = gateway_exit(&["--store", "http://127.0.0.1:6379"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("http://127.0.0.1:6379"), "{stderr}");
    let (code, stderr) = gateway_exit(&["--grace-ms", "5"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("grace-ms"), "{stderr}");
    // Nothing listens on port 1: the gateway does not start without its store.
    let (code, stderr) = gateway_exit(&["--store", "redis://127.0.0.1:1/0"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot connect to `redis://127.0.0.1:1/0`"),
        "{stderr}"
    );
    // A cluster's URL names HOST:PORT nodes, and one must answer.
    let (code, stderr) = gateway_exit(&["--store", "redis+cluster://127.0.0.1"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("`127.0.0.1` is not HOST:PORT"), "{stderr}");
    let (code, stderr) = gateway_exit(&["--store", "redis+cluster://127.0.0.1:1"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot connect to the cluster at 127.0.0.1:1"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_profile_may_carry_kandevs_coordinator_binding() {
    let gateway = Server::start_gateway(&[]).await;
    let binding = json!({
        "version": 1, "coordinator_id": "c-1", "workspace_id": "ws-1",
        "conversation_task_id": "task-1", "policy_revision": 0,
        "tool_names": ["list_tasks_kandev", "propose_move_kandev"]
    });
    let (status, answer) = call(
        &gateway,
        Method::PUT,
        "/api/v1/agents/alice",
        Some(json!({"profile": {"surface": "coordinator", "coordinator_tool_policy": binding}})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["tools"],
        json!(["list_tasks_kandev", "propose_move_kandev"])
    );
    // A name outside the coordinator's universe: refused, naming it.
    let mut bad = binding.clone();
    bad["tool_names"] = json!(["delete_task_kandev"]);
    let (status, answer) = call(
        &gateway,
        Method::PUT,
        "/api/v1/agents/alice",
        Some(json!({"profile": {"surface": "coordinator", "coordinator_tool_policy": bad}})),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer.to_string().contains("delete_task_kandev"),
        "{answer}"
    );
}
