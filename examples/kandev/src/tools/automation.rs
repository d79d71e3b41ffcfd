//! The `automation` surface: what an automation run may do, declared once
//! as other groups' tools less what it must not. Kandev registers seven
//! groups and then deletes 21 names, 8 of which none of those groups has
//! (dead names its code cannot see); here every excluded name is checked
//! against the included groups when the crate compiles, so only the 13
//! that exist are written, and a tool two groups share (the configuration
//! reads the kanban group includes) is one definition, never "the last
//! registered wins".

use mcp_profiles::tool_group;

use crate::server::Kandev;

#[tool_group(
    name = "automation",
    surface = "automation",
    include(
        "kanban-task",
        "task-dependencies",
        "related-tasks",
        "external-questions",
        "external-agent-permissions",
        "configuration-workflows",
        "configuration-executors",
    ),
    exclude = [
        "delete_task_kandev",
        "create_workflow_kandev",
        "update_workflow_kandev",
        "delete_workflow_kandev",
        "import_workflow_kandev",
        "export_workflow_kandev",
        "create_workflow_step_kandev",
        "update_workflow_step_kandev",
        "delete_workflow_step_kandev",
        "reorder_workflow_steps_kandev",
        "create_executor_profile_kandev",
        "update_executor_profile_kandev",
        "delete_executor_profile_kandev",
    ]
)]
impl Kandev {}
