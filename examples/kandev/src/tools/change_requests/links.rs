//! `manage_task_change_request_kandev`: link, unlink or replace one pull or
//! merge request on a task of the calling task's workspace.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{CodeHost, shown_links};
use crate::store::{BadField, Board, ChangeRequest, ChangeRequestKey, check_name};
use crate::tools::numbers::MAX_HOST_NUMBER;

/// What to do with the association.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkOperation {
    /// Add the association.
    Link,
    /// Remove it (also after its repository was detached).
    Unlink,
    /// Swap the `old_*` association for this one, same provider.
    Replace,
}

/// One association to add, remove or swap in.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManageChangeRequest {
    /// `link`, `unlink` or `replace`.
    pub operation: LinkOperation,
    /// The task; any task of the calling task's workspace.
    pub task_id: String,
    /// `github` or `gitlab`.
    pub provider: CodeHost,
    /// The canonical repository the request belongs to.
    pub repository_id: String,
    /// The pull request's number or the merge request's IID.
    #[serde(deserialize_with = "crate::tools::numbers::host_number")]
    #[schemars(range(min = 1, max = MAX_HOST_NUMBER))]
    pub number: u64,
    /// `replace` only: the replaced request's provider (the same as `provider`).
    pub old_provider: Option<CodeHost>,
    /// `replace` only: the replaced request's repository.
    pub old_repository_id: Option<String>,
    /// `replace` only: the replaced request's number or IID.
    #[serde(default, deserialize_with = "crate::tools::numbers::old_host_number")]
    #[schemars(range(min = 1, max = MAX_HOST_NUMBER))]
    pub old_number: Option<u64>,
}

/// The key of `task_id`'s link to `number` of `repository_id` on `host`.
fn key(task_id: &str, host: CodeHost, repository_id: &str, number: u64) -> ChangeRequestKey {
    (
        task_id.to_owned(),
        host.as_str().to_owned(),
        repository_id.to_owned(),
        number,
    )
}

/// A new link with Kandev's defaults: automation off, lifecycle prompts on.
fn new_link(key: &ChangeRequestKey) -> ChangeRequest {
    ChangeRequest {
        task_id: key.0.clone(),
        provider: key.1.clone(),
        repository_id: key.2.clone(),
        number: key.3,
        auto_fix_enabled: false,
        auto_merge_enabled: false,
        prompt_on_review_requested: true,
        prompt_on_merged: true,
        prompt_on_closed: true,
    }
}

/// The task, which must share the calling task's workspace.
fn reachable_task(board: &Board, bound: &str, task_id: &str) -> Result<(), BadField> {
    let workspace = &board.task("task_id", bound)?.workspace_id;
    let task = board.task("task_id", task_id)?;
    if task.workspace_id != *workspace {
        return Err(BadField::new(
            "task_id",
            format!(
                "task `{task_id}` is in workspace `{}`, not in the calling task's `{workspace}`",
                task.workspace_id
            ),
        ));
    }
    Ok(())
}

/// The repository a new link points at, which must be the task's
/// workspace's. (Unlinking needs none: a detached repository's links stay
/// removable.)
fn linkable_repository(board: &Board, task_id: &str, repository_id: &str) -> Result<(), BadField> {
    check_name("repository_id", repository_id)?;
    let workspace = &board.task("task_id", task_id)?.workspace_id;
    let repository = board
        .repositories
        .get(repository_id)
        .ok_or_else(|| BadField::missing("repository_id", "repository", repository_id))?;
    if repository.workspace_id != *workspace {
        return Err(BadField::new(
            "repository_id",
            format!("repository `{repository_id}` is not in workspace `{workspace}`"),
        ));
    }
    Ok(())
}

/// The replaced association of a `replace`, all three `old_*` fields given
/// and the provider unchanged; `None` for `link` and `unlink`, which take
/// no `old_*` field.
fn replaced(args: &ManageChangeRequest) -> Result<Option<ChangeRequestKey>, BadField> {
    let given = [
        ("old_provider", args.old_provider.is_some()),
        ("old_repository_id", args.old_repository_id.is_some()),
        ("old_number", args.old_number.is_some()),
    ];
    if args.operation != LinkOperation::Replace {
        return match given.iter().find(|(_, is_given)| *is_given) {
            Some((field, _)) => Err(BadField::new(
                field,
                "only `replace` takes old_provider, old_repository_id and old_number",
            )),
            None => Ok(None),
        };
    }
    if let Some((field, _)) = given.iter().find(|(_, is_given)| !*is_given) {
        return Err(BadField::new(
            field,
            "`replace` needs old_provider, old_repository_id and old_number",
        ));
    }
    let (Some(host), Some(repository_id), Some(number)) = (
        args.old_provider,
        args.old_repository_id.as_deref(),
        args.old_number,
    ) else {
        unreachable!("all three were checked as given");
    };
    if host != args.provider {
        return Err(BadField::new(
            "old_provider",
            format!(
                "a replacement keeps its provider: a `{}` link cannot replace a `{}` one",
                args.provider.as_str(),
                host.as_str()
            ),
        ));
    }
    Ok(Some(key(&args.task_id, host, repository_id, number)))
}

/// `repository#number` on its provider, for messages.
fn describe(key: &ChangeRequestKey) -> String {
    format!("{} link to `{}`#{}", key.1, key.2, key.3)
}

