//! The help desk's binary, driven from outside as a deployment is: its
//! control API over HTTP, its agents' sessions with an rmcp client over
//! streamable HTTP, in memory and as two instances sharing one Redis.

use std::time::Duration;

use mcp_profiles_tests::announced::Announced;
use mcp_profiles_tests::client::{CallOutcome, List, Session, http_transport};
use mcp_profiles_tests::redis::RedisServer;
use reqwest::Method;
use serde_json::{Value, json};

const TOKEN: &str = "helpdesk-control-token";
const LIMIT: Duration = Duration::from_secs(10);

/// `helpdesk` on free ports, with `args` after the usual ones.
async fn start(args: &[&str]) -> Announced {
    let mut program = tokio::process::Command::new(env!("CARGO_BIN_EXE_helpdesk"));
    program
        .args(["--mcp", "127.0.0.1:0", "--control", "127.0.0.1:0"])
        .args(["--control-token", TOKEN])
        .args(args)
        .env("RUST_LOG", "warn");
    Announced::spawn(program).await
}

/// A control-API request with the control token: status and answer.
async fn control(
    desk: &Announced,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", desk.control))
        .bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("the control API answers");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON answer"))
}

/// Whether a change was made: 200, or 202 when another instance had not
/// confirmed it yet (it still stands).
fn made(status: u16) -> bool {
    matches!(status, 200 | 202)
}

/// Puts `principal`'s agent with `profile` and grants it
/// `{principal}-token`; the tools the answer names.
async fn agent(desk: &Announced, principal: &str, profile: Value) -> Vec<String> {
    let path = format!("/api/v1/agents/{principal}");
    let (status, answer) =
        control(desk, Method::PUT, &path, Some(json!({"profile": profile}))).await;
    assert!(made(status), "{answer}");
    let grant = json!({"token": format!("{principal}-token"), "principal": principal});
    let (status, granted) = control(desk, Method::POST, "/api/v1/tokens", Some(grant)).await;
    assert!(made(status), "{granted}");
    serde_json::from_value(answer["tools"].clone()).unwrap()
}

async fn session(desk: &Announced, principal: &str) -> Session {
    let token = format!("{principal}-token");
    Session::connect(http_transport(&desk.mcp, Some(&token))).await
}

#[tokio::test]
async fn each_agent_reaches_its_profile_and_a_change_reaches_its_session_once() {
    let desk = start(&[]).await;
    let support =
        json!({"surface": "support", "capabilities": ["refunds"], "providers": ["billing"]});
    let tools = agent(&desk, "alice", support).await;
    assert_eq!(
        tools,
        [
            "list_tickets",
            "read_ticket",
            "refund_order",
            "reply_ticket"
        ]
    );
    agent(&desk, "carol", json!({"surface": "customer"})).await;

    let carol = session(&desk, "carol").await;
    assert_eq!(carol.tool_names().await, ["open_ticket"]);
    let opened = carol
        .call("open_ticket", Some(json!({"subject": "refund please"})))
        .await;
    assert_eq!(opened, CallOutcome::Ran(vec!["ticket 1".into()]));

    let alice = session(&desk, "alice").await;
    assert_eq!(alice.tool_names().await, tools);
    let refund = json!({"ticket": 1, "text": "12 EUR"});
    let refunded = alice.call("refund_order", Some(refund)).await;
    assert_eq!(
        refunded,
        CallOutcome::Ran(vec!["refunded 12 EUR on `refund please`".into()])
    );
    // A tool outside the profile is never run.
    assert!(matches!(
        alice
            .call("open_ticket", Some(json!({"subject": "x"})))
            .await,
        CallOutcome::Refused(..)
    ));

    // Triage now, at the version it was read at: one list_changed, new tools.
    let (_, read) = control(&desk, Method::GET, "/api/v1/agents/alice", None).await;
    let triage = json!({"profile": {"surface": "triage"}, "version": read["version"]});
    let (status, answer) = control(&desk, Method::PUT, "/api/v1/agents/alice", Some(triage)).await;
    assert_eq!(
        (status, answer["changed"].clone()),
        (200, json!(true)),
        "{answer}"
    );
    alice.wait_for_notifications_of(List::Tools, 1, LIMIT).await;
    assert_eq!(
        alice.tool_names().await,
        ["assign_ticket", "list_tickets", "read_ticket"]
    );
    carol.expect_exactly(&[(List::Tools, 0)]).await;

    // The kill switch removes a tool from every agent that has it.
    let kill = json!({"deny": ["assign_ticket"], "version": 0});
    let (status, _) = control(&desk, Method::PUT, "/api/v1/kill-switch", Some(kill)).await;
    assert_eq!(status, 200);
    alice.wait_for_notifications_of(List::Tools, 2, LIMIT).await;
    assert_eq!(alice.tool_names().await, ["list_tickets", "read_ticket"]);
    // The control API answers what the agent is served, kill switch and all.
    let (_, read) = control(&desk, Method::GET, "/api/v1/agents/alice", None).await;
    assert_eq!(read["tools"], json!(["list_tickets", "read_ticket"]));

    let (_, page) = control(&desk, Method::GET, "/api/v1/audit?principal=alice", None).await;
    assert_eq!(page["records"].as_array().map(Vec::len), Some(3), "{page}");
}

