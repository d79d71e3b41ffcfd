//! `configuration-workflows`: workflows, their steps ([`steps`]), and the
//! portable workflow document for import and export ([`document`]).

mod document;
mod session;
mod steps;

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::required_text;
use crate::server::Kandev;
use crate::store::{BadField, Board, Workflow, check_text};
use crate::tools::shared::{WorkflowRef, WorkspaceRef};
use crate::tools::{ToolResult, ok, respond};
use document::{export_workflow, import_workflows};
use steps::{
    CreateWorkflowStep, DeleteWorkflowStep, ReorderWorkflowSteps, UpdateWorkflowStep,
    create_workflow_step, delete_workflow_step, reorder_workflow_steps, update_workflow_step,
};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// A new workflow.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkflow {
    /// The workspace the workflow belongs to.
    pub workspace_id: String,
    /// The workflow's name, unique within the workspace.
    pub name: String,
    /// What the workflow is for.
    pub description: Option<String>,
}

/// Changes to a workflow.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWorkflow {
    /// The workflow to change.
    pub workflow_id: String,
    /// Its new name, unique within the workspace.
    pub name: Option<String>,
    /// Its new description.
    pub description: Option<String>,
}

/// The workflow to delete.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteWorkflow {
    /// The workflow's ID; it must hold no tasks.
    pub workflow_id: String,
}

/// A workflow document to import.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportWorkflow {
    /// The workspace to import into.
    pub workspace_id: String,
    /// The JSON text export_workflow_kandev returned.
    pub document: String,
}

/// The workflow to export.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportWorkflow {
    /// The workflow's ID.
    pub workflow_id: String,
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The step IDs of a workflow, in column order.
fn step_order(board: &Board, workflow_id: &str) -> Vec<String> {
    board
        .steps_of(workflow_id)
        .iter()
        .map(|step| step.id.clone())
        .collect()
}

/// Sets each step's position to its index in `order`.
fn renumber(board: &mut Board, order: &[String]) {
    for (position, id) in order.iter().enumerate() {
        if let Some(step) = board.steps.get_mut(id) {
            step.position = position as u32;
        }
    }
}

