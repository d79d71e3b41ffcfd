// The `server` line written wrong: one error on what was written, and the
// name given is still the server, so the groups and code below add none.

mod without_keyword {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        Desk;
        #[surfaces] pub enum Surface { Ticket }
    }

    #[tool_group(name = "tickets", surface = "ticket")]
    impl Desk {
        #[tool(description = "List the tickets")]
        async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    pub fn use_it() {
        let context = ProfileContext::<Desk>::new(Surface::Ticket);
        let _ = Desk::registry().assemble(&context);
        let _ = (Capability::ALL, Provider::ALL);
    }
}

mod misspelt_keyword {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        serve Desk;
        #[surfaces] pub enum Surface { Ticket }
    }

    #[tool_group(name = "tickets", surface = "ticket")]
    impl Desk {
        #[tool(description = "List the tickets")]
        async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    pub fn use_it() {
        let context = ProfileContext::<Desk>::new(Surface::Ticket);
        let _ = Desk::registry().assemble(&context);
        let _ = (Capability::ALL, Provider::ALL);
    }
}

mod without_semicolon {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk
        #[surfaces] pub enum Surface { Ticket }
    }

    #[tool_group(name = "tickets", surface = "ticket")]
    impl Desk {
        #[tool(description = "List the tickets")]
        async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    pub fn use_it() {
        let context = ProfileContext::<Desk>::new(Surface::Ticket);
        let _ = Desk::registry().assemble(&context);
        let _ = (Capability::ALL, Provider::ALL);
    }
}

// Without a server type the enums are still declared; nothing can be given
// a vocabulary, so this case has no groups.
mod without_server_type {
    use mcp_profiles::Term;

    mcp_profiles::vocabulary! {
        server;
        #[surfaces] pub enum Surface { Ticket }
    }

    pub fn use_it() {
        let _ = (Surface::Ticket.to_string(), Capability::ALL, Provider::ALL);
    }
}

mod without_server_line {
    use mcp_profiles::Term;

    mcp_profiles::vocabulary! {
        #[surfaces] pub enum Surface { Ticket }
    }

    pub fn use_it() {
        let _ = (Surface::Ticket.to_string(), Capability::ALL, Provider::ALL);
    }
}

fn main() {
    without_keyword::use_it();
    misspelt_keyword::use_it();
    without_semicolon::use_it();
    without_server_type::use_it();
    without_server_line::use_it();
}
