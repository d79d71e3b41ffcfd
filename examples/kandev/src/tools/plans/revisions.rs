//! A plan's history: paging through its revisions, reading one, and
//! bringing one back as a new revision.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::writes::{check_version, plan_of, write};
use super::{RestoreRevision, RevisionPage, RevisionRef};
use crate::store::{BadField, Board, PlanRevision};

/// Revisions per page when `limit` is omitted.
const DEFAULT_PAGE: usize = 20;

/// A revision's snapshot token: a SHA-256 over its id, task, title and
/// content, each prefixed by its length. It tells a restore that the
/// revision it read is the one it restores; it grants nothing.
pub(super) fn revision_version(revision: &PlanRevision) -> String {
    let mut digest = Sha256::new();
    for field in [
        &revision.id,
        &revision.task_id,
        &revision.title,
        &revision.content,
    ] {
        digest.update((field.len() as u64).to_be_bytes());
        digest.update(field.as_bytes());
    }
    digest
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The task's revision `id`; another task's revision is as missing as an
/// unknown one.
fn revision_of<'a>(
    board: &'a Board,
    task_id: &str,
    id: &str,
) -> Result<&'a PlanRevision, BadField> {
    board
        .plan_revisions
        .get(id)
        .filter(|revision| revision.task_id == task_id)
        .ok_or_else(|| {
            BadField::new(
                "revision_id",
                format!("task `{task_id}` has no plan revision `{id}`"),
            )
        })
}

/// A page of the task's revisions, newest first, without their content.
pub(super) fn list(board: &Board, task_id: &str, page: RevisionPage) -> Result<Value, BadField> {
    board.task("task_id", task_id)?;
    let limit = page.limit.map_or(DEFAULT_PAGE, |limit| {
        usize::try_from(limit).unwrap_or(usize::MAX)
    });
    let mut revisions: Vec<&PlanRevision> = board
        .plan_revisions
        .values()
        .filter(|revision| revision.task_id == task_id)
        .filter(|revision| {
            page.before_revision_number
                .is_none_or(|before| revision.number < before)
        })
        .collect();
    revisions.sort_by_key(|revision| std::cmp::Reverse(revision.number));
    let more = revisions.len() > limit;
    revisions.truncate(limit);
    let next = more
        .then(|| revisions.last().map(|revision| revision.number))
        .flatten();
    let shown: Vec<Value> = revisions
        .iter()
        .map(|revision| {
            json!({
                "revision_id": revision.id,
                "revision_number": revision.number,
                "title": revision.title,
                "restored_from": revision.restored_from,
                "content_chars": revision.content.chars().count(),
            })
        })
        .collect();
    Ok(json!({
        "task_id": task_id,
        "revisions": shown,
        "next_before_revision_number": next,
    }))
}

/// One revision of the task's plan, content and snapshot token included.
pub(super) fn get(board: &Board, task_id: &str, args: RevisionRef) -> Result<Value, BadField> {
    board.task("task_id", task_id)?;
    let revision = revision_of(board, task_id, &args.revision_id)?;
    Ok(json!({
        "task_id": task_id,
        "revision_id": revision.id,
        "revision_number": revision.number,
        "title": revision.title,
        "content": revision.content,
        "restored_from": revision.restored_from,
        "revision_version": revision_version(revision),
    }))
}

/// Brings revision `args.revision_id` back as a new revision, when neither
/// the plan nor the revision changed since the caller read them; a
/// revision equal to the plan is `already_current` and writes nothing.
pub(super) fn restore(
    board: &mut Board,
    task_id: &str,
    args: RestoreRevision,
) -> Result<Value, BadField> {
    let plan = plan_of(board, task_id).map_err(|_| {
        BadField::new(
            "task_id",
            format!(
                "task `{task_id}` has no plan to restore into; create_task_plan_kandev \
                 makes one again (its history is kept)"
            ),
        )
    })?;
    check_version(Some(plan), Some(&args.expected_version), true)?;
    let revision = revision_of(board, task_id, &args.revision_id)?;
    let current = revision_version(revision);
    if current != args.expected_revision_version {
        return Err(BadField::new(
            "expected_revision_version",
            format!(
                "revision `{}` is not the one read: its version is `{current}`",
                revision.id
            ),
        ));
    }
    if revision.title == plan.title && revision.content == plan.content {
        return Ok(json!({
            "status": "already_current",
            "task_id": task_id,
            "version": plan.version,
        }));
    }
    let (title, content, source) = (
        revision.title.clone(),
        revision.content.clone(),
        revision.id.clone(),
    );
    write(board, task_id, "restored", &title, &content, Some(source))
}
