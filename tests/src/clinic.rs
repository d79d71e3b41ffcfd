//! A small clinic server whose groups share tools
//! (`#[tool_group(include(...), exclude = [...])]`):
//! - `records` (desk): `list_patients`, `get_patient`, `delete_patient`;
//! - `billing` (desk, with the `billing` capability): `list_invoices`, and
//!   `records`' own `list_patients` (one definition, on together with
//!   `records`);
//! - `night` (night surface): all of `records` and `billing` less
//!   `delete_patient`, and nothing of its own;
//! - `triage` (triage surface): `page_doctor`, and `records`'
//!   `list_patients` and `get_patient`, under an allow list of at most two
//!   (default `list_patients` and `page_doctor`).
//!
//! Each handler answers with its method's name, so a test sees which
//! definition served a call.

use mcp_profiles::tool_group;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool};

/// The clinic.
#[derive(Clone, Default)]
pub struct Clinic;

impl rmcp::ServerHandler for Clinic {}

mcp_profiles::vocabulary! {
    server Clinic;

    #[surfaces]
    pub enum Surface { Desk, Night, Triage }

    #[capabilities]
    pub enum Capability { Billing }

    #[providers]
    pub enum Provider {}
}

fn answer(method: &str) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(method)]))
}

#[tool_group(
    name = "records",
    title = "Patient records",
    description = "Find, read and remove patients",
    surface = "desk"
)]
impl Clinic {
    #[tool(description = "List patients")]
    async fn list_patients(&self) -> Result<CallToolResult, ErrorData> {
        answer("list_patients")
    }

    #[tool(description = "Get a patient")]
    async fn get_patient(&self) -> Result<CallToolResult, ErrorData> {
        answer("get_patient")
    }

    #[tool(description = "Delete a patient")]
    async fn delete_patient(&self) -> Result<CallToolResult, ErrorData> {
        answer("delete_patient")
    }
}

#[tool_group(
    name = "billing",
    title = "Billing",
    surface = "desk",
    capability = "billing",
    include("records": ["list_patients"])
)]
impl Clinic {
    #[tool(description = "List invoices")]
    async fn list_invoices(&self) -> Result<CallToolResult, ErrorData> {
        answer("list_invoices")
    }
}

#[tool_group(
    name = "night",
    surface = "night",
    include("records", "billing"),
    exclude = ["delete_patient"]
)]
impl Clinic {}

#[tool_group(
    name = "triage",
    surface = "triage",
    include("records": ["list_patients", "get_patient"]),
    allow_list(default = ["list_patients", "page_doctor"], max = 2)
)]
impl Clinic {
    #[tool(description = "Page the doctor on call")]
    async fn page_doctor(&self) -> Result<CallToolResult, ErrorData> {
        answer("page_doctor")
    }
}

/// The desk: `records`.
pub fn desk() -> mcp_profiles::ProfileContext<Clinic> {
    mcp_profiles::ProfileContext::new(Surface::Desk)
}

/// The desk with `billing`: `records` and `billing`.
pub fn billing() -> mcp_profiles::ProfileContext<Clinic> {
    desk()
        .with_capability(Capability::Billing)
        .expect("billing excludes nothing")
}
