//! `configuration-tasks`: listing, moving, archiving and deleting tasks
//! (the kanban board's tools, shared), their lifecycle state and their
//! sessions.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::required_text;
use crate::server::Kandev;
use crate::store::{BadField, Board};
use crate::tools::ToolResult;

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

// The task tools a configuration chat shares with the kanban board are the
// board's own definitions; only the lifecycle state is configuration's.
#[tool_group(
    name = "configuration-tasks",
    surfaces = ["configuration", "external"],
    include("kanban-task": [
        "list_tasks_kandev",
        "move_task_kandev",
        "delete_task_kandev",
        "archive_task_kandev",
        "get_task_conversation_kandev",
        "list_task_sessions_kandev",
    ])
)]
impl Kandev {
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
}
