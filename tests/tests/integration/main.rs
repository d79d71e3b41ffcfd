//! The cross-crate integration tests. Each file is a module of this one
//! test binary, so `cargo test` links it once: every test binary links the whole stack
//! (rmcp, axum, an HTTP client), and one binary per file cost a link and
//! 50-140 MB of disk each.
//!
//! `tracing_event.rs` stays a binary of its own: it needs a process where
//! no other test touches tracing's process-wide callsite cache.

mod allow_lists;
mod ambiguous_headers;
mod cli;
mod control_catalogs;
mod controller;
mod costs;
mod decisions;
mod disclosure;
mod exposure;
mod exposure_past;
mod forwarding;
mod grouping;
mod grouping_catalog;
mod grouping_streams;
mod hostile;
mod limits;
mod linked;
mod modern;
mod oauth;
mod policies;
mod presentation;
mod prompts;
mod redis_cluster;
mod redis_cluster_harness;
mod redis_propagation;
mod redis_store;
mod redis_unconfirmed;
mod registry_model;
mod resources;
mod rmcp_surface;
mod rule_forms;
mod runtime_allow;
mod runtime_tools;
mod search;
mod serving;
mod shared_tools;
mod store_audit;
mod store_catalogs;
mod store_conformance;
mod store_kill;
mod store_presentation;
