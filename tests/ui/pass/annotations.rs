//! A vocabulary that requires annotations (`#[require_annotations]`) and a
//! group that says so too (redundant, allowed): every tool states its hints
//! in each form rmcp accepts, and a read-only tool states only that. It
//! compiles, and `main` checks that rmcp carries the hints into the tools.

use mcp_profiles::{ProfileContext, Vocabulary, tool_group};
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

/// A board of cards.
#[derive(Clone)]
pub struct Tracker;

mcp_profiles::vocabulary! {
    #[require_annotations]
    server Tracker;

    #[surfaces]
    pub enum Surface { Board }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

#[tool_group(name = "cards", surface = "board", require_annotations)]
impl Tracker {
    #[tool(
        description = "Delete the card",
        annotations(title = "Delete", read_only_hint = false, destructive_hint = true)
    )]
    async fn delete_card(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(
        description = "Add a card",
        annotations(
            read_only_hint = "false",
            destructive_hint = "false",
            idempotent_hint = false
        )
    )]
    async fn add_card(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "Read the card", annotations(read_only_hint))]
    async fn get_card(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

// The vocabulary's requirement holds here too, with no key on the group.
#[tool_group(name = "board", always)]
impl Tracker {
    #[rmcp::tool(name = "board_summary", annotations(read_only_hint = true))]
    async fn summary(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn hints(tool: rmcp::model::Tool) -> (Option<bool>, Option<bool>) {
    let annotations = tool.annotations.expect("annotations");
    (annotations.read_only_hint, annotations.destructive_hint)
}

fn main() {
    assert_eq!(
        hints(Tracker::delete_card_tool_attr()),
        (Some(false), Some(true))
    );
    assert_eq!(
        hints(Tracker::add_card_tool_attr()),
        (Some(false), Some(false))
    );
    assert_eq!(hints(Tracker::get_card_tool_attr()), (Some(true), None));
    assert_eq!(hints(Tracker::summary_tool_attr()), (Some(true), None));

    let board = ProfileContext::<Tracker>::new(Surface::Board);
    assert_eq!(
        Tracker::registry().assemble(&board).tool_names(),
        ["add_card", "board_summary", "delete_card", "get_card"]
    );
}
