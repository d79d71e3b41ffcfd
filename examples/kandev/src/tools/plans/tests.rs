//! The plan's pure functions over the demo board: versions, shrink guard,
//! append, edit, pages and revisions.

use serde_json::Value;

use super::*;
use crate::store::Board;

fn create_args(content: &str, expected_version: Option<&str>) -> PlanCreate {
    PlanCreate {
        task_id: None,
        content: content.into(),
        title: None,
        expected_version: expected_version.map(str::to_owned),
        allow_truncation: None,
        mode: None,
    }
}

fn update_args(content: &str, mode: Option<&str>, expected: Option<&str>) -> PlanUpdate {
    PlanUpdate {
        task_id: None,
        content: Some(content.into()),
        title: None,
        expected_version: expected.map(str::to_owned),
        allow_truncation: None,
        mode: mode.map(str::to_owned),
    }
}

fn read_all() -> PlanRead {
    PlanRead {
        task_id: None,
        offset: None,
        limit: None,
        expected_version: None,
    }
}

fn version(board: &Board, task_id: &str) -> String {
    board.plans[task_id].version.clone()
}

fn field(result: Result<Value, crate::store::BadField>) -> &'static str {
    result.expect_err("the call is refused").field
}

#[test]
fn a_plan_is_created_freely_but_replaced_only_at_its_version() {
    let mut board = Board::demo();
    let created = current::create(&mut board, "task-4", create_args("1. Do", None)).unwrap();
    assert_eq!(created["status"], "created");
    assert_eq!(
        field(current::create(
            &mut board,
            "task-4",
            create_args("2. Do", None)
        )),
        "expected_version"
    );
    let stale = current::create(&mut board, "task-4", create_args("2. Do", Some("v0")));
    assert!(stale.unwrap_err().message.starts_with("stale"));
    let at = version(&board, "task-4");
    let replaced = current::create(&mut board, "task-4", create_args("2. Do", Some(&at))).unwrap();
    assert_eq!(replaced["status"], "replaced");
    assert_ne!(version(&board, "task-4"), at);
    let mut with_mode = create_args("3. Do", None);
    with_mode.mode = Some("append".into());
    assert_eq!(
        field(current::create(&mut board, "task-5", with_mode)),
        "mode"
    );
    assert_eq!(
        field(current::create(
            &mut board,
            "task-5",
            create_args("3. Do", Some("v9"))
        )),
        "expected_version"
    );
}

#[test]
fn update_replaces_at_the_version_or_appends_a_section() {
    let mut board = Board::demo();
    assert_eq!(
        field(current::update(
            &mut board,
            "task-1",
            update_args("x", None, None)
        )),
        "expected_version"
    );
    let appended = current::update(
        &mut board,
        "task-1",
        update_args("4. Docs", Some("append"), None),
    )
    .unwrap();
    assert_eq!(appended["status"], "appended");
    assert!(
        board.plans["task-1"]
            .content
            .ends_with("example\n\n4. Docs")
    );
    let mut no_content = update_args("", None, None);
    no_content.content = None;
    assert_eq!(
        field(current::update(&mut board, "task-1", no_content)),
        "content"
    );
    let mut truncating = update_args("5.", Some("append"), None);
    truncating.allow_truncation = Some(true);
    assert_eq!(
        field(current::update(&mut board, "task-1", truncating)),
        "allow_truncation"
    );
    let error = current::update(
        &mut board,
        "task-1",
        update_args("x", Some("prepend"), None),
    );
    assert_eq!(
        error.unwrap_err().to_string(),
        "invalid `mode`: `prepend` is not `replace` or `append`"
    );
    let at = version(&board, "task-1");
    current::update(
        &mut board,
        "task-1",
        update_args("New", Some("replace"), Some(&at)),
    )
    .unwrap();
    assert_eq!(board.plans["task-1"].content, "New");
}

#[test]
fn an_edit_swaps_exactly_one_occurrence() {
    let mut board = Board::demo();
    let edit = |old: &str, new: &str, version: String| PlanEdit {
        task_id: None,
        expected_version: version,
        old_text: old.into(),
        new_text: new.into(),
        allow_truncation: None,
    };
    let at = version(&board, "task-1");
    assert_eq!(
        field(current::edit(
            &mut board,
            "task-1",
            edit("\n", "", at.clone())
        )),
        "old_text",
        "two line breaks: ambiguous"
    );
    assert_eq!(
        field(current::edit(
            &mut board,
            "task-1",
            edit("Nope", "", at.clone())
        )),
        "old_text"
    );
    current::edit(
        &mut board,
        "task-1",
        edit("2. Runtime", "2. Runtime (done)", at),
    )
    .unwrap();
    assert_eq!(
        board.plans["task-1"].content,
        "1. Registry\n2. Runtime (done)\n3. Kandev example"
    );
}

