//! The library's prompt and resource groups.

use mcp_profiles::{prompt_group, resource_group};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents, Role};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, prompt};
use schemars::JsonSchema;
use serde::Deserialize;

use super::Library;

/// The book a prompt is about.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Book {
    /// The book's title.
    pub title: String,
}

#[prompt_group(name = "reading-prompts", surface = "desk")]
impl Library {
    #[prompt(description = "Summarise a book")]
    async fn summarise_book(
        &self,
        Parameters(book): Parameters<Book>,
    ) -> Result<GetPromptResult, ErrorData> {
        self.record("summarise_book");
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Summarise {}", book.title),
        )]))
    }
}

#[prompt_group(name = "lending-prompts", capability = "lend")]
impl Library {
    #[prompt(name = "lend_book", description = "Lend a book")]
    async fn lend(&self) -> Result<Vec<PromptMessage>, ErrorData> {
        self.record("lend_book");
        Ok(vec![PromptMessage::new_text(Role::User, "Lend it")])
    }
}

#[resource_group(name = "catalogue", title = "The catalogue", always)]
impl Library {
    #[resource(
        uri = "library://catalogue",
        name = "catalogue",
        description = "Every book",
        mime_type = "text/plain"
    )]
    async fn catalogue(
        &self,
        uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        self.record("library://catalogue");
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            "Dune", uri,
        )]))
    }
}

#[resource_group(name = "loans", capability = "lend")]
impl Library {
    #[resource(uri_template = "library://loan/{id}", description = "One loan")]
    async fn loan(
        &self,
        uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        self.record("library://loan/{id}");
        let id = uri.rsplit('/').next().unwrap_or_default().to_owned();
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            format!("loan {id}"),
            uri,
        )]))
    }
}
