//! The audit trail through the control APIs, over real HTTP: the gateway
//! (in memory, and several processes on one real `redis-server`) and
//! `serve` (the demo board in memory, and a SQLite board whose trail
//! refuses a record). Every change is one record naming the control
//! token's name and the request's `X-Request-Id`; refused changes record
//! nothing; `GET /api/v1/audit` pages the trail and refuses a bad query
//! naming it. The Redis test is skipped, saying so, without `redis-server`.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::gateway::{call, names, put};
use crate::common::{BEARER, Db, QUIET, Server, TOKEN, run};
use crate::gateway::{OFFICE, TASK};
use crate::plugins::{acme, snapshot, tool};
use mcp_profiles_tests::redis::RedisServer;

/// A control-API call with the right token, `X-Request-Id: request_id` if
/// given, and a JSON body if given: the status, the `X-Request-Id` answered
/// and the answer.
async fn send(
    server: &Server,
    method: Method,
    path: &str,
    request_id: Option<&str>,
    body: Option<Value>,
) -> (u16, String, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", server.control))
        .header("Authorization", BEARER);
    if let Some(id) = request_id {
        request = request.header("X-Request-Id", id);
    }
    if let Some(body) = body {
        request = request
            .header("Content-Type", "application/json")
            .body(body.to_string());
    }
    let response = request.send().await.expect("the control API answers");
    let status = response.status().as_u16();
    let echoed = response
        .headers()
        .get("x-request-id")
        .map(|id| id.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    let answer = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, echoed, answer)
}

/// `send` that must answer 200: the answer.
async fn ok(server: &Server, method: Method, path: &str, id: &str, body: Option<Value>) -> Value {
    let (status, echoed, answer) = send(server, method.clone(), path, Some(id), body).await;
    assert_eq!(status, 200, "{method} {path}: {answer}");
    assert_eq!(echoed, id, "the request id is answered back");
    answer
}

/// The records of `GET /api/v1/audit?{query}`, and `next`.
async fn page(server: &Server, query: &str) -> (Vec<Value>, Value) {
    let answer = server.audit(&reqwest::Client::new(), query).await;
    let records = answer["records"].as_array().expect("records").clone();
    (records, answer["next"].clone())
}

