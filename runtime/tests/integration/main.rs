//! The runtime's own tests. Each file is a module of this one test binary,
//! so `cargo test` links it once: every test binary links the whole stack
//! (rmcp, axum, an HTTP client), and one binary per file cost a link and
//! 50-140 MB of disk each.

mod common;

mod assembly;
mod context;
mod policy;
mod registry;
mod restriction;
mod rule;
mod runtime_allow;
