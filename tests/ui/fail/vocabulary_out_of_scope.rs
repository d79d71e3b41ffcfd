// The vocabulary is declared in another module than the type, and the impl's
// module imports only the type: the error says to import the vocabulary.
use mcp_profiles::tool_group;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

mod server {
    #[derive(Clone)]
    pub struct Helpdesk;
}

mod vocabulary {
    use crate::server::Helpdesk;

    mcp_profiles::vocabulary! {
        server Helpdesk;
        #[surfaces] pub enum Surface { Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod tools {
    use super::*;
    use crate::server::Helpdesk;

    #[tool_group(surface = "ticket")]
    impl Helpdesk {
        #[tool(description = "List")]
        async fn list(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }
}

fn main() {}
