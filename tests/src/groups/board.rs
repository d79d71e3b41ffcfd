//! Board tools: kanban-task and configuration both list tasks, never together.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::TaskServer;

/// Which workflow to list.
#[derive(Deserialize, JsonSchema)]
pub struct ListTasks {
    /// The workflow's ID.
    pub workflow_id: String,
}

// Annotations are honest, so that policies (read-only, no-destructive)
// have something real to read: listing and waiting change nothing, creating
// only adds.
#[tool_group(name = "kanban-task", surface = "kanban-task")]
impl TaskServer {
    #[tool(
        description = "List the tasks of a workflow",
        annotations(read_only_hint = true)
    )]
    async fn list_tasks(
        &self,
        Parameters(args): Parameters<ListTasks>,
    ) -> Result<CallToolResult, ErrorData> {
        self.record("list_tasks");
        Ok(CallToolResult::success(vec![
            rmcp::model::ContentBlock::text(args.workflow_id),
        ]))
    }

    #[tool(
        description = "Wait until the test releases this call",
        annotations(read_only_hint = true)
    )]
    async fn wait_for_release(&self) -> Result<CallToolResult, ErrorData> {
        self.record("wait_for_release_started");
        self.wait_released().await;
        self.record("wait_for_release");
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(
        name = "create_task",
        description = "Create a task",
        annotations(destructive_hint = false)
    )]
    async fn create(&self) -> Result<CallToolResult, ErrorData> {
        self.record("create_task");
        Ok(CallToolResult::success(vec![]))
    }
}

#[tool_group(name = "configuration-tasks", surfaces = ["configuration", "external"])]
impl TaskServer {
    #[tool(
        name = "list_tasks",
        description = "List the tasks of a workflow, for configuration",
        annotations(read_only_hint = true)
    )]
    async fn list_tasks_for_configuration(
        &self,
        Parameters(args): Parameters<ListTasks>,
    ) -> Result<CallToolResult, ErrorData> {
        self.record("list_tasks");
        Ok(CallToolResult::success(vec![
            rmcp::model::ContentBlock::text(args.workflow_id),
        ]))
    }
}
