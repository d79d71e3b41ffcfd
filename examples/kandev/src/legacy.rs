//! Kandev's legacy mode strings, as aliases for typed contexts.

use mcp_profiles::LegacyAliases;

use crate::server::{Capability, Kandev, Surface};

/// The modes Kandev's `switch` knew:
///
/// | mode | context |
/// |---|---|
/// | `task` | kanban-task (+ user-question unless disabled) |
/// | `task-title-pending` | kanban-task + task-title (+ user-question unless disabled) |
/// | `config` | configuration (+ user-question unless disabled) |
/// | `office` | office-task (+ user-question unless disabled) |
/// | `external` | external, never a question tool |
///
/// Provider names are normalised (`" GitHub"` is `github`); unknown modes and
/// providers are errors.
pub fn aliases() -> LegacyAliases<Kandev> {
    LegacyAliases::new()
        .question_capability(Capability::UserQuestion)
        .mode("task", Surface::KanbanTask, [])
        .mode(
            "task-title-pending",
            Surface::KanbanTask,
            [Capability::TaskTitle],
        )
        .mode("config", Surface::Configuration, [])
        .mode("office", Surface::OfficeTask, [])
        .mode_without_question("external", Surface::External, [])
}