/// Each record's kind and request id.
fn said(records: &[Value]) -> Vec<(String, String)> {
    records
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_owned(),
                r["request_id"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn seqs(records: &[Value]) -> Vec<u64> {
    records.iter().map(|r| r["seq"].as_u64().unwrap()).collect()
}

/// `after` less `before`, and `before` less `after`, as the trail says them.
fn diff(before: &[String], after: &[String]) -> (Value, Value) {
    let added: Vec<&String> = after.iter().filter(|t| !before.contains(t)).collect();
    let removed: Vec<&String> = before.iter().filter(|t| !after.contains(t)).collect();
    (json!(added), json!(removed))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_records_each_change_and_pages_its_trail() {
    let gateway = Server::start_gateway(&["--control-token-name", "ops-bot"]).await;
    let agents = "/api/v1/agents/alice";
    let profile = |text: &str| json!({ "profile": serde_json::from_str::<Value>(text).unwrap() });

    // Refused: nothing changes, nothing is recorded.
    let (status, _, answer) = send(
        &gateway,
        Method::PUT,
        agents,
        Some("bad id"),
        Some(profile(TASK)),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("`bad id`"),
        "{answer}"
    );
    let (status, _, _) = send(&gateway, Method::GET, agents, None, None).await;
    assert_eq!(status, 404, "the refused put made no agent");
    let (status, _, _) = send(
        &gateway,
        Method::PUT,
        agents,
        Some("r-0"),
        Some(json!({ "profile": profile(TASK)["profile"], "version": 3 })),
    )
    .await;
    assert_eq!(status, 409);

    let task = names(&ok(&gateway, Method::PUT, agents, "r-1", Some(profile(TASK))).await);
    let (status, generated, _) = send(
        &gateway,
        Method::POST,
        "/api/v1/tokens",
        None,
        Some(json!({ "token": "alice-secret-token", "principal": "alice" })),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(generated.len(), 36, "a fresh request id: {generated}");
    let office = names(&ok(&gateway, Method::PUT, agents, "r-3", Some(profile(OFFICE))).await);
    ok(
        &gateway,
        Method::PUT,
        "/api/v1/kill-switch",
        "r-4",
        Some(json!({ "deny": ["related-tasks"], "version": 0 })),
    )
    .await;
    ok(
        &gateway,
        Method::POST,
        "/api/v1/tokens/revoke",
        "r-5",
        Some(json!({ "token": "alice-secret-token" })),
    )
    .await;
    ok(&gateway, Method::DELETE, agents, "r-6", None).await;

    let (records, next) = page(&gateway, "").await;
    let expected = [
        ("profile-put", "r-1"),
        ("token-granted", generated.as_str()),
        ("profile-put", "r-3"),
        ("kill-switch", "r-4"),
        ("token-revoked", "r-5"),
        ("agent-deleted", "r-6"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(k, r)| (k.to_string(), r.to_string()))
        .collect();
    assert_eq!(
        said(&records),
        expected,
        "one record per change, none for a refusal"
    );
    assert_eq!(seqs(&records), [1, 2, 3, 4, 5, 6]);
    assert_eq!(next, Value::Null, "a short page is the last");
    assert!(records.iter().all(|r| r["actor"] == "ops-bot"));
    let text = serde_json::to_string(&records).unwrap();
    assert!(
        !text.contains("alice-secret-token"),
        "the token is never recorded"
    );
    assert!(
        text.contains(&mcp_profiles_serve::audit::fingerprint(
            "alice-secret-token"
        )),
        "its fingerprint is"
    );
    assert_eq!(records[0]["before"], Value::Null);
    assert_eq!(records[0]["after"]["version"], 1);
    let (added, removed) = diff(&task, &office);
    assert_eq!(
        (&records[2]["added"], &records[2]["removed"]),
        (&added, &removed)
    );
    assert_eq!(
        records[3]["principal"],
        Value::Null,
        "the kill switch is every agent's"
    );
    assert_eq!(
        records[3]["after"],
        json!({ "deny": ["related-tasks"], "version": 1 })
    );
    assert_eq!(
        records[5]["removed"],
        json!(office),
        "a deletion removes every tool"
    );

    // Pages, forward and back, and one principal's.
    let (head, next) = page(&gateway, "limit=4").await;
    assert_eq!((seqs(&head), next.clone()), (vec![1, 2, 3, 4], json!(4)));
    let (tail, next) = page(&gateway, &format!("since={next}&limit=4")).await;
    assert_eq!((seqs(&tail), next), (vec![5, 6], Value::Null));
    let (newest, next) = page(&gateway, "order=desc&limit=2").await;
    assert_eq!((seqs(&newest), next.clone()), (vec![6, 5], json!(5)));
    let (older, _) = page(&gateway, &format!("order=desc&before={next}&limit=2")).await;
    assert_eq!(seqs(&older), [4, 3]);
    let (alice, _) = page(&gateway, "principal=alice").await;
    assert_eq!(
        seqs(&alice),
        [1, 2, 3, 5, 6],
        "a principal's, without the kill switch's"
    );

    // A bad query is refused naming what is wrong.
    for (query, says) in [
        ("limit=0", "`limit` must be 1 to 1000, not 0"),
        ("since=abc", "`since` must be a whole number from 0 to"),
        (
            "order=newest",
            "`order` must be `asc` or `desc`, not `newest`",
        ),
        ("token=x", "unknown query parameter `token`"),
        ("since=1&since=2", "`since` given twice"),
        ("principal=a%2Fb", "principal `a/b`"),
        ("principal=", "`principal` is empty"),
    ] {
        let path = format!("/api/v1/audit?{query}");
        let (status, _, answer) = send(&gateway, Method::GET, &path, None, None).await;
        assert_eq!(status, 400, "{query}: {answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains(says), "{query}: {error}");
    }
    let (status, _) = gateway
        .control(
            &reqwest::Client::new(),
            Method::GET,
            "/api/v1/audit",
            None,
            None,
        )
        .await;
    assert_eq!(status, 401, "the trail is behind the control token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gateways_on_one_redis_share_one_trail_across_their_restarts() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let url = redis.url();
    let one = Server::start_gateway(&["--store", &url, "--control-token-name", "one"]).await;
    let mut other =
        Server::start_gateway(&["--store", &url, "--control-token-name", "other"]).await;
    put(&one, "alice", TASK).await;
    put(&other, "alice", OFFICE).await;
    other.kill().await;
    let again = Server::start_gateway(&["--store", &url]).await;
    // Made whether or not the killed gateway, live until its grace period
    // runs out, is named as not confirming it (202).
    let (status, answer) = call(
        &again,
        Method::PUT,
        "/api/v1/agents/bob",
        Some(json!({"profile": serde_json::from_str::<Value>(TASK).unwrap()})),
    )
    .await;
    assert!(matches!(status, 200 | 202), "{answer}");
    for gateway in [&one, &again] {
        let (records, _) = page(gateway, "").await;
        let who: Vec<(&str, &str)> = records
            .iter()
            .map(|r| {
                (
                    r["actor"].as_str().unwrap(),
                    r["principal"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            who,
            [("one", "alice"), ("other", "alice"), ("control", "bob")],
            "every gateway's changes, in order, through any gateway"
        );
        assert_eq!(seqs(&records), [1, 2, 3]);
    }
}

#[test]
fn a_control_token_name_that_is_the_token_is_refused() {
    let output = run(&[
        "gateway",
        "--http",
        "127.0.0.1:0",
        "--control",
        "127.0.0.1:0",
        "--control-token",
        TOKEN,
        "--control-token-name",
        TOKEN,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--control-token-name"), "{stderr}");
    assert!(
        !stderr.contains(TOKEN),
        "the token is never shown: {stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_records_its_live_changes_in_memory() {
    let server = Server::start_with_args(&["--control-token-name", "backend"]).await;
    let first = server.profile(&reqwest::Client::new()).await;
    let changes: [(&str, Value); 5] = [
        (
            "/api/v1/mcp/profile",
            json!({"surface": "kanban-task", "capabilities": ["user-question"]}),
        ),
        ("/api/v1/mcp/mode", json!({"mode": "config"})),
        ("/api/v1/mcp/policy", json!({"read_only": true})),
        (
            "/api/v1/mcp/kill-switch",
            json!({"deny": ["related-tasks"]}),
        ),
        (
            "/api/v1/mcp/plugin-tools",
            serde_json::from_str(&snapshot(1, vec![tool("echo", &["kanban-task"])])).unwrap(),
        ),
    ];
    let mut answers = vec![first];
    for (n, (path, body)) in changes.into_iter().enumerate() {
        let id = format!("s-{n}");
        answers.push(ok(&server, Method::PUT, path, &id, Some(body)).await);
    }
    // A refused change records nothing.
    let (status, _, _) = send(
        &server,
        Method::PUT,
        "/api/v1/mcp/mode",
        Some("s-bad"),
        Some(json!({"mode": "nonsense"})),
    )
    .await;
    assert_eq!(status, 400);

    let (records, _) = page(&server, "").await;
    // The launch leads, from no agent to the profile served first.
    let (launch, records) = records.split_first().expect("the launch");
    assert_eq!(
        (&launch["before"], &launch["after"]["context"]),
        (&Value::Null, &answers[0]["profile"])
    );
    let kinds: Vec<String> = said(records).into_iter().map(|(kind, _)| kind).collect();
    assert_eq!(
        kinds,
        [
            "profile-put",
            "profile-put",
            "profile-put",
            "kill-switch",
            "catalog-put"
        ]
    );
    assert!(records.iter().all(|r| r["actor"] == "backend"));
    assert!(
        records.iter().all(|r| r["principal"]
            == if r["kind"] == "kill-switch" {
                Value::Null
            } else {
                json!("task-2")
            }),
        "the demo's agent, task-2; the kill switch is every agent's"
    );
    for n in 0..3 {
        assert_eq!(
            records[n]["before"]["context"], answers[n]["profile"],
            "{n}"
        );
        assert_eq!(
            records[n]["after"]["context"],
            answers[n + 1]["profile"],
            "{n}"
        );
        let (added, removed) = diff(&names(&answers[n]), &names(&answers[n + 1]));
        assert_eq!(
            (&records[n]["added"], &records[n]["removed"]),
            (&added, &removed),
            "{n}"
        );
    }
    assert_eq!(
        records[3]["after"],
        json!({"deny": ["related-tasks"], "version": 1})
    );
    assert_eq!(
        (&records[4]["after"]["catalog"], &records[4]["added"]),
        (
            &json!({"generation": "gen-1", "revision": 1, "tools": 1}),
            &json!([acme("echo")])
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_sqlite_cannot_save_refuses_the_change() {
    let (db, _) = Db::init();
    let http = reqwest::Client::new();
    let server = db.serve("task-2", &[]).await;
    let session = server.connect().await;
    let profile = server.profile(&http).await;
    let closed = rusqlite::Connection::open(&db.path).unwrap();
    closed
        .execute_batch(
            "CREATE TRIGGER closed BEFORE INSERT ON audit
             BEGIN SELECT RAISE(ABORT, 'the audit trail is closed'); END;",
        )
        .unwrap();
    let stored_autopilot = || -> bool {
        db.read_only()
            .query_row(
                "SELECT autopilot FROM tasks WHERE id = 'task-2'",
                [],
                |row| row.get(0),
            )
            .unwrap()
    };

    for (path, body) in [
        (
            "/api/v1/tasks/task-2/autopilot",
            json!({"autopilot": false}),
        ),
        ("/api/v1/mcp/policy", json!({"read_only": true})),
        (
            "/api/v1/mcp/kill-switch",
            json!({"deny": ["related-tasks"]}),
        ),
        ("/api/v1/mcp/profile", json!({"surface": "office-task"})),
    ] {
        let (status, answer) = server.put(&http, path, body).await;
        let error = answer["error"].as_str().unwrap();
        if path.starts_with("/api/v1/tasks/") {
            // Kandev's own route, saving the task and its record together.
            assert_eq!(status, 500, "{path}: {answer}");
            assert!(
                error.contains("the audit trail is closed"),
                "{path}: {error}"
            );
        } else {
            // Through the store, whose trail refused the record: the
            // library's answer (the trail's own words are logged).
            assert_eq!(status, 503, "{path}: {answer}");
            assert!(error.contains("refused the change"), "{path}: {error}");
        }
    }
    assert!(stored_autopilot(), "the task row was not saved");
    assert_eq!(server.profile(&http).await, profile, "nothing moved");
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 0, "no session was told anything");
    let (records, _) = page(&server, "").await;
    assert_eq!(records.len(), 1, "only the launch: {records:?}");

    // The trail open again, the change is made and recorded.
    closed.execute_batch("DROP TRIGGER closed;").unwrap();
    let answer = server
        .put_ok(
            &http,
            "/api/v1/tasks/task-2/autopilot",
            json!({"autopilot": false}),
        )
        .await;
    assert_eq!(answer["changed"], true);
    assert!(!stored_autopilot());
    let (records, _) = page(&server, "principal=task-2").await;
    assert_eq!(said(&records)[1].0, "task-autopilot", "after the launch");
    assert_eq!(records[1]["after"]["context"], answer["profile"]);
    assert_eq!(
        session
            .wait_for_notifications(1, crate::common::LIMIT)
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_is_the_librarys_api_over_its_one_agent_recorded_in_sqlite() {
    let (db, _) = Db::init();
    let server = db.serve("task-2", &[]).await;
    let session = server.connect().await;
    let agent = ok(&server, Method::GET, "/api/v1/agents/task-2", "a-1", None).await;
    assert_eq!(
        agent["version"], 1,
        "the task served is the store's one agent"
    );

    // A compare-and-set through the library's route, recorded in SQLite.
    let body = json!({"profile": {"surface": "office-task"}, "version": 1});
    let put = ok(
        &server,
        Method::PUT,
        "/api/v1/agents/task-2",
        "a-2",
        Some(body.clone()),
    )
    .await;
    assert_eq!(
        (put["version"].clone(), put["changed"].clone()),
        (json!(2), json!(true))
    );
    session
        .expect_exactly(&[(mcp_profiles_tests::client::List::Tools, 1)])
        .await;
    let (status, _, stale) = send(
        &server,
        Method::PUT,
        "/api/v1/agents/task-2",
        None,
        Some(body),
    )
    .await;
    assert_eq!(status, 409, "{stale}");
    // A legacy route changes the same agent, the version going on.
    ok(
        &server,
        Method::PUT,
        "/api/v1/mcp/mode",
        "a-3",
        Some(json!({"mode": "task"})),
    )
    .await;
    let stored: Vec<(String, String)> = db
        .read_only()
        .prepare("SELECT kind, request_id FROM audit ORDER BY seq")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        stored[0].1,
        format!("launch-{}", server.pid()),
        "its start, version 1"
    );
    assert_eq!(
        stored[1..],
        [
            ("profile-put".into(), "a-2".into()),
            ("profile-put".into(), "a-3".into())
        ]
    );
    let (records, _) = page(&server, "").await;
    assert_eq!(records[2]["after"]["version"], 3);

    // The past, from the same trail: at revision 2 it was office-task.
    let past = ok(
        &server,
        Method::GET,
        "/api/v1/agents/task-2/exposure?revision=2",
        "a-4",
        None,
    )
    .await;
    assert_eq!(past["agent"]["profile"]["surface"], "office-task", "{past}");

    // One agent: none created, none deleted, no token granted.
    let other = json!({"profile": {"surface": "office-task"}});
    let (status, _, answer) = send(
        &server,
        Method::PUT,
        "/api/v1/agents/bob",
        None,
        Some(other),
    )
    .await;
    assert_eq!(status, 404, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("one agent, `task-2`"),
        "{answer}"
    );
    let (status, _, _) = send(&server, Method::DELETE, "/api/v1/agents/task-2", None, None).await;
    assert_eq!(status, 405);
    let grant = json!({"token": "bob-token", "principal": "task-2"});
    let (status, _, _) = send(&server, Method::POST, "/api/v1/tokens", None, Some(grant)).await;
    assert_eq!(status, 404);
    assert_eq!(
        page(&server, "").await.0.len(),
        3,
        "the launch and two changes: refusals record nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_logs_its_decisions_in_sqlite_and_a_restart_goes_on_from_its_versions() {
    let (db, _) = Db::init();
    let mut server = db.serve("task-2", &["--log-decisions"]).await;
    let session = server.connect().await;
    // One call let run, one refused: outside the profile.
    let served = session.tool_names().await;
    session.call(&served[0], Some(json!({}))).await;
    session
        .call("create_workflow_kandev", Some(json!({})))
        .await;
    // The task's autopilot flipped: the profile moves to version 2, one
    // call more under it.
    let flipped = ok(
        &server,
        Method::PUT,
        "/api/v1/tasks/task-2/autopilot",
        "flip",
        Some(json!({"autopilot": false})),
    )
    .await;
    assert_eq!(flipped["changed"], true, "{flipped}");
    session.call(&served[0], Some(json!({}))).await;
    let shipped = || -> i64 {
        db.read_only()
            .query_row("SELECT count(*) FROM decisions", [], |row| row.get(0))
            .unwrap()
    };
    // Shipped every 100 ms: wait for both rows, a bounded number of looks.
    for _ in 0..200 {
        if shipped() == 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(shipped(), 3, "every decision reaches the database");
    let verified = run(&["trail", "--db", db.arg(), "verify"]);
    assert!(verified.status.success(), "{verified:?}");
    assert_eq!(
        String::from_utf8_lossy(&verified.stdout).trim(),
        "3 decisions: 3 judged, 0 unjudged, 0 mismatches",
        "the launch's and the task's records let every decision be judged"
    );
    let explained = run(&[
        "trail",
        "--db",
        db.arg(),
        "explain",
        "task-2",
        "--revision",
        "1",
    ]);
    let past: Value = serde_json::from_slice(&explained.stdout).expect("explain's JSON");
    assert_eq!(past["agent"]["version"], 1, "{past}");
    assert!(
        past["tools"]
            .as_array()
            .unwrap()
            .contains(&json!(served[0]))
    );

    // A restart goes on from the versions the trail holds.
    drop(session);
    server.kill().await;
    let server = db.serve("task-2", &[]).await;
    let agent = ok(&server, Method::GET, "/api/v1/agents/task-2", "r-1", None).await;
    assert_eq!(agent["version"], 3, "{agent}");
    let (records, _) = page(&server, "").await;
    let launches: Vec<&Value> = records
        .iter()
        .filter(|r| r["request_id"].as_str().unwrap().starts_with("launch-"))
        .collect();
    assert_eq!(launches.len(), 2, "each start is recorded");
    assert_eq!(launches[1]["after"]["version"], 3);
    assert_eq!(launches[1]["actor"], "kandev-mcp-serve");
}
