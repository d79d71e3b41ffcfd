//! What both control listeners serve beside their APIs, described in their
//! OpenAPI documents: `/metrics` (merged in by the binary from
//! `crate::prometheus`; the openapi test checks it is served), and what
//! Kandev calls the library's admin pages ([`mcp_profiles_serve::admin`],
//! which describes them). The API descriptions themselves are the
//! library's ([`mcp_profiles_serve::control::openapi`]).

use mcp_profiles_serve::admin::Naming;
use mcp_profiles_serve::control::openapi::{self, Operation};

pub use openapi::{get, put};

/// Where both control listeners serve Prometheus metrics.
pub const METRICS: &str = "/metrics";

/// `GET /metrics`, described.
pub fn metrics() -> Operation {
    get::<()>("Prometheus metrics (without the token under --metrics-public)")
        .text("text/plain; version=0.0.4")
}

/// What Kandev's admin pages are called, and their login cookie's name.
pub fn admin_naming() -> Naming {
    Naming::new("Kandev MCP admin", "kandev_admin")
}
