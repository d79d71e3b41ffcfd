//! `plan`: a task's shared markdown plan, on kanban and office tasks.
//!
//! Every write names the version it read (`expected_version`), so that no
//! write lands on a plan its writer has not seen, and is kept as a revision
//! that can be brought back. Every tool takes an optional `task_id`, the
//! bound task by default.

mod current;
mod revisions;
mod writes;

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;

use super::ToolResult;
use super::numbers::{MAX_COUNT, MAX_PLAN_OFFSET, MAX_PLAN_PAGE, MAX_REVISION_PAGE};
use super::session::MaybeTask;
use crate::server::Kandev;

/// A whole plan to write.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanCreate {
    /// The task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// The whole plan, in markdown.
    pub content: String,
    /// A heading for the plan.
    pub title: Option<String>,
    /// The version read last; required when the task already has a plan.
    pub expected_version: Option<String>,
    /// Allow the plan to shrink to less than half its length.
    pub allow_truncation: Option<bool>,
    /// Not supported here: use update_task_plan_kandev to append.
    pub mode: Option<String>,
}

/// What to read of a plan.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanRead {
    /// The task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// The first character to read; the whole plan when offset and limit are omitted.
    #[serde(default, deserialize_with = "super::numbers::plan_offset")]
    #[schemars(range(min = 0, max = MAX_PLAN_OFFSET))]
    pub offset: Option<u64>,
    /// At most this many characters (8192 by default).
    #[serde(default, deserialize_with = "super::numbers::plan_page")]
    #[schemars(range(min = 1, max = MAX_PLAN_PAGE))]
    pub limit: Option<u64>,
    /// Fail unless the plan is still at this version (when reading page by page).
    pub expected_version: Option<String>,
}

/// A replacement of the plan, or a section to append.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanUpdate {
    /// The task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// The whole plan (`replace`) or the section to add (`append`); required.
    pub content: Option<String>,
    /// A new heading for the plan.
    pub title: Option<String>,
    /// The version read last; required to replace, checked when given to append.
    pub expected_version: Option<String>,
    /// Allow a replacement to shrink the plan to less than half its length.
    pub allow_truncation: Option<bool>,
    /// `replace` (the default) or `append`.
    pub mode: Option<String>,
}

/// One exact span of the plan to replace.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanEdit {
    /// The task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// The version read last.
    pub expected_version: String,
    /// The text to replace; it must occur exactly once.
    pub old_text: String,
    /// Its replacement; empty deletes it.
    pub new_text: String,
    /// Allow the plan to shrink to less than half its length.
    pub allow_truncation: Option<bool>,
}

/// A page of a plan's revisions.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevisionPage {
    /// The task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// Only revisions numbered below this (the previous page's `next_before_revision_number`).
    #[serde(default, deserialize_with = "super::numbers::before_revision")]
    #[schemars(range(min = 1, max = MAX_COUNT))]
    pub before_revision_number: Option<u64>,
    /// At most this many revisions (20 by default).
    #[serde(default, deserialize_with = "super::numbers::revision_page")]
    #[schemars(range(min = 1, max = MAX_REVISION_PAGE))]
    pub limit: Option<u64>,
}

/// One revision of a plan.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevisionRef {
    /// The task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// The revision (see list_task_plan_revisions_kandev).
    pub revision_id: String,
}

/// A revision to bring back.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RestoreRevision {
    /// The task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// The revision to restore.
    pub revision_id: String,
    /// The plan's version read last.
    pub expected_version: String,
    /// The revision's `revision_version`, as get_task_plan_revision_kandev gave it.
    pub expected_revision_version: String,
}

#[tool_group(name = "plan", surfaces = ["kanban-task", "office-task"])]
impl Kandev {
    #[tool(
        name = "create_task_plan_kandev",
        description = "Writes a full markdown plan, version-checked when one already exists.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn plan_create(&self, Parameters(args): Parameters<PlanCreate>) -> ToolResult {
        self.on_task_board(args.task_id.clone(), |board, task| {
            current::create(board, task, args)
        })
    }

    #[tool(
        name = "get_task_plan_kandev",
        description = "Reads a task's plan with its version, whole or as a character range.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn plan_get(&self, Parameters(args): Parameters<PlanRead>) -> ToolResult {
        self.on_task_board(args.task_id.clone(), |board, task| {
            current::read(board, task, args)
        })
    }

    #[tool(
        name = "update_task_plan_kandev",
        description = "Replaces a plan (version-checked) or appends a fragment to it.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn plan_update(&self, Parameters(args): Parameters<PlanUpdate>) -> ToolResult {
        self.on_task_board(args.task_id.clone(), |board, task| {
            current::update(board, task, args)
        })
    }

    #[tool(
        name = "edit_task_plan_kandev",
        description = "Swaps one unique text span in a plan, guarded by its version.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn plan_edit(&self, Parameters(args): Parameters<PlanEdit>) -> ToolResult {
        self.on_task_board(args.task_id.clone(), |board, task| {
            current::edit(board, task, args)
        })
    }

    #[tool(
        name = "list_task_plan_revisions_kandev",
        description = "Pages through a plan's revision metadata, newest first, without content.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn plan_list_revisions(&self, Parameters(args): Parameters<RevisionPage>) -> ToolResult {
        self.on_task_board(args.task_id.clone(), |board, task| {
            revisions::list(board, task, args)
        })
    }

    #[tool(
        name = "get_task_plan_revision_kandev",
        description = "Returns one stored plan revision's full content and its version token.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn plan_get_revision(&self, Parameters(args): Parameters<RevisionRef>) -> ToolResult {
        self.on_task_board(args.task_id.clone(), |board, task| {
            revisions::get(board, task, args)
        })
    }

    #[tool(
        name = "restore_task_plan_revision_kandev",
        description = "Brings back an earlier plan revision as a new revision, conflict-checked.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn plan_restore_revision(
        &self,
        Parameters(args): Parameters<RestoreRevision>,
    ) -> ToolResult {
        self.on_task_board(args.task_id.clone(), |board, task| {
            revisions::restore(board, task, args)
        })
    }

    #[tool(
        name = "delete_task_plan_kandev",
        description = "Removes a task's plan.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn plan_delete(&self, Parameters(args): Parameters<MaybeTask>) -> ToolResult {
        self.on_task_board(args.task_id, |board, task| current::delete(board, task))
    }
}

#[cfg(test)]
mod tests;
