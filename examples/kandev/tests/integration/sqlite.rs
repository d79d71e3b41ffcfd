//! The board on SQLite, end to end: `kandev-mcp init` makes the file,
//! `serve --db --task` resolves each session's profile from the stored task,
//! the control API's task routes save a change and replace the live profile,
//! and everything survives a restart. Real rmcp clients over streamable
//! HTTP against the built binary and a real file in a temporary directory.

use crate::common;

use crate::common::{Db, LIMIT, QUIET, Server};
use kandev_mcp::Provider;
use kandev_mcp::resolver::{Purpose, SessionFacts, resolve};
use mcp_profiles_tests::client::Session;
use serde_json::{Value, json};

/// The profile `resolve` gives `facts`, as the control API shows it.
fn resolved(facts: SessionFacts) -> Value {
    serde_json::to_value(resolve(&facts)).unwrap()
}

fn task(autopilot: bool, has_direct_parent: bool) -> SessionFacts {
    SessionFacts {
        autopilot,
        has_direct_parent,
        ..SessionFacts::default()
    }
}

/// What the server says its profile is, checked against what a connected
/// client lists.
async fn live_profile(server: &Server, session: &Session) -> Value {
    let answer = server.profile(&reqwest::Client::new()).await;
    let tools: Vec<String> = serde_json::from_value(answer["tools"].clone()).unwrap();
    assert_eq!(
        session.tool_names().await,
        tools,
        "the client lists the profile's tools"
    );
    answer["profile"].clone()
}

/// Stops `server` with SIGTERM; panics unless it exits 0.
async fn stop(mut server: Server) {
    let (status, stderr) = server.signal_and_wait("TERM").await;
    assert!(status.success(), "serve exited {status:?}: {stderr}");
}

#[tokio::test]
async fn init_prints_every_kind_of_demo_task() {
    let (_db, printed) = Db::init();
    let tasks = printed["tasks"].as_array().expect("a task list");
    let find = |id: &str| {
        tasks
            .iter()
            .find(|task| task["id"] == id)
            .unwrap_or_else(|| panic!("{id} in {printed}"))
    };
    for task in tasks {
        let mut keys: Vec<&str> = task
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "autopilot",
                "id",
                "office",
                "parent_id",
                "title",
                "title_owner_session"
            ]
        );
    }
    assert_eq!(find("task-1")["autopilot"], true, "an autopilot root");
    assert_eq!(find("task-1")["parent_id"], Value::Null);
    for child in ["task-2", "task-3"] {
        assert_eq!(
            find(child)["autopilot"],
            true,
            "{child}: an autopilot child"
        );
        assert_eq!(find(child)["parent_id"], "task-1");
    }
    assert_eq!(find("task-4")["autopilot"], false, "a normal task");
    assert_eq!(find("task-5")["office"], true, "an office task");
    assert_eq!(find("task-6")["title_owner_session"], "session-2");
}

#[tokio::test]
async fn each_task_kind_launches_with_the_resolvers_profile() {
    let (db, _) = Db::init();
    let github = || vec![Provider::Github, Provider::Gitlab];
    let cases: Vec<(&str, Vec<&str>, SessionFacts)> = vec![
        ("task-4", vec![], task(false, false)),
        (
            "task-4",
            vec!["--passthrough"],
            SessionFacts {
                passthrough: true,
                ..task(false, false)
            },
        ),
        (
            "task-4",
            vec!["--providers", "github,gitlab"],
            SessionFacts {
                providers: github(),
                ..task(false, false)
            },
        ),
        ("task-2", vec![], task(true, true)),
        (
            "task-2",
            vec!["--passthrough"],
            SessionFacts {
                passthrough: true,
                ..task(true, true)
            },
        ),
        ("task-1", vec![], task(true, false)),
        (
            "task-5",
            vec![],
            SessionFacts {
                purpose: Purpose::Office,
                ..task(false, false)
            },
        ),
        (
            "task-6",
            vec!["--session", "session-2"],
            SessionFacts {
                title_owner: true,
                ..task(false, false)
            },
        ),
        ("task-6", vec![], task(false, false)),
        (
            "task-4",
            vec!["--purpose", "config"],
            SessionFacts {
                purpose: Purpose::Config,
                ..task(false, false)
            },
        ),
    ];
    for (task_id, extra, facts) in cases {
        let server = db.serve(task_id, &extra).await;
        let session = server.connect().await;
        let expected = resolved(facts);
        assert_eq!(
            live_profile(&server, &session).await,
            expected,
            "{task_id} {extra:?}"
        );
        stop(server).await;
    }
}

