// A part declared twice: one error on the second enum, which is still
// declared (with the traits of a term), so code naming it adds none.

mod surfaces {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[surfaces] pub enum Channel { Chat }
    }

    pub fn channel() -> String {
        Channel::Chat.to_string()
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

mod capabilities {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[capabilities] pub enum Capability { Refund }
        #[capabilities] pub enum Power { Escalate }
    }

    pub fn power() -> String {
        Power::Escalate.to_string()
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

mod providers {
    use mcp_profiles::{ProfileContext, Term, Vocabulary, tool_group};
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[providers] pub enum Provider { Jira }
        #[providers] pub enum Tracker { Linear }
    }

    pub fn tracker() -> String {
        Tracker::Linear.to_string()
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
    surfaces::use_it();
    capabilities::use_it();
    providers::use_it();
}
