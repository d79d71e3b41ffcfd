//! What the canvas tools do to the board: drafts, releases and shared
//! state of the bound task's canvases.

use serde_json::{Value, json};

use super::{CanvasRef, CanvasStateRead, CanvasStateWrite, GuidePath, NewCanvas, Publish, guide};
use crate::store::{
    BadField, Board, Canvas, CanvasRelease, check_document, check_name, check_text,
};

/// A canvas as the listing shows it.
fn summary(canvas: &Canvas) -> Value {
    json!({
        "canvas_id": canvas.id,
        "title": canvas.title,
        "status": status(canvas),
        "live_release": canvas.releases.last().map(|release| release.number),
    })
}

/// `draft` until a release is published, then `active`.
fn status(canvas: &Canvas) -> &'static str {
    if canvas.releases.is_empty() {
        "draft"
    } else {
        "active"
    }
}

/// The bound task's canvas `id`; another task's canvas is as missing as an
/// unknown one.
fn canvas_of<'a>(board: &'a Board, task_id: &str, id: &str) -> Result<&'a Canvas, BadField> {
    board
        .canvases
        .get(id)
        .filter(|canvas| canvas.task_id == task_id)
        .ok_or_else(|| {
            BadField::new(
                "canvas_id",
                format!("task `{task_id}` has no canvas `{id}`"),
            )
        })
}

fn canvas_mut<'a>(
    board: &'a mut Board,
    task_id: &str,
    id: &str,
) -> Result<&'a mut Canvas, BadField> {
    canvas_of(board, task_id, id)?;
    Ok(board.canvases.get_mut(id).expect("found above"))
}

/// The bound task's canvases.
pub(super) fn list(board: &Board, task_id: &str) -> Result<Value, BadField> {
    board.task("task_id", task_id)?;
    let canvases: Vec<Value> = board
        .canvases
        .values()
        .filter(|canvas| canvas.task_id == task_id)
        .map(summary)
        .collect();
    Ok(json!({ "task_id": task_id, "canvases": canvases }))
}

/// The guide, or one file of its bundle by exact path.
pub(super) fn read_guide(args: GuidePath) -> Result<Value, BadField> {
    let path = args.path.as_deref().unwrap_or(guide::GUIDE);
    let Some((path, content)) = guide::FILES.iter().find(|(known, _)| *known == path) else {
        let known: Vec<&str> = guide::FILES.iter().map(|(known, _)| *known).collect();
        return Err(BadField::new(
            "path",
            format!(
                "`{path}` is not a file of the guide; one of: {}",
                known.join(", ")
            ),
        ));
    };
    let files: Vec<&str> = guide::FILES.iter().map(|(known, _)| *known).collect();
    Ok(json!({ "version": guide::VERSION, "path": path, "content": content, "files": files }))
}

/// A new draft canvas of the bound task, with its source folder and the
/// scaffold's files in it.
pub(super) fn create(board: &mut Board, task_id: &str, args: NewCanvas) -> Result<Value, BadField> {
    board.task("task_id", task_id)?;
    let title = args.title.trim().to_owned();
    let summary = args.summary.trim().to_owned();
    for (field, value) in [("title", &title), ("summary", &summary)] {
        if value.is_empty() {
            return Err(BadField::new(field, "the value is empty"));
        }
    }
    check_name("title", &title)?;
    check_text("summary", &summary)?;
    board.make_room("title", 1)?;
    let id = board.next_id("canvas");
    let source_root = format!(".kandev/canvases/{id}");
    let scaffold: Vec<String> = guide::scaffold()
        .map(|file| format!("{source_root}/{file}"))
        .collect();
    board.canvases.insert(
        id.clone(),
        Canvas {
            id: id.clone(),
            task_id: task_id.to_owned(),
            title,
            summary,
            source_root: source_root.clone(),
            releases: Vec::new(),
            state: Default::default(),
            state_revision: 0,
        },
    );
    Ok(json!({
        "canvas_id": id,
        "status": "draft",
        "source_root": source_root,
        "scaffold": scaffold,
        "skill_version": guide::VERSION,
    }))
}

