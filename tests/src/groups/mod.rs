//! The task server's tool groups, one concern per file. Nothing here lists
//! them: each `#[tool_group]` links its own registry entry.

mod board;
mod questions;
pub mod review;
