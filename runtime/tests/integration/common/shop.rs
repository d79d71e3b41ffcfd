//! A shop whose compiled tools declare honest annotations, for the tests
//! of policies: linked with `#[tool_group]`, so annotations come from the
//! tools' rmcp definitions as they would in a server. Its vocabulary
//! declares a runtime allow list of at most three names, for the tests of
//! that list.

use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

pub mod server {
    /// The shop server; its handlers do nothing.
    #[derive(Clone)]
    pub struct Shop;

    impl rmcp::ServerHandler for Shop {}

    mcp_profiles::vocabulary! {
        #[runtime_allow_list(max = 3)]
        server Shop;

        #[surfaces]
        pub enum Surface { Store, Admin }

        #[capabilities]
        pub enum Capability { Refund }

        #[providers]
        pub enum Provider {}
    }
}

pub use server::{Capability, Shop, Surface};

fn done() -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::success(vec![]))
}

#[mcp_profiles::tool_group(name = "catalog", surfaces = ["store", "admin"])]
impl Shop {
    #[tool(description = "List products", annotations(read_only_hint = true))]
    async fn list_products(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Add a product", annotations(destructive_hint = false))]
    async fn add_product(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(description = "Delete a product", annotations(destructive_hint = true))]
    async fn delete_product(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    /// No annotations: MCP's defaults, not read-only and maybe destructive.
    #[tool(description = "Rename a product")]
    async fn rename_product(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

#[mcp_profiles::tool_group(name = "refunds", capability = "refund")]
impl Shop {
    /// Read-only wins: `destructiveHint` means something only without it.
    #[tool(
        description = "Refunds so far",
        annotations(read_only_hint = true, destructive_hint = true)
    )]
    async fn refund_history(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }

    #[tool(
        description = "Refund an order",
        annotations(read_only_hint = false, destructive_hint = false)
    )]
    async fn issue_refund(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}

#[mcp_profiles::tool_group(name = "admin", surface = "admin")]
impl Shop {
    #[tool(description = "Wipe the shop", annotations(destructive_hint = true))]
    async fn wipe_shop(&self) -> Result<CallToolResult, ErrorData> {
        done()
    }
}
