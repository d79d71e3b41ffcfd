//! A vocabulary may leave out its capabilities, its providers or both: the
//! part left out is declared as the explicit empty enum would be
//! (`pub enum Capability {}`, `pub enum Provider {}`), with the same name,
//! the same traits and the same `Vocabulary` impl. Compiles, and `main`
//! checks that each form works as the explicit one does.

use std::fmt::Debug;
use std::marker::PhantomData;

use mcp_profiles::{ProfileContext, Term, TermKind, Vocabulary};

/// Holds only when `A` and `B` are one type.
fn same_type<A, B>(_: PhantomData<A>, _: PhantomData<B>)
where
    A: SameAs<B>,
{
}

trait SameAs<T> {}
impl<T> SameAs<T> for T {}

/// What code may do with a part of any vocabulary, empty or not.
fn empty_part<T: Term + Debug>(kind: TermKind) {
    assert_eq!(T::KIND, kind);
    assert!(T::ALL.is_empty());
    assert!(T::NAMES.is_empty());
    let unknown = "jira".parse::<T>().unwrap_err();
    assert!(unknown.to_string().contains("jira"), "{unknown}");
}

mod no_providers {
    use mcp_profiles::tool_group;
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[capabilities] pub enum Capability { Refund }
    }

    #[tool_group(name = "refunds", surface = "ticket", capability = "refund")]
    impl Desk {
        #[tool(description = "Refund the order")]
        async fn refund_order(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }
}

mod no_capabilities {
    use mcp_profiles::tool_group;
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[providers] pub enum Provider { Jira }
    }

    #[tool_group(name = "issues", surface = "ticket", provider = "jira")]
    impl Desk {
        #[tool(description = "Link the Jira issue")]
        async fn link_issue(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }
}

mod surfaces_only {
    use mcp_profiles::tool_group;
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[derive(Clone)]
    pub(crate) struct Desk;

    // The surfaces' visibility is the omitted parts' too.
    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub(crate) enum Surface { Ticket, Chat }
    }

    #[tool_group(name = "tickets", surface = "ticket")]
    impl Desk {
        #[tool(description = "List the tickets")]
        async fn list_tickets(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    #[tool_group(name = "info", always)]
    impl Desk {
        #[tool(description = "Server info")]
        async fn info(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    {
        use no_providers::{Capability, Desk, Provider, Surface};
        same_type(
            PhantomData::<<Desk as Vocabulary>::Provider>,
            PhantomData::<Provider>,
        );
        empty_part::<Provider>(TermKind::Provider);
        let context =
            ProfileContext::<Desk>::new(Surface::Ticket).with_capability(Capability::Refund)?;
        assert_eq!(
            Desk::registry().assemble(&context).tool_names(),
            ["refund_order"]
        );
        let json = r#"{"surface":"ticket","capabilities":["refund"]}"#;
        assert_eq!(ProfileContext::<Desk>::from_json(json)?, context);
        assert!(
            ProfileContext::<Desk>::from_json(r#"{"surface":"ticket","providers":["jira"]}"#)
                .is_err()
        );
    }
    {
        use no_capabilities::{Capability, Desk, Provider, Surface};
        same_type(
            PhantomData::<<Desk as Vocabulary>::Capability>,
            PhantomData::<Capability>,
        );
        empty_part::<Capability>(TermKind::Capability);
        assert!(<Desk as Vocabulary>::EXCLUSIVE.is_empty());
        let context = ProfileContext::<Desk>::new(Surface::Ticket).with_provider(Provider::Jira);
        assert_eq!(
            Desk::registry().assemble(&context).tool_names(),
            ["link_issue"]
        );
    }
    {
        use surfaces_only::{Capability, Desk, Provider, Surface};
        same_type(
            PhantomData::<<Desk as Vocabulary>::Capability>,
            PhantomData::<Capability>,
        );
        same_type(
            PhantomData::<<Desk as Vocabulary>::Provider>,
            PhantomData::<Provider>,
        );
        empty_part::<Capability>(TermKind::Capability);
        empty_part::<Provider>(TermKind::Provider);
        let ticket = ProfileContext::<Desk>::new(Surface::Ticket);
        let chat = ProfileContext::<Desk>::new(Surface::Chat);
        assert_eq!(
            Desk::registry().assemble(&ticket).tool_names(),
            ["info", "list_tickets"]
        );
        assert_eq!(Desk::registry().assemble(&chat).tool_names(), ["info"]);
        let json = r#"{"surface":"ticket","capabilities":[],"providers":[]}"#;
        assert_eq!(ticket.to_json(), json);
        assert_eq!(
            ProfileContext::<Desk>::from_json(r#"{"surface":"ticket"}"#)?,
            ticket
        );
    }
    Ok(())
}