/// Links, unlinks or replaces one association of `args.task_id`; answers
/// whether anything changed and the task's links afterwards. A replacement
/// links the new request first and gives it the old one's switches (unless
/// it was linked already), then unlinks the old one.
pub(super) fn manage(
    board: &mut Board,
    bound: &str,
    args: ManageChangeRequest,
) -> Result<Value, BadField> {
    reachable_task(board, bound, &args.task_id)?;
    let old = replaced(&args)?;
    let new = key(
        &args.task_id,
        args.provider,
        &args.repository_id,
        args.number,
    );
    let changed = match (args.operation, old) {
        (LinkOperation::Link, _) => {
            linkable_repository(board, &args.task_id, &args.repository_id)?;
            let absent = !board.change_requests.contains_key(&new);
            if absent {
                board.make_room("number", 1)?;
                board.change_requests.insert(new.clone(), new_link(&new));
            }
            absent
        }
        (LinkOperation::Unlink, _) => {
            if board.change_requests.remove(&new).is_none() {
                return Err(BadField::new(
                    "number",
                    format!("task `{}` has no {}", args.task_id, describe(&new)),
                ));
            }
            true
        }
        (LinkOperation::Replace, Some(old)) => {
            let Some(previous) = board.change_requests.get(&old).cloned() else {
                return Err(BadField::new(
                    "old_number",
                    format!("task `{}` has no {}", args.task_id, describe(&old)),
                ));
            };
            if old == new {
                false
            } else {
                linkable_repository(board, &args.task_id, &args.repository_id)?;
                if !board.change_requests.contains_key(&new) {
                    let switches = ChangeRequest {
                        repository_id: new.2.clone(),
                        number: new.3,
                        ..previous
                    };
                    board.change_requests.insert(new.clone(), switches);
                }
                board.change_requests.remove(&old);
                true
            }
        }
        (LinkOperation::Replace, None) => unreachable!("`replaced` requires old_* on replace"),
    };
    Ok(json!({
        "task_id": args.task_id,
        "changed": changed,
        "change_requests": shown_links(board, &args.task_id),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manage_args(operation: LinkOperation, number: u64) -> ManageChangeRequest {
        ManageChangeRequest {
            operation,
            task_id: "task-4".into(),
            provider: CodeHost::Github,
            repository_id: "repo-1".into(),
            number,
            old_provider: None,
            old_repository_id: None,
            old_number: None,
        }
    }

    fn replace(number: u64, old_number: u64) -> ManageChangeRequest {
        ManageChangeRequest {
            old_provider: Some(CodeHost::Github),
            old_repository_id: Some("repo-1".into()),
            old_number: Some(old_number),
            ..manage_args(LinkOperation::Replace, number)
        }
    }

    fn numbers(board: &Board) -> Vec<u64> {
        board.change_requests.keys().map(|key| key.3).collect()
    }

    #[test]
    fn linking_twice_changes_nothing_the_second_time() {
        let mut board = Board::demo();
        let first = manage(&mut board, "task-2", manage_args(LinkOperation::Link, 7)).unwrap();
        assert_eq!(first["changed"], true);
        let again = manage(&mut board, "task-2", manage_args(LinkOperation::Link, 7)).unwrap();
        assert_eq!(again["changed"], false);
        assert_eq!(again["change_requests"][0]["auto_fix_enabled"], false);
        assert_eq!(numbers(&board), [7]);
    }

    #[test]
    fn a_replacement_keeps_the_provider_and_carries_the_switches_over() {
        let mut board = Board::demo();
        manage(&mut board, "task-2", manage_args(LinkOperation::Link, 7)).unwrap();
        let link = board.change_requests.values_mut().next().unwrap();
        link.auto_merge_enabled = true;
        manage(&mut board, "task-2", replace(8, 7)).unwrap();
        assert_eq!(numbers(&board), [8]);
        assert!(
            board
                .change_requests
                .values()
                .next()
                .unwrap()
                .auto_merge_enabled
        );

        let mut cross = replace(9, 8);
        cross.old_provider = Some(CodeHost::Gitlab);
        let error = manage(&mut board, "task-2", cross).unwrap_err();
        assert_eq!(error.field, "old_provider");
        let error = manage(&mut board, "task-2", replace(9, 7)).unwrap_err();
        assert_eq!(error.field, "old_number", "{error}");
    }

    #[test]
    fn old_fields_belong_to_replace_only() {
        let mut board = Board::demo();
        let mut link = manage_args(LinkOperation::Link, 7);
        link.old_number = Some(3);
        let error = manage(&mut board, "task-2", link).unwrap_err();
        assert_eq!(error.field, "old_number");
        let mut incomplete = replace(8, 7);
        incomplete.old_repository_id = None;
        let error = manage(&mut board, "task-2", incomplete).unwrap_err();
        assert_eq!(error.field, "old_repository_id");
    }

    #[test]
    fn a_detached_repository_stays_unlinkable_but_not_linkable() {
        let mut board = Board::demo();
        manage(&mut board, "task-2", manage_args(LinkOperation::Link, 7)).unwrap();
        board.repositories.clear();
        let error = manage(&mut board, "task-2", manage_args(LinkOperation::Link, 8)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid `repository_id`: no repository `repo-1`"
        );
        manage(&mut board, "task-2", manage_args(LinkOperation::Unlink, 7)).unwrap();
        assert!(board.change_requests.is_empty());
        let error =
            manage(&mut board, "task-2", manage_args(LinkOperation::Unlink, 7)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid `number`: task `task-4` has no github link to `repo-1`#7"
        );
    }

    #[test]
    fn only_tasks_of_the_calling_tasks_workspace_are_reachable() {
        let mut board = Board::demo();
        let mut elsewhere = board.tasks["task-4"].clone();
        elsewhere.id = "task-far".into();
        elsewhere.workspace_id = "ws-2".into();
        board.tasks.insert(elsewhere.id.clone(), elsewhere);
        let mut args = manage_args(LinkOperation::Link, 7);
        args.task_id = "task-far".into();
        let error = manage(&mut board, "task-2", args).unwrap_err();
        assert_eq!(error.field, "task_id");
        assert!(board.change_requests.is_empty());
    }
}
