//! Kandev's MCP tool surface on mcp-profiles.
//!
//! Kandev's tool groups over seven surfaces (`kanban-task`, `office-task`,
//! `configuration`, `external`, `automation`, `coordinator`,
//! `managed-conversation`), four capabilities (`user-question`,
//! `parent-question`, `task-title`, `canvas-authoring`) and two providers
//! (`github`, `gitlab`), with the group names, rules, tool names and
//! parameters of Kandev's catalog. Handlers work on a demo board, in memory or kept in SQLite
//! ([`db`]), where each session's profile is resolved from the stored task.

mod content;
pub mod control;
pub mod costs;
pub mod db;
pub mod demo;
pub mod file_limit;
pub mod gateway;
pub mod kandev_hints;
pub mod legacy;
pub mod logging;
pub mod matrix;
pub mod model;
pub mod naming;
mod openapi;
pub mod plugins;
pub mod policy;
pub mod prometheus;
pub mod resolver;
pub mod search;
pub mod served;
pub mod server;
pub mod store;
pub mod tool_policies;
mod tools;

pub use server::{Capability, Kandev, Provider, Surface};