#[tokio::test]
async fn bad_requests_are_refused_naming_what_is_wrong_and_change_nothing() {
    let desk = start(&[]).await;
    let bad = json!({"profile": {"surface": "billing"}});
    let (status, answer) = control(&desk, Method::PUT, "/api/v1/agents/bob", Some(bad)).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (400, Some("invalid-body")),
        "{answer}"
    );
    assert!(
        answer["error"].as_str().unwrap().contains("billing"),
        "{answer}"
    );
    let (status, _) = control(&desk, Method::GET, "/api/v1/agents/bob", None).await;
    assert_eq!(status, 404);
    let grant = json!({"token": "t", "principal": "bob"});
    let (status, answer) = control(&desk, Method::POST, "/api/v1/tokens", Some(grant)).await;
    assert_eq!(status, 400, "{answer}");
    let anonymous = reqwest::get(format!("{}/api/v1/kill-switch", desk.control))
        .await
        .unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
}

#[tokio::test]
async fn the_served_document_is_the_committed_one() {
    let desk = start(&[]).await;
    let (status, served) = control(&desk, Method::GET, "/api/v1/openapi.json", None).await;
    assert_eq!(status, 200);
    let committed = include_str!("../../../docs/openapi/helpdesk.json");
    let committed: Value = serde_json::from_str(committed).unwrap();
    assert_eq!(
        served, committed,
        "regenerate: cargo run -p helpdesk -- --openapi > docs/openapi/helpdesk.json"
    );
    let surfaces = &served["components"]["schemas"]["ProfileContext"]["properties"]["surface"];
    assert_eq!(
        surfaces,
        &json!({"enum": ["triage", "support", "customer"]})
    );
}

#[tokio::test]
async fn two_instances_on_one_redis_serve_the_same_agents() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = redis.url();
    let (one, two) = (
        start(&["--store", &store]).await,
        start(&["--store", &store]).await,
    );
    agent(&one, "dana", json!({"surface": "customer"})).await;
    let dana = session(&two, "dana").await;
    assert_eq!(dana.tool_names().await, ["open_ticket"]);
    let (_, read) = control(&one, Method::GET, "/api/v1/agents/dana", None).await;
    let support = json!({"profile": {"surface": "support"}, "version": read["version"]});
    let (status, answer) = control(&one, Method::PUT, "/api/v1/agents/dana", Some(support)).await;
    assert!(made(status), "{answer}");
    dana.wait_for_notifications_of(List::Tools, 1, LIMIT).await;
    assert_eq!(
        dana.tool_names().await,
        ["list_tickets", "read_ticket", "reply_ticket"]
    );
}

#[tokio::test]
async fn metrics_and_the_admin_page_are_served_behind_the_control_token() {
    let desk = start(&[]).await;
    agent(&desk, "erin", json!({"surface": "customer"})).await;
    let erin = session(&desk, "erin").await;
    erin.call("open_ticket", Some(json!({"subject": "hello"})))
        .await;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let metrics = format!("{}/metrics", desk.control);
    let anonymous = http.get(&metrics).send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
    let scraped = http.get(&metrics).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(scraped.status().as_u16(), 200);
    let text = scraped.text().await.unwrap();
    assert!(text.contains("mcp_profiles_tool_calls_total"), "{text}");
    // The admin page wants its login first.
    let admin = http
        .get(format!("{}/admin", desk.control))
        .send()
        .await
        .unwrap();
    assert_eq!(admin.status().as_u16(), 303);
    let login = http
        .get(format!("{}/admin/login", desk.control))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status().as_u16(), 200);
}
