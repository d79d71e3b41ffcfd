//! Tool search: for large surfaces, `tools/list` shows a few tools and two
//! of the server's own, a search over the profile's tools and a call
//! proxy, instead of every tool's name, description and schema.
//!
//! Search only ever *shows* what the profile already serves: the index of
//! a profile is built from the tools that profile serves and nothing else,
//! and the proxy dispatches exactly as a direct `tools/call` of the tool
//! it names, with the same refusals. The agent never grants itself a tool.
//!
//! Prompts and resources are not searched: their lists are small, and they
//! are chosen by the user and the application, not the model, so they cost
//! the agent's context nothing until used.

mod config;
mod definitions;
mod index;
mod tools;

pub use config::{ToolSearch, ToolSearchError};
pub(crate) use index::Index;
pub(crate) use tools::{Meta, Searching, proxied_request};