#[tokio::test]
async fn flipping_autopilot_notifies_once_and_survives_a_restart() {
    let (db, _) = Db::init();
    let http = reqwest::Client::new();
    let server = db.serve("task-2", &[]).await;
    let session = server.connect().await;
    assert_eq!(
        live_profile(&server, &session).await,
        resolved(task(true, true))
    );

    let answer = server
        .put_ok(
            &http,
            "/api/v1/tasks/task-2/autopilot",
            json!({ "autopilot": false }),
        )
        .await;
    assert_eq!(answer["live"], true);
    assert_eq!(answer["changed"], true);
    assert_eq!(answer["task"]["autopilot"], false);
    assert_eq!(answer["profile"], resolved(task(false, true)));
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 1, "exactly one list_changed");
    let profile = live_profile(&server, &session).await;
    assert_eq!(profile, resolved(task(false, true)));

    // The same value again saves nothing new and sends nothing.
    let again = server
        .put_ok(
            &http,
            "/api/v1/tasks/task-2/autopilot",
            json!({ "autopilot": false }),
        )
        .await;
    assert_eq!(again["changed"], false);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 1);
    drop(session);
    stop(server).await;

    // Resume: the saved value decides.
    let server = db.serve("task-2", &[]).await;
    let session = server.connect().await;
    assert_eq!(live_profile(&server, &session).await, profile);
    // Changed while it is down (through a server for another task): the
    // next launch resolves the new value.
    let other = db.serve("task-1", &[]).await;
    drop(session);
    stop(server).await;
    let answer = other
        .put_ok(
            &http,
            "/api/v1/tasks/task-2/autopilot",
            json!({ "autopilot": true }),
        )
        .await;
    assert_eq!(answer["live"], false, "{answer}");
    assert!(answer.get("profile").is_none(), "{answer}");
    let server = db.serve("task-2", &[]).await;
    let session = server.connect().await;
    assert_eq!(
        live_profile(&server, &session).await,
        resolved(task(true, true))
    );
    // Every flip is in the file's audit trail, whichever process made it,
    // across the restarts: the profile the served task had and got (for
    // the flips of the task a process served), the request and the tools.
    let trail = server.audit(&http, "").await;
    // Not each process's launch, recorded too.
    let records: Vec<&Value> = trail["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter(|r| r["kind"] != "profile-put")
        .collect();
    let said: Vec<(&str, &str, bool, bool)> = records
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap(),
                r["principal"].as_str().unwrap(),
                r["before"]["task"]["autopilot"].as_bool().unwrap(),
                r["after"]["task"]["autopilot"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("task-autopilot", "task-2", true, false),
            ("task-autopilot", "task-2", false, true),
        ],
        "one record per change; the same value again changed nothing: {trail}"
    );
    assert_eq!(records[0]["before"]["context"], resolved(task(true, true)));
    assert_eq!(records[0]["after"]["context"], resolved(task(false, true)));
    assert!(
        !records[0]["added"].as_array().unwrap().is_empty()
            && !records[0]["removed"].as_array().unwrap().is_empty(),
        "{}",
        records[0]
    );
    assert!(
        records[1]["before"].get("context").is_none(),
        "a process that does not serve the task records no live profile: {}",
        records[1]
    );
    let seqs: Vec<u64> = records.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert!(seqs[0] < seqs[1], "numbered in the order made: {seqs:?}");
    assert!(records.iter().all(|r| r["actor"] == "control"));
    drop(session);
    stop(server).await;
    stop(other).await;

    // No profile was ever stored as state: the tasks and records hold only
    // the task's facts (the audit trail keeps the history of profiles).
    let conn = db.read_only();
    for table in ["tasks", "records"] {
        let rows: Vec<String> = conn
            .prepare(&format!("SELECT * FROM {table}"))
            .unwrap()
            .query_map([], |row| {
                let mut text = String::new();
                for column in 0..row.as_ref().column_count() {
                    let value: rusqlite::types::Value = row.get(column)?;
                    text.push_str(&format!("{value:?}"));
                }
                Ok(text)
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for term in [
            "kanban-task",
            "parent-question",
            "user-question",
            "capabilities",
        ] {
            assert!(
                !rows.iter().any(|row| row.contains(term)),
                "`{term}` is in the `{table}` table"
            );
        }
    }
}

#[tokio::test]
async fn title_ownership_moves_through_the_control_api_only() {
    let (db, _) = Db::init();
    let http = reqwest::Client::new();
    let server = db.serve("task-6", &["--session", "session-2"]).await;
    let session = server.connect().await;
    let owner = SessionFacts {
        title_owner: true,
        ..task(false, false)
    };
    assert_eq!(
        live_profile(&server, &session).await,
        resolved(owner.clone())
    );

    let path = "/api/v1/tasks/task-6/title-owner";
    let refusals = [
        (json!({}), 400, "missing field `session`"),
        (json!({ "session": 5 }), 400, "a session id or null, got 5"),
        (
            json!({ "session": "session-1" }),
            400,
            "belongs to task `task-2`",
        ),
        (
            json!({ "session": "session-9" }),
            400,
            "no session `session-9`",
        ),
        (
            json!({ "session": null, "owner": 1 }),
            400,
            "unknown field `owner`",
        ),
    ];
    for (body, status, message) in refusals {
        let (got, answer) = server.put(&http, path, body.clone()).await;
        assert_eq!(got, status, "{body}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains(message),
            "{body}: {answer}"
        );
    }
    // The same token, limits and error shape as every control route.
    let body = Some(json!({ "session": null }).to_string());
    let (status, answer) = server
        .control(
            &http,
            reqwest::Method::PUT,
            path,
            Some("Bearer wrong"),
            body,
        )
        .await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (401, Some("wrong bearer token"))
    );
    let huge = json!({ "session": "s".repeat(70 * 1024) });
    let (status, answer) = server.put(&http, path, huge).await;
    assert_eq!(status, 413, "{answer}");
    let (status, answer) = server
        .put(
            &http,
            "/api/v1/tasks/task-99/title-owner",
            json!({ "session": null }),
        )
        .await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (404, Some("no task `task-99`"))
    );
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 0, "refusals change nothing");

    let answer = server.put_ok(&http, path, json!({ "session": null })).await;
    assert_eq!(answer["task"]["title_owner_session"], Value::Null);
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    assert!(
        !session
            .tool_names()
            .await
            .contains(&"set_task_title_kandev".to_owned())
    );
    server
        .put_ok(&http, path, json!({ "session": "session-2" }))
        .await;
    assert_eq!(session.wait_for_notifications(2, LIMIT).await, 2);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 2);
    assert_eq!(
        live_profile(&server, &session).await,
        resolved(owner.clone())
    );
}

