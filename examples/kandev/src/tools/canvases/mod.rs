//! `canvas-authoring`: small apps the bound task's agent writes, publishes
//! and keeps shared state for. Granted by the `canvas-authoring`
//! capability on kanban tasks; every tool acts on the bound task's
//! canvases only.

mod authoring;
mod guide;

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::ToolResult;
use super::numbers::MAX_COUNT;
use crate::server::Kandev;

/// A file of the guide bundle.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GuidePath {
    /// A path the guide lists; the guide itself (`SKILL.md`) when omitted.
    pub path: Option<String>,
}

/// A canvas to start.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewCanvas {
    /// What the canvas is called.
    pub title: String,
    /// What it shows, in a sentence.
    pub summary: String,
}

/// One canvas of the bound task.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CanvasRef {
    /// The canvas (see list_canvases_kandev).
    pub canvas_id: String,
}

/// Source to publish.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Publish {
    /// The canvas.
    pub canvas_id: String,
    /// The source folder create_canvas_kandev gave, relative to the workspace.
    pub source_path: String,
}

/// State to read.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CanvasStateRead {
    /// The canvas.
    pub canvas_id: String,
    /// One key; the whole state when omitted.
    pub key: Option<String>,
}

/// One state value to store.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CanvasStateWrite {
    /// The canvas.
    pub canvas_id: String,
    /// The key.
    pub key: String,
    /// Any JSON value.
    // Required (`null` is a value): without this, serde reads a missing
    // value as `null`.
    #[serde(deserialize_with = "Value::deserialize")]
    pub value: Value,
    /// Fail unless the state is still at this revision.
    #[serde(default, deserialize_with = "super::numbers::state_revision")]
    #[schemars(range(min = 0, max = MAX_COUNT))]
    pub expected_revision: Option<u64>,
}

#[tool_group(
    name = "canvas-authoring",
    surface = "kanban-task",
    capability = "canvas-authoring"
)]
impl Kandev {
    #[tool(
        name = "list_canvases_kandev",
        description = "Lists the canvases owned by the bound task.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn canvas_list(&self) -> ToolResult {
        self.on_board(|board| authoring::list(board, &self.task_id))
    }

    #[tool(
        name = "read_canvas_authoring_skill_kandev",
        description = "Returns Kandev's canvas-authoring guide bundle, or one allowlisted file from it.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn canvas_read_guide(&self, Parameters(args): Parameters<GuidePath>) -> ToolResult {
        super::respond(authoring::read_guide(args))
    }

    #[tool(
        name = "create_canvas_kandev",
        description = "Starts an inactive draft canvas and hands back its scaffold and source folder.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn canvas_create(&self, Parameters(args): Parameters<NewCanvas>) -> ToolResult {
        self.on_board(|board| authoring::create(board, &self.task_id, args))
    }

    #[tool(
        name = "get_canvas_kandev",
        description = "Inspects one of the task's canvases, including its live release.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn canvas_get(&self, Parameters(args): Parameters<CanvasRef>) -> ToolResult {
        self.on_board(|board| authoring::get(board, &self.task_id, args))
    }

    #[tool(
        name = "publish_canvas_kandev",
        description = "Validates canvas source and makes it the active release if accepted.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn canvas_publish(&self, Parameters(args): Parameters<Publish>) -> ToolResult {
        self.on_board(|board| authoring::publish(board, &self.task_id, args))
    }

    #[tool(
        name = "get_canvas_state_kandev",
        description = "Reads a canvas's shared app state, whole or one key.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn canvas_get_state(&self, Parameters(args): Parameters<CanvasStateRead>) -> ToolResult {
        self.on_board(|board| authoring::get_state(board, &self.task_id, args))
    }

    #[tool(
        name = "set_canvas_state_kandev",
        description = "Stores one shared app-state value for a canvas, optionally revision-guarded.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn canvas_set_state(&self, Parameters(args): Parameters<CanvasStateWrite>) -> ToolResult {
        self.on_board(|board| authoring::set_state(board, &self.task_id, args))
    }
}

#[cfg(test)]
mod tests;