/// One of the bound task's canvases, with its live release.
pub(super) fn get(board: &Board, task_id: &str, args: CanvasRef) -> Result<Value, BadField> {
    let canvas = canvas_of(board, task_id, &args.canvas_id)?;
    Ok(json!({
        "canvas_id": canvas.id,
        "title": canvas.title,
        "summary": canvas.summary,
        "status": status(canvas),
        "source_root": canvas.source_root,
        "live_release": canvas.releases.last(),
        "releases": canvas.releases.len(),
        "state_revision": canvas.state_revision,
    }))
}

/// Checks that `path` is a relative path inside `root` (the canvas's own
/// source folder): no absolute path, URL, backslash, empty or `..` step.
fn check_source_path(root: &str, path: &str) -> Result<(), BadField> {
    check_name("source_path", path)?;
    let path = path.trim_end_matches('/');
    let malformed = path.starts_with('/')
        || path.contains('\\')
        || path.contains("://")
        || path
            .split('/')
            .any(|step| step.is_empty() || step == "." || step == "..");
    let inside = path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'));
    if malformed || !inside {
        return Err(BadField::new(
            "source_path",
            format!("`{path}` is not a relative path inside the canvas's source folder `{root}`"),
        ));
    }
    Ok(())
}

/// Publishes the source at `args.source_path` as the canvas's live release.
/// (The example reads no files: a source path inside the canvas's folder
/// is accepted as valid source.)
pub(super) fn publish(board: &mut Board, task_id: &str, args: Publish) -> Result<Value, BadField> {
    let canvas = canvas_mut(board, task_id, &args.canvas_id)?;
    check_source_path(&canvas.source_root, &args.source_path)?;
    let release = CanvasRelease {
        number: canvas.releases.len() as u64 + 1,
        source_path: args.source_path.trim_end_matches('/').to_owned(),
    };
    canvas.releases.push(release.clone());
    Ok(json!({ "canvas_id": canvas.id, "status": "active", "release": release }))
}

/// The canvas's shared state, whole or one key, with its revision.
pub(super) fn get_state(
    board: &Board,
    task_id: &str,
    args: CanvasStateRead,
) -> Result<Value, BadField> {
    let canvas = canvas_of(board, task_id, &args.canvas_id)?;
    let revision = canvas.state_revision;
    Ok(match args.key {
        None => json!({ "canvas_id": canvas.id, "state": canvas.state, "revision": revision }),
        Some(key) => json!({
            "canvas_id": canvas.id,
            "key": key,
            "present": canvas.state.contains_key(&key),
            "value": canvas.state.get(&key),
            "revision": revision,
        }),
    })
}

/// Stores one state value, refusing a stale `expected_revision` and a state
/// that would grow past one document's size.
pub(super) fn set_state(
    board: &mut Board,
    task_id: &str,
    args: CanvasStateWrite,
) -> Result<Value, BadField> {
    let canvas = canvas_mut(board, task_id, &args.canvas_id)?;
    if args.key.trim().is_empty() {
        return Err(BadField::new("key", "the key is empty"));
    }
    check_name("key", &args.key)?;
    if let Some(expected) = args.expected_revision
        && expected != canvas.state_revision
    {
        return Err(BadField::new(
            "expected_revision",
            format!(
                "stale: the state is at revision {}, not {expected}; read it again",
                canvas.state_revision
            ),
        ));
    }
    let mut state = canvas.state.clone();
    state.insert(args.key.clone(), args.value);
    check_document("value", &state)?;
    canvas.state = state;
    canvas.state_revision += 1;
    Ok(json!({ "canvas_id": canvas.id, "key": args.key, "revision": canvas.state_revision }))
}
