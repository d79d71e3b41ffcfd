//! A server whose prompt groups and resource groups collide when `lend` is
//! held on the desk: its registry must refuse them.

use mcp_profiles::{prompt_group, resource_group};
use rmcp::model::{PromptMessage, ReadResourceResult, Role};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, prompt};

/// Its groups collide; [`mcp_profiles::Registry::linked`] says how.
#[derive(Clone)]
pub struct Clash;

mcp_profiles::vocabulary! {
    server Clash;

    #[surfaces]
    pub enum Surface { Desk }

    #[capabilities]
    pub enum Capability { Lend }

    #[providers]
    pub enum Provider {}
}

#[prompt_group(name = "first-prompts", always)]
impl Clash {
    #[prompt(name = "greet")]
    async fn greet_first(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![PromptMessage::new_text(Role::User, "hi")])
    }
}

#[prompt_group(name = "second-prompts", capability = "lend")]
impl Clash {
    #[prompt(name = "greet")]
    async fn greet_second(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        Ok(vec![PromptMessage::new_text(Role::User, "hello")])
    }
}

#[resource_group(name = "first-pages", always)]
impl Clash {
    #[resource(uri_template = "clash://page/{n}")]
    async fn page_first(
        &self,
        _uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        Ok(ReadResourceResult::new(vec![]))
    }
}

#[resource_group(name = "second-pages", capability = "lend")]
impl Clash {
    #[resource(uri_template = "clash://page/{n}")]
    async fn page_second(
        &self,
        _uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        Ok(ReadResourceResult::new(vec![]))
    }
}
