// Role attributes misused, one way per vocabulary: each is one error on the
// attribute (or the item), and the part is still declared, so the groups
// and code below add none.

mod two_roles {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces]
        #[providers]
        pub enum Surface { Ticket }
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

mod role_twice {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces]
        #[surfaces]
        pub enum Surface { Ticket }
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

mod role_with_arguments {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[providers(jira)] pub enum Provider { Jira }
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

mod not_an_enum {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[providers] pub struct Provider;
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

fn main() {
    two_roles::use_it();
    role_twice::use_it();
    role_with_arguments::use_it();
    not_an_enum::use_it();
}
