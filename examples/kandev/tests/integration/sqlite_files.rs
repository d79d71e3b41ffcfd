//! The SQLite file itself: what tools write survives a restart, concurrent
//! changes leave it consistent, two servers share it without writing over
//! each other, and a file that is damaged, newer, foreign or unreadable is
//! refused with exit 2 naming it, unchanged.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::{Db, Server, call, run};
use kandev_mcp::db::SCHEMA_VERSION;
use kandev_mcp::resolver::{SessionFacts, resolve};
use rmcp::model::CallToolRequestParams;
use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

fn read_only(path: &Path) -> Connection {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

fn stored_autopilot(path: &Path, task: &str) -> bool {
    read_only(path)
        .query_row("SELECT autopilot FROM tasks WHERE id = ?1", [task], |row| {
            row.get(0)
        })
        .unwrap()
}

fn task_titles(path: &Path) -> BTreeSet<String> {
    let conn = read_only(path);
    let mut statement = conn.prepare("SELECT title FROM tasks").unwrap();
    let titles = statement.query_map([], |row| row.get(0)).unwrap();
    titles.collect::<rusqlite::Result<_>>().unwrap()
}

async fn stop(mut server: Server) {
    let (status, stderr) = server.signal_and_wait("TERM").await;
    assert!(status.success(), "serve exited {status:?}: {stderr}");
}

/// A created task's id, from `create_task_kandev`'s answer.
fn created_id(answer: &str) -> String {
    let answer: Value = serde_json::from_str(answer).unwrap();
    let id = answer["id"].as_str().or(answer["task"]["id"].as_str());
    id.unwrap_or_else(|| panic!("no id in {answer}")).to_owned()
}

#[tokio::test]
async fn a_board_change_made_by_a_tool_survives_a_restart() {
    let (db, _) = Db::init();
    let server = db.serve("task-4", &[]).await;
    let session = server.connect().await;
    let (failed, text) = call(
        &session.service,
        "update_task_kandev",
        json!({ "task_id": "task-4", "title": "Fix the login test for good" }),
    )
    .await;
    assert!(!failed, "{text}");
    let (failed, text) = call(
        &session.service,
        "create_task_kandev",
        json!({ "title": "Made by an agent", "parent_id": "task-4" }),
    )
    .await;
    assert!(!failed, "{text}");
    let created = created_id(&text);
    drop(session);
    stop(server).await;

    let titles = task_titles(&db.path);
    assert!(titles.contains("Fix the login test for good"), "{titles:?}");
    assert!(titles.contains("Made by an agent"), "{titles:?}");
    let server = db.serve("task-4", &[]).await;
    let session = server.connect().await;
    let (failed, text) = call(
        &session.service,
        "list_tasks_kandev",
        json!({ "workflow_id": "wf-1" }),
    )
    .await;
    assert!(!failed, "{text}");
    assert!(text.contains("Fix the login test for good"), "{text}");
    assert!(text.contains(&created), "{text}");
    // The created task is a stored task like any other: it can be served.
    drop(session);
    stop(server).await;
    let server = db.serve(&created, &[]).await;
    let profile = server.profile(&reqwest::Client::new()).await;
    let facts = SessionFacts {
        has_direct_parent: true,
        ..SessionFacts::default()
    };
    assert_eq!(
        profile["profile"],
        serde_json::to_value(resolve(&facts)).unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_flips_and_tool_calls_leave_the_file_consistent() {
    let (db, _) = Db::init();
    let server = db.serve("task-2", &[]).await;
    let session = server.connect().await;
    let http = reqwest::Client::new();
    // Under the control listener's 32 connections: each flip is one.
    const ROUNDS: usize = 24;
    // Each flip and each call on its own task, all at once.
    let mut running = tokio::task::JoinSet::new();
    for round in 0..ROUNDS {
        let url = format!("{}/api/v1/tasks/task-2/autopilot", server.control);
        let request = http
            .put(url)
            .header("Authorization", common::BEARER)
            .json(&json!({ "autopilot": round % 2 == 0 }));
        running.spawn(async move {
            let response = request.send().await.expect("the control API answers");
            assert_eq!(response.status().as_u16(), 200);
        });
        let (tool, args) = if round % 2 == 0 {
            let title = format!("Registry, round {round}");
            (
                "update_task_kandev",
                json!({ "task_id": "task-2", "title": title }),
            )
        } else {
            let title = format!("Child {round}");
            (
                "create_task_kandev",
                json!({ "title": title, "parent_id": "task-2" }),
            )
        };
        let params =
            CallToolRequestParams::new(tool).with_arguments(args.as_object().unwrap().clone());
        let peer = session.service.peer().clone();
        running.spawn(async move {
            let result = peer.call_tool(params).await.expect("a tool result");
            assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
        });
    }
    while let Some(joined) = running.join_next().await {
        joined.expect("no flip or call failed");
    }

    // The live profile is what the stored value resolves to.
    let autopilot = stored_autopilot(&db.path, "task-2");
    let facts = SessionFacts {
        autopilot,
        has_direct_parent: true,
        ..SessionFacts::default()
    };
    let expected = serde_json::to_value(resolve(&facts)).unwrap();
    assert_eq!(server.profile(&http).await["profile"], expected);
    let titles = task_titles(&db.path);
    let children = titles
        .iter()
        .filter(|title| title.starts_with("Child "))
        .count();
    assert_eq!(children, ROUNDS / 2, "{titles:?}");
    assert!(
        titles
            .iter()
            .any(|title| title.starts_with("Registry, round ")),
        "{titles:?}"
    );
    let check: String = read_only(&db.path)
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(session);
    stop(server).await;
    let server = db.serve("task-2", &[]).await;
    assert_eq!(server.profile(&http).await["profile"], expected);
}

#[tokio::test]
async fn two_servers_on_one_file_never_write_over_each_other() {
    let (db, _) = Db::init();
    let first = db.serve("task-4", &[]).await;
    let second = db.serve("task-1", &[]).await;
    let (a, b) = (first.connect().await, second.connect().await);
    let mut ids = BTreeSet::new();
    for round in 0..5 {
        for (name, session) in [("first", &a), ("second", &b)] {
            let args = json!({ "title": format!("{name} {round}") });
            let (failed, text) = call(&session.service, "create_task_kandev", args).await;
            assert!(!failed, "{text}");
            assert!(
                ids.insert(created_id(&text)),
                "an id was handed out twice: {text}"
            );
        }
    }
    // Each server sees the other's tasks: it read the file again.
    let (_, listed) = call(
        &a.service,
        "list_tasks_kandev",
        json!({ "workflow_id": "wf-1" }),
    )
    .await;
    assert!(listed.contains("second 4"), "{listed}");
    drop((a, b));
    stop(first).await;
    stop(second).await;
    let titles = task_titles(&db.path);
    assert_eq!(titles.len(), 6 + 10, "{titles:?}");
}

/// Runs `serve` on `path` and asserts exit 2 with one error line naming the
/// file and containing `message`; the file's bytes are unchanged.
fn refused(path: &Path, message: &str) {
    let before = std::fs::read(path).unwrap();
    let output = run(&["serve", "--db", path.to_str().unwrap(), "--task", "task-1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("`{}`", path.display())),
        "{stderr}"
    );
    assert!(stderr.contains(message), "{stderr}");
    assert!(
        std::fs::read(path).unwrap() == before,
        "the refused file was changed"
    );
}

#[test]
fn damaged_newer_foreign_and_unreadable_files_are_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.db");
    std::fs::write(&garbage, vec![0x5a; 8192]).unwrap();
    refused(&garbage, "file is not a database");

    let (newer, _) = Db::init();
    let conn = Connection::open(&newer.path).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    refused(
        &newer.path,
        &format!("schema version {} is newer", SCHEMA_VERSION + 1),
    );

    let foreign = dir.path().join("foreign.db");
    let conn = Connection::open(&foreign).unwrap();
    conn.execute_batch("CREATE TABLE notes (body TEXT)")
        .unwrap();
    drop(conn);
    refused(&foreign, "not a kandev-mcp database");

    let (unknown, _) = Db::init();
    let conn = Connection::open(&unknown.path).unwrap();
    conn.execute_batch("INSERT INTO records VALUES ('widgets', 'w-1', '{}')")
        .unwrap();
    drop(conn);
    refused(&unknown.path, "`widgets` is not a collection");

    // A page in the middle overwritten: the header still reads, the b-tree
    // does not.
    let (damaged, _) = Db::init();
    let mut bytes = std::fs::read(&damaged.path).unwrap();
    assert!(bytes.len() >= 3 * 4096, "{} bytes", bytes.len());
    bytes[4096..2 * 4096].fill(0xa5);
    std::fs::write(&damaged.path, bytes).unwrap();
    refused(&damaged.path, "");
}

#[tokio::test]
async fn an_older_schema_is_migrated_in_order() {
    let (db, _) = Db::init();
    let conn = Connection::open(&db.path).unwrap();
    // Back to what version 1 wrote: no index (2), no task metadata (4), no
    // audit trail (5), no decision log (6).
    conn.execute_batch(
        "DROP INDEX tasks_by_parent;
         ALTER TABLE tasks DROP COLUMN metadata;
         DROP TABLE audit;
         DROP TABLE decisions;
         PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);
    let server = db.serve("task-2", &[]).await;
    stop(server).await;
    let conn = read_only(&db.path);
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let index: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'tasks_by_parent'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(index, 1);
    let metadata: String = conn
        .query_row(
            "SELECT metadata FROM tasks WHERE id = 'task-2'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(metadata, "{}");
    let audit: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'audit'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(audit, 1, "step 5 made the audit table");
}

#[test]
fn init_refuses_a_path_that_exists_and_serve_one_that_does_not() {
    let (db, _) = Db::init();
    let output = run(&["init", "--db", db.arg()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(db.arg()) && stderr.contains("already exists"),
        "{stderr}"
    );

    let missing = db.dir.path().join("missing.db");
    let output = run(&[
        "serve",
        "--db",
        missing.to_str().unwrap(),
        "--task",
        "task-1",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no such file"), "{stderr}");
    assert!(!missing.exists(), "serve created the file");

    // --providers needs something to attach to: --mode or --task.
    for command in [
        vec!["serve", "--providers", "github"],
        vec![
            "tools",
            "--profile",
            r#"{"surface":"external"}"#,
            "--providers",
            "github",
        ],
    ] {
        let output = run(&command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command:?}: {stderr}");
        assert!(
            stderr.contains("--providers goes with --mode"),
            "{command:?}: {stderr}"
        );
    }

    for (args, message) in [
        (vec!["--task", "task-99"], "has no task `task-99`"),
        (
            vec!["--task", "task-6", "--session", "session-1"],
            "belongs to task `task-2`",
        ),
        (
            vec!["--task", "task-6", "--session", "session-9"],
            "no session `session-9`",
        ),
    ] {
        let mut command = vec!["serve", "--db", db.arg()];
        command.extend(args);
        let output = run(&command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command:?}: {stderr}");
        assert!(stderr.contains(message), "{command:?}: {stderr}");
    }
}
