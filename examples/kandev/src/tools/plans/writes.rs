//! Writing a plan: every write is checked against the version its writer
//! read, guarded against an accidental large shrink, and kept as a new
//! revision.

use serde_json::{Value, json};

use crate::store::{BadField, Board, Plan, PlanRevision, check_name, check_text};

/// A plan at least this long (in characters) may not shrink below half its
/// length without `allow_truncation`: an agent rewriting from a partial
/// read would otherwise drop what it never saw.
pub(super) const TRUNCATION_FLOOR: usize = 400;

/// The task's plan, which must exist.
pub(super) fn plan_of<'a>(board: &'a Board, task_id: &str) -> Result<&'a Plan, BadField> {
    board.task("task_id", task_id)?;
    board
        .plans
        .get(task_id)
        .ok_or_else(|| BadField::new("task_id", format!("task `{task_id}` has no plan")))
}

/// Checks `expected` against the plan's current version. `required`: a
/// plan that exists may only be written by a caller that names its version.
pub(super) fn check_version(
    plan: Option<&Plan>,
    expected: Option<&str>,
    required: bool,
) -> Result<(), BadField> {
    match (plan, expected) {
        (None, Some(_)) => Err(BadField::new(
            "expected_version",
            "the task has no plan yet; leave expected_version out to create one",
        )),
        (Some(plan), None) if required => Err(BadField::new(
            "expected_version",
            format!(
                "the task has a plan (version `{}`); read it with get_task_plan_kandev and \
                 pass its version",
                plan.version
            ),
        )),
        (Some(plan), Some(expected)) if plan.version != expected => Err(BadField::new(
            "expected_version",
            format!(
                "stale: the plan is at version `{}` now, not `{expected}`; read it again",
                plan.version
            ),
        )),
        _ => Ok(()),
    }
}

/// Refuses replacing `old` by a text less than half as long, unless
/// `allowed`; `field` is the argument that brought the new text.
pub(super) fn check_truncation(
    field: &'static str,
    old: &Plan,
    new: &str,
    allowed: bool,
) -> Result<(), BadField> {
    let (before, after) = (old.content.chars().count(), new.chars().count());
    if allowed || before < TRUNCATION_FLOOR || after * 2 >= before {
        return Ok(());
    }
    Err(BadField::new(
        field,
        format!(
            "would shrink the plan from {before} to {after} characters (version `{}`); use \
             edit_task_plan_kandev for a local change, or pass allow_truncation=true for an \
             intended reduction",
            old.version
        ),
    ))
}

/// The next revision number of the task's plan.
fn next_number(board: &Board, task_id: &str) -> u64 {
    board
        .plan_revisions
        .values()
        .filter(|revision| revision.task_id == task_id)
        .map(|revision| revision.number)
        .max()
        .unwrap_or(0)
        + 1
}

/// Keeps `title` and `content` as a new revision of the task's plan, which
/// they then are, under a new version; answers the write's receipt. A plan
/// written before revisions were kept is first kept as revision 1, so that
/// it can be restored.
pub(super) fn write(
    board: &mut Board,
    task_id: &str,
    status: &str,
    title: &str,
    content: &str,
    restored_from: Option<String>,
) -> Result<Value, BadField> {
    check_name("title", title)?;
    check_text("content", content)?;
    if content.trim().is_empty() {
        return Err(BadField::new(
            "content",
            "a plan cannot be empty; delete_task_plan_kandev removes it",
        ));
    }
    let existing = board.plans.get(task_id).cloned();
    let unkept = existing
        .as_ref()
        .filter(|_| next_number(board, task_id) == 1);
    let adding = 1 + usize::from(existing.is_none()) + usize::from(unkept.is_some());
    board.make_room("content", adding)?;
    if let Some(plan) = unkept {
        keep(
            board,
            plan.title.clone(),
            plan.content.clone(),
            task_id,
            None,
        );
    }
    let revision = keep(
        board,
        title.to_owned(),
        content.to_owned(),
        task_id,
        restored_from,
    );
    let version = board.next_id("plan-version");
    board.plans.insert(
        task_id.to_owned(),
        Plan {
            task_id: task_id.to_owned(),
            title: title.to_owned(),
            content: content.to_owned(),
            version: version.clone(),
        },
    );
    Ok(json!({
        "status": status,
        "task_id": task_id,
        "title": title,
        "version": version,
        "revision_id": revision.id,
        "revision_number": revision.number,
        "content_chars": content.chars().count(),
    }))
}