#[tokio::test]
async fn no_mcp_tool_changes_autopilot_or_title_ownership() {
    let (db, _) = Db::init();
    // Every tool any profile of this server can reach: the external surface
    // and the kanban-task one with every capability and provider.
    let server = db
        .serve(
            "task-6",
            &["--session", "session-2", "--providers", "github,gitlab"],
        )
        .await;
    let session = server.connect().await;
    let mut schemas = Vec::new();
    for context in [
        None,
        Some(r#"{"surface":"external"}"#),
        Some(r#"{"surface":"configuration"}"#),
        Some(r#"{"surface":"office-task"}"#),
    ] {
        if let Some(context) = context {
            server.replace(&reqwest::Client::new(), context).await;
        }
        for tool in session.service.list_all_tools().await.unwrap() {
            schemas.push((
                tool.name.to_string(),
                Value::Object((*tool.input_schema).clone()),
            ));
        }
    }
    for (name, schema) in &schemas {
        let text = schema.to_string();
        assert!(
            !text.contains("title_owner"),
            "{name} can change title ownership: {text}"
        );
        // Creating a task may start it on autopilot; nothing changes an
        // existing task's value.
        if name != "create_task_kandev" {
            assert!(
                !text.contains("autopilot"),
                "{name} takes autopilot: {text}"
            );
        }
    }
    assert!(schemas.len() > 70, "{} tools seen", schemas.len());
}

#[tokio::test]
async fn the_task_routes_need_a_stored_task() {
    let server = Server::start().await;
    let (status, answer) = server
        .put(
            &reqwest::Client::new(),
            "/api/v1/tasks/task-2/autopilot",
            json!({ "autopilot": true }),
        )
        .await;
    assert_eq!(status, 404, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("--db and --task"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_change_saved_by_another_server_reaches_the_live_sessions() {
    let (db, _) = Db::init();
    let http = reqwest::Client::new();
    let server = db.serve("task-2", &[]).await;
    let session = server.connect().await;
    let other = db.serve("task-1", &[]).await;
    // A tool call on the other server changes the file but not task-2's
    // facts: nothing is sent.
    let (failed, text) = common::call(
        &other.connect().await.service,
        "update_task_kandev",
        json!({ "task_id": "task-3", "title": "The runtime, again" }),
    )
    .await;
    assert!(!failed, "{text}");
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 0);

    let answer = other
        .put_ok(
            &http,
            "/api/v1/tasks/task-2/autopilot",
            json!({ "autopilot": false }),
        )
        .await;
    assert_eq!(answer["live"], false, "{answer}");
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 1, "exactly one list_changed");
    assert_eq!(
        live_profile(&server, &session).await,
        resolved(task(false, true))
    );
}
