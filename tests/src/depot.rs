//! A small depot server whose tool groups declare allow lists
//! (`#[tool_group(allow_list(...))]`): `dispatch` (four tools, a default of
//! two, every tool in its universe), `crew` (an explicit universe of three
//! with a `max` of two; `roster` outside it, never governed) and `ledger`,
//! which declares none. Its vocabulary declares a runtime allow list of at
//! most three names (`#[runtime_allow_list(max = 3)]`), and [`plugins`] is
//! a catalog of three runtime tools for it.

use mcp_profiles::{Catalog, Rule, RuntimeTool, tool_group};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool};

/// The depot; its handlers do nothing.
#[derive(Clone, Default)]
pub struct Depot;

impl rmcp::ServerHandler for Depot {}

mcp_profiles::vocabulary! {
    #[runtime_allow_list(max = 3)]
    server Depot;

    #[surfaces]
    pub enum Surface { Yard, Office }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

fn done() -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::success(vec![]))
}

#[tool_group(name = "dispatch", surface = "yard", allow_list(default = ["list_jobs", "post_job"]))]
impl Depot {
    #[tool(description = "List jobs")]
    async fn list_jobs(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Post a job")]
    async fn post_job(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Cancel a job")]
    async fn cancel_job(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Close a job")]
    async fn close_job(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

#[tool_group(
    name = "crew",
    surface = "yard",
    allow_list(
        universe = ["assign_crew", "page_crew", "release_crew"],
        default = ["page_crew"],
        max = 2,
    )
)]
impl Depot {
    #[tool(description = "Assign a crew")]
    async fn assign_crew(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Page a crew")]
    async fn page_crew(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Release a crew")]
    async fn release_crew(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Show the roster: outside the universe, never governed")]
    async fn roster(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

#[tool_group(name = "ledger", surface = "office")]
impl Depot {
    #[tool(description = "Read the ledger")]
    async fn read_ledger(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

/// The runtime tools of [`plugins`], sorted.
pub const PLUGINS: [&str; 3] = ["plugin_alpha", "plugin_beta", "plugin_gamma"];

/// A catalog of the three [`PLUGINS`] at revision 1.
pub fn plugins() -> Catalog<Depot> {
    plugin_catalog(1, &PLUGINS)
}

/// A catalog of one generation, `plugins`, at `revision`: a runtime tool
/// per name, each on every surface and answering with its own name, so a
/// test sees which one ran.
pub fn plugin_catalog(revision: u64, names: &[&str]) -> Catalog<Depot> {
    let schema = serde_json::json!({"type": "object"});
    let tools = names.iter().map(|name| {
        let schema = schema.as_object().cloned().unwrap_or_default();
        let answer = (*name).to_owned();
        RuntimeTool::new(
            *name,
            "A plugin tool",
            schema,
            Rule::always(),
            move |_, _| {
                let answer = answer.clone();
                async move { Ok(CallToolResult::success(vec![ContentBlock::text(answer)])) }
            },
        )
    });
    Catalog::new("plugins", revision, tools).expect("a valid catalog")
}