/// Refuses `name` when another workflow of the workspace has it.
fn check_workflow_name(
    board: &Board,
    workspace_id: &str,
    name: &str,
    except: Option<&str>,
) -> Result<(), BadField> {
    let taken = board.workflows.values().any(|workflow| {
        workflow.workspace_id == workspace_id
            && workflow.name == name
            && Some(workflow.id.as_str()) != except
    });
    if taken {
        Err(BadField::new(
            "name",
            format!("workspace `{workspace_id}` already has a workflow named `{name}`"),
        ))
    } else {
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Workflows and steps
// ---------------------------------------------------------------------------

fn create_workflow(board: &mut Board, args: CreateWorkflow) -> Result<Value, BadField> {
    board.workspace("workspace_id", &args.workspace_id)?;
    let name = required_text("name", args.name)?;
    if let Some(description) = &args.description {
        check_text("description", description)?;
    }
    check_workflow_name(board, &args.workspace_id, &name, None)?;
    board.make_room("name", 1)?;
    let id = board.next_id("workflow");
    let workflow = Workflow {
        id: id.clone(),
        workspace_id: args.workspace_id,
        name,
        description: args.description.unwrap_or_default(),
    };
    board.workflows.insert(id, workflow.clone());
    Ok(json!({ "workflow": workflow }))
}

fn update_workflow(board: &mut Board, args: UpdateWorkflow) -> Result<Value, BadField> {
    let workspace_id = board
        .workflow("workflow_id", &args.workflow_id)?
        .workspace_id
        .clone();
    let name = args
        .name
        .map(|name| required_text("name", name))
        .transpose()?;
    if let Some(name) = &name {
        check_workflow_name(board, &workspace_id, name, Some(&args.workflow_id))?;
    }
    if let Some(description) = &args.description {
        check_text("description", description)?;
    }
    let workflow = board
        .workflows
        .get_mut(&args.workflow_id)
        .ok_or_else(|| BadField::missing("workflow_id", "workflow", &args.workflow_id))?;
    if let Some(name) = name {
        workflow.name = name;
    }
    if let Some(description) = args.description {
        workflow.description = description;
    }
    Ok(json!({ "workflow": workflow }))
}

fn delete_workflow(board: &mut Board, args: DeleteWorkflow) -> Result<Value, BadField> {
    board.workflow("workflow_id", &args.workflow_id)?;
    let tasks = board
        .tasks
        .values()
        .filter(|task| task.workflow_id == args.workflow_id)
        .count();
    if tasks > 0 {
        return Err(BadField::new(
            "workflow_id",
            format!(
                "workflow `{}` still holds {tasks} task(s); move or delete them first",
                args.workflow_id
            ),
        ));
    }
    let steps = step_order(board, &args.workflow_id);
    board
        .steps
        .retain(|_, step| step.workflow_id != args.workflow_id);
    board.workflows.remove(&args.workflow_id);
    Ok(json!({ "deleted": args.workflow_id, "deleted_steps": steps }))
}

// ---------------------------------------------------------------------------
// The tool group
// ---------------------------------------------------------------------------

#[tool_group(name = "configuration-workflows", surfaces = ["configuration", "external"])]
impl Kandev {
    #[tool(
        name = "list_workspaces_kandev",
        description = "Returns every workspace so callers can learn workspace IDs.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_workspaces(&self) -> ToolResult {
        ok(self.list_workspaces())
    }

    #[tool(
        name = "list_workflows_kandev",
        description = "Returns the workflows belonging to one workspace.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_workflows(
        &self,
        Parameters(args): Parameters<WorkspaceRef>,
    ) -> ToolResult {
        respond(self.list_workflows(args))
    }

    #[tool(
        name = "list_repositories_kandev",
        description = "Returns a workspace's repositories, each with its default branch.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_repositories(
        &self,
        Parameters(args): Parameters<WorkspaceRef>,
    ) -> ToolResult {
        respond(self.list_repositories(args))
    }

    #[tool(
        name = "create_workflow_kandev",
        description = "Adds a new named workflow to a workspace.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_create_workflow(
        &self,
        Parameters(args): Parameters<CreateWorkflow>,
    ) -> ToolResult {
        self.on_board(|board| create_workflow(board, args))
    }

    #[tool(
        name = "update_workflow_kandev",
        description = "Renames a workflow or changes its description.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_workflow(
        &self,
        Parameters(args): Parameters<UpdateWorkflow>,
    ) -> ToolResult {
        self.on_board(|board| update_workflow(board, args))
    }

    #[tool(
        name = "delete_workflow_kandev",
        description = "Irreversibly removes a workflow together with its steps.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_delete_workflow(
        &self,
        Parameters(args): Parameters<DeleteWorkflow>,
    ) -> ToolResult {
        self.on_board(|board| delete_workflow(board, args))
    }

    #[tool(
        name = "import_workflow_kandev",
        description = "Creates workflows from an exported YAML/JSON document, skipping names already present.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_import_workflow(
        &self,
        Parameters(args): Parameters<ImportWorkflow>,
    ) -> ToolResult {
        self.on_board(|board| import_workflows(board, args))
    }

    #[tool(
        name = "export_workflow_kandev",
        description = "Serializes a workflow plus its steps as a portable, ID-free JSON document.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_export_workflow(
        &self,
        Parameters(args): Parameters<ExportWorkflow>,
    ) -> ToolResult {
        respond(export_workflow(&self.store.lock(), args))
    }

    #[tool(
        name = "list_workflow_steps_kandev",
        description = "Returns the steps (board columns) of one workflow.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_workflow_steps(
        &self,
        Parameters(args): Parameters<WorkflowRef>,
    ) -> ToolResult {
        respond(self.list_workflow_steps(args))
    }

    #[tool(
        name = "create_workflow_step_kandev",
        description = "Adds a board column, optionally with its own agent profile and session rules.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn config_create_workflow_step(
        &self,
        Parameters(args): Parameters<CreateWorkflowStep>,
    ) -> ToolResult {
        self.on_board(|board| create_workflow_step(board, args))
    }

    #[tool(
        name = "update_workflow_step_kandev",
        description = "Changes the settings of an existing workflow step.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_workflow_step(
        &self,
        Parameters(args): Parameters<UpdateWorkflowStep>,
    ) -> ToolResult {
        self.on_board(|board| update_workflow_step(board, args))
    }

    #[tool(
        name = "delete_workflow_step_kandev",
        description = "Irreversibly removes a single workflow step.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_delete_workflow_step(
        &self,
        Parameters(args): Parameters<DeleteWorkflowStep>,
    ) -> ToolResult {
        self.on_board(|board| delete_workflow_step(board, args))
    }

    #[tool(
        name = "reorder_workflow_steps_kandev",
        description = "Sets a workflow's column order from a complete list of step IDs.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_reorder_workflow_steps(
        &self,
        Parameters(args): Parameters<ReorderWorkflowSteps>,
    ) -> ToolResult {
        self.on_board(|board| reorder_workflow_steps(board, args))
    }
}
