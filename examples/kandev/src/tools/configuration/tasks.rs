//! `configuration-tasks`: listing, moving, archiving and deleting tasks,
//! their lifecycle state and their sessions.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::required_text;
use crate::server::Kandev;
use crate::store::{BadField, Board};
use crate::tools::shared::{TaskConversation, TaskRef, WorkflowRef};
use crate::tools::task_moves::MoveTask;
use crate::tools::{ToolResult, respond};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// A task's new lifecycle state.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateTaskState {
    /// The task to change.
    pub task_id: String,
    /// The state to set, such as `todo`, `in_progress` or `completed`.
    pub state: String,
}

// ---------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------

fn update_task_state(board: &mut Board, args: UpdateTaskState) -> Result<Value, BadField> {
    let state = required_text("state", args.state)?;
    let task = board.task_mut("task_id", &args.task_id)?;
    task.state = state;
    Ok(json!({ "task": task }))
}

// ---------------------------------------------------------------------------
// The tool group
// ---------------------------------------------------------------------------

#[tool_group(name = "configuration-tasks", surfaces = ["configuration", "external"])]
impl Kandev {
    #[tool(
        name = "list_tasks_kandev",
        description = "Returns a workflow's tasks together with any linked pull requests.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_tasks(&self, Parameters(args): Parameters<WorkflowRef>) -> ToolResult {
        respond(self.list_tasks(args))
    }

    #[tool(
        name = "move_task_kandev",
        description = "Moves a task to another step, with optional one-shot entry overrides.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_move_task(&self, Parameters(args): Parameters<MoveTask>) -> ToolResult {
        self.on_board(|board| self.move_task(board, args))
    }

    #[tool(
        name = "delete_task_kandev",
        description = "Irreversibly deletes a task.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn config_delete_task(&self, Parameters(args): Parameters<TaskRef>) -> ToolResult {
        self.on_board(|board| self.delete_task(board, args))
    }

    #[tool(
        name = "archive_task_kandev",
        description = "Hides a task from active boards while keeping its record.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_archive_task(&self, Parameters(args): Parameters<TaskRef>) -> ToolResult {
        self.on_board(|board| self.archive_task(board, args))
    }

    #[tool(
        name = "update_task_state_kandev",
        description = "Sets a task's lifecycle state directly.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_task_state(
        &self,
        Parameters(args): Parameters<UpdateTaskState>,
    ) -> ToolResult {
        self.on_board(|board| update_task_state(board, args))
    }

    #[tool(
        name = "get_task_conversation_kandev",
        description = "Fetches a page of a task session's message history.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_get_task_conversation(
        &self,
        Parameters(args): Parameters<TaskConversation>,
    ) -> ToolResult {
        respond(self.get_task_conversation(args))
    }

    #[tool(
        name = "list_task_sessions_kandev",
        description = "Enumerates every session of a task, most recent first, exposing session IDs.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_task_sessions(&self, Parameters(args): Parameters<TaskRef>) -> ToolResult {
        respond(self.list_task_sessions(args))
    }
}
