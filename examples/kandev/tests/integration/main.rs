//! The Kandev example's integration tests. Each file is a module of this one test binary,
//! so `cargo test` links it once: every test binary links the whole stack
//! (rmcp, axum, an HTTP client), and one binary per file cost a link and
//! 50-140 MB of disk each.

mod common;

mod admin;
mod audit_trail;
mod busy_board;
mod catalog;
mod cli;
mod content;
mod control;
mod control_policy;
mod coordinator;
mod counts;
mod fuzz_corpus;
mod gateway;
mod gateway_hostile;
mod gateway_kill;
mod gateway_oauth;
mod gateway_plugins;
mod gateway_presentation;
mod hostile;
mod invariants;
mod legacy;
mod load;
mod matrix;
// `/metrics` is served only with the `metrics` feature (on by default).
#[cfg(feature = "metrics")]
mod metrics;
mod openapi;
mod plugin_surfaces;
mod plugins;
mod resolver;
mod saturation;
mod save_failures;
mod search;
mod signals;
mod sqlite;
mod sqlite_files;
mod sqlite_tool_policies;
mod tool_policies;
mod tools;
mod tools_kanban;
