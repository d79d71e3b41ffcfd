//! The canvas tools' pure functions over the demo board.

use serde_json::{Value, json};

use super::*;
use crate::store::Board;

/// The demo board with one draft canvas of `task-4`; its id.
fn with_canvas() -> (Board, String) {
    let mut board = Board::demo();
    let created = authoring::create(
        &mut board,
        "task-4",
        NewCanvas {
            title: "Release board".into(),
            summary: "Shows deployment health.".into(),
        },
    )
    .unwrap();
    assert_eq!(created["status"], "draft");
    let id = created["canvas_id"].as_str().unwrap().to_owned();
    assert_eq!(created["source_root"], format!(".kandev/canvases/{id}"));
    assert!(
        created["scaffold"]
            .as_array()
            .unwrap()
            .contains(&json!(format!(".kandev/canvases/{id}/index.html")))
    );
    (board, id)
}

fn write(id: &str, key: &str, value: Value, expected_revision: Option<u64>) -> CanvasStateWrite {
    CanvasStateWrite {
        canvas_id: id.into(),
        key: key.into(),
        value,
        expected_revision,
    }
}

#[test]
fn a_published_source_inside_the_canvas_folder_becomes_the_live_release() {
    let (mut board, id) = with_canvas();
    let publish = |path: &str| Publish {
        canvas_id: id.clone(),
        source_path: path.into(),
    };
    for outside in [
        "/etc",
        "../x",
        ".kandev/canvases",
        &format!(".kandev/canvases/{id}/../other"),
        &format!(".kandev/canvases/{id}x"),
        "https://example.invalid/app",
    ] {
        let error = authoring::publish(&mut board, "task-4", publish(outside)).unwrap_err();
        assert_eq!(error.field, "source_path", "{outside}");
    }
    let root = format!(".kandev/canvases/{id}/");
    let published = authoring::publish(&mut board, "task-4", publish(&root)).unwrap();
    assert_eq!(published["release"]["number"], 1);
    let shown = authoring::get(
        &board,
        "task-4",
        CanvasRef {
            canvas_id: id.clone(),
        },
    )
    .unwrap();
    assert_eq!(shown["status"], "active");
    assert_eq!(
        shown["live_release"]["source_path"],
        root.trim_end_matches('/')
    );
}

#[test]
fn another_tasks_canvas_is_not_found() {
    let (mut board, id) = with_canvas();
    let error = authoring::get(
        &board,
        "task-2",
        CanvasRef {
            canvas_id: id.clone(),
        },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("invalid `canvas_id`: task `task-2` has no canvas `{id}`")
    );
    let error = authoring::set_state(&mut board, "task-2", write(&id, "k", json!(1), None));
    assert_eq!(error.unwrap_err().field, "canvas_id");
    assert_eq!(
        authoring::list(&board, "task-2").unwrap()["canvases"],
        json!([])
    );
}

#[test]
fn state_writes_move_the_revision_and_refuse_stale_ones() {
    let (mut board, id) = with_canvas();
    let first = authoring::set_state(
        &mut board,
        "task-4",
        write(&id, "filter", json!("open"), Some(0)),
    );
    assert_eq!(first.unwrap()["revision"], 1);
    let stale = authoring::set_state(
        &mut board,
        "task-4",
        write(&id, "filter", json!(null), Some(0)),
    );
    assert_eq!(stale.unwrap_err().field, "expected_revision");
    authoring::set_state(
        &mut board,
        "task-4",
        write(&id, "rows", json!([1, 2]), None),
    )
    .unwrap();
    let read = |key: Option<&str>| CanvasStateRead {
        canvas_id: id.clone(),
        key: key.map(str::to_owned),
    };
    let whole = authoring::get_state(&board, "task-4", read(None)).unwrap();
    assert_eq!(whole["state"], json!({ "filter": "open", "rows": [1, 2] }));
    assert_eq!(whole["revision"], 2);
    let missing = authoring::get_state(&board, "task-4", read(Some("sort"))).unwrap();
    assert_eq!(
        (&missing["present"], &missing["value"]),
        (&json!(false), &Value::Null)
    );
    let huge = json!("x".repeat(crate::store::MAX_DOCUMENT_BYTES));
    let error = authoring::set_state(&mut board, "task-4", write(&id, "big", huge, None));
    assert_eq!(error.unwrap_err().field, "value");
    assert_eq!(
        board.canvases[&id].state_revision, 2,
        "a refused write changes nothing"
    );
}

#[test]
fn the_guide_serves_only_its_own_files() {
    let guide = authoring::read_guide(GuidePath { path: None }).unwrap();
    assert_eq!(guide["path"], "SKILL.md");
    assert!(
        guide["content"]
            .as_str()
            .unwrap()
            .contains("publish_canvas_kandev")
    );
    let file = authoring::read_guide(GuidePath {
        path: Some("reference/state.md".into()),
    })
    .unwrap();
    assert!(
        file["content"]
            .as_str()
            .unwrap()
            .contains("expected_revision")
    );
    let error = authoring::read_guide(GuidePath {
        path: Some("../../etc/passwd".into()),
    })
    .unwrap_err();
    assert_eq!(error.field, "path");
    assert!(error.message.contains("one of: SKILL.md"), "{error}");
}

#[test]
fn a_missing_state_value_is_refused_but_null_is_a_value() {
    let parse = |arguments: Value| serde_json::from_value::<CanvasStateWrite>(arguments);
    let missing = parse(json!({ "canvas_id": "c", "key": "k" }))
        .err()
        .unwrap();
    assert!(
        missing.to_string().contains("missing field `value`"),
        "{missing}"
    );
    let null = parse(json!({ "canvas_id": "c", "key": "k", "value": null })).unwrap();
    assert_eq!(null.value, Value::Null);
}
