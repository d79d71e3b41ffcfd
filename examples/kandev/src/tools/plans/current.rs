//! The current plan: reading it whole or by character range, creating or
//! replacing it, appending a section, editing one span, deleting it.

use serde_json::{Value, json};

use super::writes::{appended, check_truncation, check_version, occurrences, plan_of, write};
use super::{PlanCreate, PlanEdit, PlanRead, PlanUpdate};
use crate::store::{BadField, Board};
use crate::tools::numbers::MAX_PLAN_PAGE;

/// The plan, whole or from `offset` for `limit` characters, with its
/// version; a stale `expected_version` is an error (the pages a reader
/// joins must come from one version).
pub(super) fn read(board: &Board, task_id: &str, args: PlanRead) -> Result<Value, BadField> {
    let plan = plan_of(board, task_id)?;
    check_version(Some(plan), args.expected_version.as_deref(), false)?;
    let total = plan.content.chars().count();
    if args.offset.is_none() && args.limit.is_none() {
        return Ok(json!({ "plan": plan, "total_chars": total }));
    }
    // In range by the arguments' deserializers.
    let offset = args
        .offset
        .map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX));
    let limit = args.limit.map_or(MAX_PLAN_PAGE as usize, |l| {
        usize::try_from(l).unwrap_or(usize::MAX)
    });
    if offset > total {
        return Err(BadField::new(
            "offset",
            format!("{offset} is past the end of the plan ({total} characters)"),
        ));
    }
    let content: String = plan.content.chars().skip(offset).take(limit).collect();
    let end = offset + content.chars().count();
    Ok(json!({
        "plan": {
            "task_id": plan.task_id,
            "title": plan.title,
            "version": plan.version,
            "content": content,
        },
        "offset": offset,
        "total_chars": total,
        "next_offset": (end < total).then_some(end),
    }))
}

/// Writes a whole plan: a new one, or over the current one when the caller
/// names its version. `mode` is declared only to be refused clearly.
pub(super) fn create(
    board: &mut Board,
    task_id: &str,
    args: PlanCreate,
) -> Result<Value, BadField> {
    if args.mode.as_deref().is_some_and(|mode| !mode.is_empty()) {
        return Err(BadField::new(
            "mode",
            "create_task_plan_kandev always writes the whole plan; use \
             update_task_plan_kandev with mode `append` to add a section",
        ));
    }
    board.task("task_id", task_id)?;
    let existing = board.plans.get(task_id);
    check_version(existing, args.expected_version.as_deref(), true)?;
    if let Some(plan) = existing {
        check_truncation(
            "content",
            plan,
            &args.content,
            args.allow_truncation == Some(true),
        )?;
    }
    let status = if existing.is_some() {
        "replaced"
    } else {
        "created"
    };
    let title = args
        .title
        .or_else(|| existing.map(|plan| plan.title.clone()))
        .unwrap_or_else(|| "Plan".into());
    write(board, task_id, status, &title, &args.content, None)
}

/// Replaces the plan (`mode` `replace`, the default, version-checked) or
/// appends a section (`append`, version-checked only when one is given).
pub(super) fn update(
    board: &mut Board,
    task_id: &str,
    args: PlanUpdate,
) -> Result<Value, BadField> {
    let plan = plan_of(board, task_id)?.clone();
    let Some(content) = args.content else {
        return Err(BadField::new(
            "content",
            "give the content: the whole plan, or with mode `append` the section to add",
        ));
    };
    let allow_truncation = args.allow_truncation == Some(true);
    let expected = args.expected_version.as_deref();
    let title = args.title.unwrap_or_else(|| plan.title.clone());
    match args.mode.as_deref().unwrap_or("replace") {
        "replace" => {
            check_version(Some(&plan), expected, true)?;
            check_truncation("content", &plan, &content, allow_truncation)?;
            write(board, task_id, "replaced", &title, &content, None)
        }
        "append" => {
            if allow_truncation {
                return Err(BadField::new(
                    "allow_truncation",
                    "an append only adds; allow_truncation does not apply",
                ));
            }
            check_version(Some(&plan), expected, false)?;
            if content.trim().is_empty() {
                return Err(BadField::new("content", "the section to append is empty"));
            }
            let whole = appended(&plan.content, &content);
            write(board, task_id, "appended", &title, &whole, None)
        }
        other => Err(BadField::new(
            "mode",
            format!("`{other}` is not `replace` or `append`"),
        )),
    }
}

/// Replaces the one occurrence of `old_text` by `new_text`, every other
/// byte kept.
pub(super) fn edit(board: &mut Board, task_id: &str, args: PlanEdit) -> Result<Value, BadField> {
    let plan = plan_of(board, task_id)?.clone();
    check_version(Some(&plan), Some(&args.expected_version), true)?;
    if args.old_text.is_empty() {
        return Err(BadField::new("old_text", "give the exact text to replace"));
    }
    match occurrences(&plan.content, &args.old_text) {
        0 => {
            return Err(BadField::new(
                "old_text",
                format!("not found in the plan (version `{}`)", plan.version),
            ));
        }
        1 => {}
        _ => {
            return Err(BadField::new(
                "old_text",
                "occurs more than once; include surrounding text so that it occurs once",
            ));
        }
    }
    let content = plan.content.replacen(&args.old_text, &args.new_text, 1);
    check_truncation(
        "new_text",
        &plan,
        &content,
        args.allow_truncation == Some(true),
    )?;
    write(board, task_id, "edited", &plan.title, &content, None)
}

/// Removes the plan; its revisions stay, to be restored after it is
/// created again.
pub(super) fn delete(board: &mut Board, task_id: &str) -> Result<Value, BadField> {
    plan_of(board, task_id)?;
    board.plans.remove(task_id);
    Ok(json!({ "deleted": true, "task_id": task_id }))
}
