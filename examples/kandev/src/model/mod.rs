//! What a Kandev board is made of: workspaces, workflows, tasks, plans,
//! documents, agents, executors, automations, shared prompts, settings and
//! coordinator ledgers ([`Board`]), the checks on what tools write into it,
//! and a small demo: a workspace with a repository, a workflow with four
//! steps, an autopilot parent task with two children, a normal, an office
//! and a title-owned task, a plan, a document, an agent, an executor, two
//! shared prompts and a coordinator's ledger. It knows no storage:
//! `crate::db` saves it and `crate::store` serves it.

mod board;
mod checks;
mod coordinator;
mod demo;
mod demo_coordinator;
mod entities;

pub use board::Board;
pub use checks::*;
pub use coordinator::*;
pub use entities::*;
