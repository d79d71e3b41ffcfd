//! The task server's contexts the tests keep coming back to, and what a
//! context assembles into.

use mcp_profiles::{ProfileContext, Vocabulary};

use crate::{Capability, Surface, TaskServer};

/// A context of the task server.
pub type Context = ProfileContext<TaskServer>;

/// A kanban-task session that may ask the user.
pub fn asking() -> Context {
    Context::new(Surface::KanbanTask)
        .with_capability(Capability::UserQuestion)
        .unwrap()
}

/// An autopilot child: a kanban-task session that asks its parent.
pub fn child() -> Context {
    Context::new(Surface::KanbanTask)
        .with_capability(Capability::ParentQuestion)
        .unwrap()
}

/// The compiled tool names `context` assembles into, sorted.
pub fn names_of(context: &Context) -> Vec<String> {
    let profile = TaskServer::registry().assemble(context);
    profile
        .tool_names()
        .iter()
        .map(|name| name.to_string())
        .collect()
}
