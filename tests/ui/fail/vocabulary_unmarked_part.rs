// An enum with no role attribute: one error on its name, saying which
// attribute to add; the enum is still taken as that part (by its name, or
// as the one part missing), so the groups and code below add none.

mod named_like_a_part {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        pub enum Capability { Refund }
        #[providers] pub enum Provider { Jira }
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

mod the_part_missing {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
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

mod the_one_left {
    use mcp_profiles::Term;

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        pub enum Where { Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }

    pub fn use_it() {
        let _ = (Where::ALL, Capability::ALL, Provider::ALL);
    }
}

fn main() {
    named_like_a_part::use_it();
    the_part_missing::use_it();
    the_one_left::use_it();
}
