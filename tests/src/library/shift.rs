//! A server whose prompt and resource pass from one group to another, the
//! same on either side: the day's groups serve them on the `day` surface,
//! the night's on `night`. A client not told of groups sees no change when
//! the shift changes; a grouping client sees their membership change.

use mcp_profiles::{prompt_group, resource_group};
use rmcp::model::{PromptMessage, ReadResourceResult, Role};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, prompt};

/// Its prompt `handover` and its resource template `shift://note/{n}` are
/// served by the day's groups or by the night's.
#[derive(Clone)]
pub struct Shift;

impl rmcp::ServerHandler for Shift {}

mcp_profiles::vocabulary! {
    server Shift;

    #[surfaces]
    pub enum Surface { Day, Night }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

#[prompt_group(name = "day-prompts", surface = "day")]
impl Shift {
    #[prompt(name = "handover", description = "Hand the shift over")]
    async fn handover_by_day(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![PromptMessage::new_text(Role::User, "Hand over")])
    }
}

#[prompt_group(name = "night-prompts", surface = "night")]
impl Shift {
    #[prompt(name = "handover", description = "Hand the shift over")]
    async fn handover_by_night(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![PromptMessage::new_text(Role::User, "Hand over")])
    }
}

#[resource_group(name = "day-notes", surface = "day")]
impl Shift {
    #[resource(uri_template = "shift://note/{n}", name = "note")]
    async fn note_by_day(
        &self,
        _uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        Ok(ReadResourceResult::new(vec![]))
    }
}

#[resource_group(name = "night-notes", surface = "night")]
impl Shift {
    #[resource(uri_template = "shift://note/{n}", name = "note")]
    async fn note_by_night(
        &self,
        _uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        Ok(ReadResourceResult::new(vec![]))
    }
}
