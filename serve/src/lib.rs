// The crate docs are README.md, so that every example in it is a doctest.
// Its link definitions point at docs.rs; these come first and win
// (CommonMark keeps the first), so rustdoc checks them as intra-doc links.
//! [`AgentStore`]: crate::AgentStore
//! [`Attribution`]: crate::audit::Attribution
//! [`AuditRecord`]: crate::audit::AuditRecord
//! [`AuditEntry`]: crate::audit::AuditEntry
//! [`AuditQuery`]: crate::audit::AuditQuery
//! [`AuditKind::application`]: crate::audit::AuditKind::application
//! [`MemoryAuditLog`]: crate::audit::MemoryAuditLog
//! [`audit`]: crate::audit
//! [`audit::states`]: crate::audit::states
//! [`AgentStore::serving`]: crate::AgentStore::serving
//! [`AgentStore::resolve`]: crate::AgentStore::resolve
//! [`MemoryStore`]: crate::MemoryStore
//! [`ProfileStore`]: crate::ProfileStore
//! [`ProfileStore::back_with`]: crate::ProfileStore::back_with
//! [`ProfileStore::apply`]: crate::ProfileStore::apply
//! [`ProfileStore::with_presentation`]: crate::ProfileStore::with_presentation
//! [`control::ControlApi`]: crate::control::ControlApi
//! [`gateway::Gateway`]: crate::gateway::Gateway
//! [`http`]: crate::http
//! [`http::serve`]: crate::http::serve
//! [`http::router`]: crate::http::router
//! [`http::serve_multi_agent`]: crate::http::serve_multi_agent
//! [`http::multi_agent_router`]: crate::http::multi_agent_router
//! [`http::Serve`]: crate::http::Serve
//! [`http::Limits`]: crate::http::Limits
//! [`Limits::within_file_limit`]: crate::http::Limits::within_file_limit
//! [`http::raise_file_limit`]: crate::http::raise_file_limit
//! [`http::open_files`]: crate::http::open_files
//! [`http::NoRoomForConnections`]: crate::http::NoRoomForConnections
#![cfg_attr(feature = "redis", doc = "[`RedisStore`]: crate::RedisStore")]
#![cfg_attr(
    feature = "oauth",
    doc = "[`http::oauth_router`]: crate::http::oauth_router\n[`ClaimMapping`]: crate::oauth::ClaimMapping"
)]
#![doc = ""]
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_debug_implementations)]

#[cfg(feature = "admin")]
#[cfg_attr(docsrs, doc(cfg(feature = "admin")))]
pub mod admin;
mod agents;
pub mod audit;
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub mod cli;
#[cfg(feature = "control")]
#[cfg_attr(docsrs, doc(cfg(feature = "control")))]
pub mod control;
pub mod exposure;
#[cfg(feature = "control")]
#[cfg_attr(docsrs, doc(cfg(feature = "control")))]
pub mod gateway;
pub mod http;
mod identity;
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub mod oauth;
#[cfg(feature = "prometheus")]
#[cfg_attr(docsrs, doc(cfg(feature = "prometheus")))]
pub mod prometheus;
pub mod store;
mod telemetry;

/// The axum this crate serves with: [`http::Serve::app`] takes its
/// `Router`, so build apps with this one (or with `axum` of the same
/// version in your own dependencies).
pub use axum;

pub use agents::{AgentUpdate, Apply, KillSwitchOutcome, ProfileStore, ServingFuture, Unreachable};
pub use audit::Attribution;
pub use identity::{Principal, UnknownPrincipal};
pub use store::{
    AgentChange, AgentStore, Changed, MemoryStore, Propagation, StoreError, StoredAgent,
    StoredKillSwitch,
};
#[cfg(feature = "runtime-tools")]
pub use store::{CatalogChange, StoredCatalog};
#[cfg(feature = "redis")]
pub use store::{RedisOptions, RedisStore};
/// The names of the series the serving layer records (feature `metrics`).
#[cfg(feature = "metrics")]
pub use telemetry::names as metric_names;
