//! `coordinator`: a coordinator conversation reads the board and files
//! proposals for a workspace manager to approve; it never changes the board
//! itself. The session's bound task is the coordinator's conversation task,
//! which names the coordinator whose proposals and turns it sees.
//!
//! Kandev registers the tools its coordinator tool policy binds, from a
//! universe of 13, and the phase-1 seven when no policy is bound: here an
//! allow list (`{"allow":{"coordinator":[...]}}` in the context). Three of
//! the reads are the other groups' own definitions (identical parameters
//! and purpose); `list_tasks_kandev` and `list_repositories_kandev` are the
//! coordinator's own, with its descriptions, over the same shared work.

mod proposals;
mod reads;
#[cfg(test)]
mod tests;

use chrono::Utc;
use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;

use super::shared::{WorkflowRef, WorkspaceRef};
use super::{ToolResult, respond};
use crate::server::Kandev;
use proposals::{ProposeImprovement, ProposeMessage, ProposeMove, ProposeResume, ProposeTask};
use reads::{GetCoordinatorItem, ListCoordinatorActivity, ListCoordinatorTurns};

#[tool_group(
    name = "coordinator",
    surface = "coordinator",
    include(
        "kanban-task": ["get_task_conversation_kandev"],
        "configuration-workflows": ["list_workflows_kandev", "list_workflow_steps_kandev"]
    ),
    allow_list(
        default = [
            "list_tasks_kandev",
            "get_task_conversation_kandev",
            "list_workflows_kandev",
            "list_workflow_steps_kandev",
            "list_repositories_kandev",
            "get_coordinator_item_kandev",
            "propose_task_kandev",
        ],
        max = 13
    )
)]
impl Kandev {
    #[tool(
        name = "list_tasks_kandev",
        description = "Returns the tasks of one workflow.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn coordinator_list_tasks(
        &self,
        Parameters(args): Parameters<WorkflowRef>,
    ) -> ToolResult {
        respond(self.list_tasks(args))
    }

    #[tool(
        name = "list_repositories_kandev",
        description = "Returns a workspace's repositories, for targeting a proposed task.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn coordinator_list_repositories(
        &self,
        Parameters(args): Parameters<WorkspaceRef>,
    ) -> ToolResult {
        respond(self.list_repositories(args))
    }

    #[tool(
        name = "get_coordinator_item_kandev",
        description = "Reads the proposal or stall record behind a referenced coordinator item.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn coordinator_get_item(
        &self,
        Parameters(args): Parameters<GetCoordinatorItem>,
    ) -> ToolResult {
        respond(reads::get_item(&self.store.lock(), &self.task_id, args))
    }

    #[tool(
        name = "list_coordinator_activity_kandev",
        description = "Pages through this coordinator's own proposals and their outcomes, newest first.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn coordinator_list_activity(
        &self,
        Parameters(args): Parameters<ListCoordinatorActivity>,
    ) -> ToolResult {
        respond(reads::list_activity(
            &self.store.lock(),
            &self.task_id,
            args,
        ))
    }

    #[tool(
        name = "propose_task_kandev",
        description = "Files a task proposal that a workspace manager must approve before anything is created.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn coordinator_propose_task(
        &self,
        Parameters(args): Parameters<ProposeTask>,
    ) -> ToolResult {
        let now = Utc::now();
        self.on_board(|board| proposals::propose_task(board, &self.task_id, now, args))
    }

    // A repeat message, move or resume proposal for a task answers the open
    // one instead of filing another: idempotent.
    #[tool(
        name = "propose_message_kandev",
        description = "Files a proposal to message a task's agent, pending manager approval.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn coordinator_propose_message(
        &self,
        Parameters(args): Parameters<ProposeMessage>,
    ) -> ToolResult {
        let now = Utc::now();
        self.on_board(|board| proposals::propose_message(board, &self.task_id, now, args))
    }

    #[tool(
        name = "propose_move_kandev",
        description = "Files a proposal to move a task to another step, pending manager approval.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn coordinator_propose_move(
        &self,
        Parameters(args): Parameters<ProposeMove>,
    ) -> ToolResult {
        let now = Utc::now();
        self.on_board(|board| proposals::propose_move(board, &self.task_id, now, args))
    }

    #[tool(
        name = "propose_resume_kandev",
        description = "Files a proposal to resume a stopped task session, pending manager approval.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn coordinator_propose_resume(
        &self,
        Parameters(args): Parameters<ProposeResume>,
    ) -> ToolResult {
        let now = Utc::now();
        self.on_board(|board| proposals::propose_resume(board, &self.task_id, now, args))
    }

    #[tool(
        name = "propose_improvement_kandev",
        description = "Proposes replacement coordinator context text, backed by run evidence, for human review.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn coordinator_propose_improvement(
        &self,
        Parameters(args): Parameters<ProposeImprovement>,
    ) -> ToolResult {
        let now = Utc::now();
        self.on_board(|board| proposals::propose_improvement(board, &self.task_id, now, args))
    }

    #[tool(
        name = "list_coordinator_turns_kandev",
        description = "Pages through this coordinator's own recent turns with outcomes and tool-call digests.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn coordinator_list_turns(
        &self,
        Parameters(args): Parameters<ListCoordinatorTurns>,
    ) -> ToolResult {
        respond(reads::list_turns(&self.store.lock(), &self.task_id, args))
    }
}
