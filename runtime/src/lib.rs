//! Typed tool profiles for MCP servers built on [`rmcp`].
//!
//! A server type declares its **vocabulary** once — surfaces, capabilities
//! (with exclusivity) and providers — and every group of rmcp `#[tool]`
//! handlers carries **one enablement rule** in a `#[tool_group]` attribute.
//! The groups become a static, verified [`Registry`]; a [`ProfileContext`]
//! chosen by the backend assembles into a [`Profile`]: the exact, sorted set
//! of tools a session may see and call. Nothing lists groups by hand and
//! nothing counts tools.
//!
//! ```
//! use mcp_profiles::{ProfileContext, Vocabulary, tool_group};
//! use rmcp::{ErrorData, handler::server::wrapper::Parameters, model::CallToolResult, tool};
//!
//! mod server {
//!     /// The rmcp handler type whose tools are grouped.
//!     #[derive(Clone)]
//!     pub struct Helpdesk;
//!
//!     mcp_profiles::vocabulary! {
//!         server Helpdesk;
//!
//!         #[surfaces]
//!         pub enum Surface { Ticket, Chat }
//!
//!         #[capabilities]
//!         pub enum Capability {
//!             Refund,
//!             #[exclusive_with(Refund)]
//!             ReadOnly,
//!         }
//!
//!         #[providers]
//!         pub enum Provider { Jira }
//!     }
//! }
//! use server::{Capability, Helpdesk, Surface};
//!
//! #[tool_group(surface = "ticket", capability = "refund")]
//! impl Helpdesk {
//!     #[tool(description = "Refund the ticket's order")]
//!     async fn issue_refund(&self) -> Result<CallToolResult, ErrorData> {
//!         Ok(CallToolResult::success(vec![]))
//!     }
//! }
//!
//! #[tool_group(name = "tickets", surfaces = ["ticket", "chat"])]
//! impl Helpdesk {
//!     #[tool(description = "List the open tickets")]
//!     async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> {
//!         Ok(CallToolResult::success(vec![]))
//!     }
//! }
//!
//! let context = ProfileContext::<Helpdesk>::new(Surface::Ticket)
//!     .with_capability(Capability::Refund)?;
//! let profile = Helpdesk::registry().assemble(&context);
//! assert_eq!(profile.tool_names(), ["issue_refund", "list_tickets"]);
//! # Ok::<(), mcp_profiles::ContextError>(())
//! ```
//!
//! The [`vocabulary!`] and [`tool_group`] docs describe the annotations and the
//! compile-time checks behind them.
//!
//! To serve a profile, the backend holds a [`ProfileController`] and gives
//! MCP sessions [`ProfiledServer`]s made from it (stdio through rmcp, HTTP
//! through [`http`]); [`ProfileController::replace`] swaps every session's
//! tool set at once and sends each exactly one `tools/list_changed`
//! (2025-era sessions unsolicited, 2026-07-28 clients on their
//! `subscriptions/listen` stream). [`ProfileStore`] serves many agents behind
//! one endpoint, by bearer token, and [`ProfileController::update`] is the
//! read-modify-write an application builds its own live changes on.
//!
//! # Features
//!
//! - `stdio` (default): serve over stdin/stdout through rmcp.
//! - `http` (default): the [`http`] module, streamable HTTP with axum.
//! - `testing`: `Registry::builder`, registries written in code, for tests
//!   of rules and verification without handlers.

// Generated code names this crate `::mcp_profiles`; let that resolve here too.
extern crate self as mcp_profiles;

mod assembly;
mod context;
mod controller;
mod forward;
#[cfg(feature = "http")]
pub mod http;
mod notification;
#[cfg(feature = "http")]
mod principals;
mod registry;
mod rule;
mod server;
mod snapshot;
mod vocabulary;

pub use assembly::{Explanation, Profile, ToolDiff};
pub use context::{ContextError, ProfileContext};
pub use controller::{ProfileController, Replacement};
#[cfg(feature = "http")]
pub use principals::{Principal, ProfileStore, UnknownPrincipal};
#[cfg(feature = "testing")]
pub use registry::RegistryBuilder;
pub use registry::{Group, Registry, RegistryError, RegistryErrors};
pub use rule::{Decision, Rule, TermSet};
pub use server::ProfiledServer;
pub use vocabulary::{Term, TermKind, UnknownName, Vocabulary};

pub use mcp_profiles_macros::{tool_group, vocabulary};

/// The rmcp this crate is built against.
pub use rmcp;

/// Items used by generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::registry::{GroupEntry, LinkedGroup, TOOL_GROUPS, linked_registry};
    pub use crate::rule::RuleMasks;
    pub use crate::vocabulary::sealed::{TermIndex, VocabularySeal};
    pub use crate::vocabulary::serde_term;
    pub use linkme;
    pub use mcp_profiles_macros::__register_tool_group as register_tool_group;
    pub use rmcp::handler::server::router::tool::{IntoToolRoute, ToolRoute};
    pub use serde;
}
