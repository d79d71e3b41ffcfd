//! Two servers identical but for an allow list, so a benchmark can pair a
//! replacement (and a call) under an allow list against the same without:
//! `desk` (12 tools, on both surfaces; [`listed::Listed`]'s declares an
//! allow list with a default of 8) and `back-office` (4 tools, back only).

macro_rules! server {
    ($module:ident, $server:ident, $doc:literal $(, $($allow:tt)+)?) => {
        #[doc = $doc]
        pub mod $module {
            use mcp_profiles::tool_group;
            use rmcp::model::CallToolResult;
            use rmcp::{ErrorData, tool};

            #[doc = $doc]
            #[derive(Clone, Default)]
            pub struct $server;

            impl rmcp::ServerHandler for $server {}

            mcp_profiles::vocabulary! {
                server $server;
                #[surfaces] pub enum Surface { Front, Back }
                #[capabilities] pub enum Capability {}
                #[providers] pub enum Provider {}
            }

            fn done() -> Result<CallToolResult, ErrorData> {
                Ok(CallToolResult::success(vec![]))
            }

            #[tool_group(name = "desk", surfaces = ["front", "back"] $(, $($allow)+)?)]
            impl $server {
                #[tool(description = "Tool 0")] async fn t0(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 1")] async fn t1(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 2")] async fn t2(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 3")] async fn t3(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 4")] async fn t4(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 5")] async fn t5(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 6")] async fn t6(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 7")] async fn t7(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 8")] async fn t8(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 9")] async fn t9(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 10")] async fn t10(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 11")] async fn t11(&self) -> Result<CallToolResult, ErrorData> { done() }
            }

            #[tool_group(name = "back-office", surface = "back")]
            impl $server {
                #[tool(description = "Tool 12")] async fn b0(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 13")] async fn b1(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 14")] async fn b2(&self) -> Result<CallToolResult, ErrorData> { done() }
                #[tool(description = "Tool 15")] async fn b3(&self) -> Result<CallToolResult, ErrorData> { done() }
            }
        }
    };
}

server!(
    listed,
    Listed,
    "The server whose `desk` group declares an allow list.",
    allow_list(default = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"])
);
server!(unlisted, Unlisted, "The same server without an allow list.");