#[test]
fn a_plan_reads_by_character_range_at_one_version() {
    let board = Board::demo();
    let page = |offset, limit| PlanRead {
        offset: Some(offset),
        limit: Some(limit),
        ..read_all()
    };
    let first = current::read(&board, "task-1", page(0, 11)).unwrap();
    assert_eq!(first["plan"]["content"], "1. Registry");
    assert_eq!(first["next_offset"], 11);
    let last = current::read(&board, "task-1", page(33, 100)).unwrap();
    assert_eq!(last["plan"]["content"], "example");
    assert_eq!(last["next_offset"], Value::Null);
    assert_eq!(
        field(current::read(&board, "task-1", page(41, 1))),
        "offset"
    );
    let stale = PlanRead {
        expected_version: Some("v7".into()),
        ..read_all()
    };
    assert_eq!(
        field(current::read(&board, "task-1", stale)),
        "expected_version"
    );
    assert_eq!(
        current::read(&board, "task-1", read_all()).unwrap()["total_chars"],
        40
    );
}

#[test]
fn revisions_page_newest_first_and_come_back_as_new_revisions() {
    let mut board = Board::demo();
    for content in ["Two", "Three", "Four"] {
        let at = version(&board, "task-1");
        current::update(&mut board, "task-1", update_args(content, None, Some(&at))).unwrap();
    }
    let page = |before, limit| RevisionPage {
        task_id: None,
        before_revision_number: before,
        limit,
    };
    let newest = revisions::list(&board, "task-1", page(None, Some(2))).unwrap();
    let numbers: Vec<&Value> = newest["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|revision| &revision["revision_number"])
        .collect();
    assert_eq!(numbers, [4, 3]);
    assert_eq!(newest["next_before_revision_number"], 3);
    let oldest = revisions::list(&board, "task-1", page(Some(2), None)).unwrap();
    let first = oldest["revisions"][0]["revision_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(oldest["next_before_revision_number"], Value::Null);

    let read = |id: &str| RevisionRef {
        task_id: None,
        revision_id: id.into(),
    };
    let revision = revisions::get(&board, "task-1", read(&first)).unwrap();
    assert_eq!(
        revision["content"],
        "1. Registry\n2. Runtime\n3. Kandev example"
    );
    assert_eq!(
        field(revisions::get(&board, "task-4", read(&first))),
        "revision_id"
    );

    let restore = |expected_version: String, revision_version: &str| RestoreRevision {
        task_id: None,
        revision_id: first.clone(),
        expected_version,
        expected_revision_version: revision_version.into(),
    };
    let token = revision["revision_version"].as_str().unwrap();
    let at = version(&board, "task-1");
    assert_eq!(
        field(revisions::restore(
            &mut board,
            "task-1",
            restore(at.clone(), "x")
        )),
        "expected_revision_version"
    );
    let restored = revisions::restore(&mut board, "task-1", restore(at, token)).unwrap();
    assert_eq!(restored["status"], "restored");
    assert_eq!(restored["revision_number"], 5);
    assert_eq!(board.plans["task-1"].content, revision["content"]);
    let at = version(&board, "task-1");
    let again = revisions::restore(&mut board, "task-1", restore(at, token));
    assert_eq!(again.unwrap()["status"], "already_current");
}

#[test]
fn a_deleted_plan_keeps_its_history_for_when_it_comes_back() {
    let mut board = Board::demo();
    let at = version(&board, "task-1");
    current::update(&mut board, "task-1", update_args("Two", None, Some(&at))).unwrap();
    current::delete(&mut board, "task-1").unwrap();
    assert_eq!(
        field(current::read(&board, "task-1", read_all())),
        "task_id"
    );
    let kept = revisions::list(
        &board,
        "task-1",
        RevisionPage {
            task_id: None,
            before_revision_number: None,
            limit: None,
        },
    )
    .unwrap();
    assert_eq!(kept["revisions"].as_array().unwrap().len(), 2);
    let again = current::create(&mut board, "task-1", create_args("Three", None)).unwrap();
    assert_eq!(again["revision_number"], 3);
}
