//! A help desk whose `desk` surface is over the token budget its
//! vocabulary declares: the costliest desk context (the `audit` side, with
//! Jira attached) lists more than 150 o200k_base tokens, so its registry
//! verifies but its budgets do not. `triage` is well within its budget.
//!
//! Not in this crate's own `cargo test` (see `lib.rs`): `vocabulary!` adds
//! a test there that runs the budget check, and this one fails it on
//! purpose; `tests/integration/costs.rs` checks what that test reports.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// The help desk; its handlers do nothing.
#[derive(Clone, Default)]
pub struct Costly;

impl rmcp::ServerHandler for Costly {}

mcp_profiles::vocabulary! {
    server Costly;

    #[surfaces]
    pub enum Surface {
        #[budget(tokens = 150)]
        Desk,
        #[budget(tokens = 100_000)]
        Triage,
    }

    #[capabilities]
    pub enum Capability {
        Refund,
        #[exclusive_with(Refund)]
        Audit,
    }

    #[providers]
    pub enum Provider { Jira }
}

fn done() -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::success(vec![]))
}

/// Which part of the trail to export.
#[derive(Deserialize, JsonSchema)]
pub struct ExportTrail {
    /// The first day to export, as an ISO 8601 date (`2026-01-31`).
    pub from: String,
    /// The last day to export, inclusive; today when left out.
    pub until: Option<String>,
    /// Whether to include the agents' private notes on each ticket.
    pub with_notes: bool,
}

#[tool_group(name = "tickets", surface = "desk")]
impl Costly {
    #[tool(description = "List open tickets")]
    async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

#[tool_group(name = "refunds", surface = "desk", capability = "refund")]
impl Costly {
    #[tool(description = "Refund the ticket's order")]
    async fn issue_refund(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

#[tool_group(name = "audits", capability = "audit")]
impl Costly {
    #[tool(
        description = "Export the audit trail of every ticket in a date range, with each change, \
                       who made it and why, as CSV"
    )]
    async fn export_audit_trail(
        &self,
        Parameters(_range): Parameters<ExportTrail>,
    ) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

#[tool_group(name = "jira", provider = "jira")]
impl Costly {
    #[tool(description = "Link the ticket to a Jira issue")]
    async fn link_issue(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

#[tool_group(
    name = "triage",
    surface = "triage",
    allow_list(universe = ["close", "merge", "split_into_several_tickets"], default = ["close"], max = 2)
)]
impl Costly {
    #[tool(description = "Close the ticket")]
    async fn close(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Merge the ticket into another")]
    async fn merge(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Split the ticket into several, one per question it asks")]
    async fn split_into_several_tickets(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Label the ticket: outside the universe, never governed")]
    async fn label(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}