/// Stores a new revision of the task's plan.
fn keep(
    board: &mut Board,
    title: String,
    content: String,
    task_id: &str,
    restored_from: Option<String>,
) -> PlanRevision {
    let revision = PlanRevision {
        id: board.next_id("plan-revision"),
        task_id: task_id.to_owned(),
        number: next_number(board, task_id),
        title,
        content,
        restored_from,
    };
    board
        .plan_revisions
        .insert(revision.id.clone(), revision.clone());
    revision
}

/// How many times `needle` occurs in `haystack`, overlapping occurrences
/// included, counting no further than 2.
pub(super) fn occurrences(haystack: &str, needle: &str) -> usize {
    let mut count = 0;
    let mut from = 0;
    while count < 2
        && let Some(at) = haystack[from..].find(needle)
    {
        count += 1;
        let first = haystack[from + at..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        from += at + first;
    }
    count
}

/// `content` after `fragment` as a new section: one blank line between.
pub(super) fn appended(content: &str, fragment: &str) -> String {
    let kept = content.trim_end_matches(['\n', '\r']);
    if kept.is_empty() {
        fragment.to_owned()
    } else {
        format!("{kept}\n\n{fragment}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_occurrences_count() {
        assert_eq!(occurrences("aaa", "aa"), 2);
        assert_eq!(occurrences("- [ ] a\n- [ ] b", "- [ ]"), 2);
        assert_eq!(occurrences("ünï ünï", "nï"), 2);
        assert_eq!(occurrences("abc", "d"), 0);
        assert_eq!(occurrences("abc", "b"), 1);
    }

    #[test]
    fn an_appended_section_follows_one_blank_line() {
        assert_eq!(appended("# Plan\n\n\n", "## More"), "# Plan\n\n## More");
        assert_eq!(appended("", "## More"), "## More");
    }

    #[test]
    fn only_a_large_plan_halved_is_a_truncation() {
        let plan = |content: String| Plan {
            task_id: "task-1".into(),
            title: "Plan".into(),
            content,
            version: "v1".into(),
        };
        let long = plan("x".repeat(TRUNCATION_FLOOR));
        let half = "x".repeat(TRUNCATION_FLOOR / 2);
        assert!(check_truncation("content", &long, &half, false).is_ok());
        let error = check_truncation("content", &long, &half[1..], false).unwrap_err();
        assert!(error.message.contains("version `v1`"), "{error}");
        assert!(check_truncation("content", &long, "", true).is_ok());
        let short = plan("x".repeat(TRUNCATION_FLOOR - 1));
        assert!(check_truncation("content", &short, "", false).is_ok());
    }

    #[test]
    fn the_first_write_over_an_unkept_plan_keeps_it_first() {
        let mut board = Board::demo();
        let receipt = write(&mut board, "task-1", "replaced", "Plan", "New", None).unwrap();
        assert_eq!(receipt["revision_number"], 2);
        let mut contents: Vec<_> = board.plan_revisions.values().collect();
        contents.sort_by_key(|revision| revision.number);
        assert_eq!(
            contents[0].content,
            "1. Registry\n2. Runtime\n3. Kandev example"
        );
        assert_eq!(contents[1].content, "New");
        assert_eq!(board.plans["task-1"].version, receipt["version"]);
    }
}
