//! Tools that ask the client mid-call (2025-era sessions): sampling and
//! three forms of elicitation.

// Sampling is deprecated in rmcp (SEP-2577), yet the 2025-era suite tests it.
#![allow(deprecated)]

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, ElicitRequestParams,
    ElicitationAction, ElicitationSchema, SamplingMessage,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::Everything;

/// What to ask the model.
#[derive(Deserialize, JsonSchema)]
pub struct Prompt {
    /// The prompt to send.
    pub prompt: String,
}

/// What to show the user.
#[derive(Deserialize, JsonSchema)]
pub struct Message {
    /// The message to show.
    pub message: String,
}

fn schema(value: Value) -> Result<ElicitationSchema, ErrorData> {
    serde_json::from_value(value).map_err(|error| {
        ErrorData::internal_error(format!("an invalid elicitation schema: {error}"), None)
    })
}

/// Asks the client and reports its answer; a failed request is a tool error.
async fn elicit(
    context: &RequestContext<RoleServer>,
    message: &str,
    requested_schema: ElicitationSchema,
) -> CallToolResult {
    let request = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.into(),
        requested_schema,
    };
    match context.peer.create_elicitation(request).await {
        Ok(result) => {
            let action = match result.action {
                ElicitationAction::Accept => "accept",
                ElicitationAction::Decline => "decline",
                ElicitationAction::Cancel => "cancel",
                _ => "unknown",
            };
            let content = result.content.unwrap_or(Value::Null);
            CallToolResult::success(vec![ContentBlock::text(format!(
                "User response: action={action}, content={content}"
            ))])
        }
        Err(error) => CallToolResult::error(vec![ContentBlock::text(format!(
            "Elicitation error: {error}"
        ))]),
    }
}

#[tool_group(
    surface = "conformance",
    capability = "client-requests",
    name = "client-requests"
)]
impl Everything {
    #[tool(description = "Asks the client's model and returns its answer")]
    async fn test_sampling(
        &self,
        Parameters(Prompt { prompt }): Parameters<Prompt>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let request =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
        Ok(match context.peer.create_message(request).await {
            Ok(result) => {
                let text = result
                    .message
                    .content
                    .first()
                    .and_then(|content| content.as_text())
                    .map_or_else(|| "(no text)".to_owned(), |text| text.text.clone());
                CallToolResult::success(vec![ContentBlock::text(format!("LLM response: {text}"))])
            }
            Err(error) => {
                CallToolResult::error(vec![ContentBlock::text(format!("Sampling error: {error}"))])
            }
        })
    }

    #[tool(description = "Asks the user for a username and an email address")]
    async fn test_elicitation(
        &self,
        Parameters(Message { message }): Parameters<Message>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let requested = schema(json!({
            "type": "object",
            "properties": {
                "username": { "type": "string", "description": "The user's name" },
                "email": { "type": "string", "description": "The user's email address" },
            },
            "required": ["username", "email"],
        }))?;
        Ok(elicit(&context, &message, requested).await)
    }

    #[tool(description = "Elicitation whose every field has a default (SEP-1034)")]
    async fn test_elicitation_sep1034_defaults(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let requested = schema(json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "description": "Name", "default": "John Doe" },
                "age": { "type": "integer", "description": "Age", "default": 30 },
                "score": { "type": "number", "description": "Score", "default": 95.5 },
                "status": {
                    "type": "string",
                    "description": "Status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": { "type": "boolean", "description": "Verified", "default": true },
            },
        }))?;
        Ok(elicit(&context, "Please review the defaults", requested).await)
    }

    #[tool(description = "Elicitation with every enum form (SEP-1330)")]
    async fn test_elicitation_sep1330_enums(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let titled = |kind: &str| {
            json!([
                { "const": "value1", "title": format!("First {kind}") },
                { "const": "value2", "title": format!("Second {kind}") },
                { "const": "value3", "title": format!("Third {kind}") },
            ])
        };
        let requested = schema(json!({
            "type": "object",
            "properties": {
                "untitledSingle": { "type": "string", "enum": ["option1", "option2", "option3"] },
                "titledSingle": { "type": "string", "oneOf": titled("Option") },
                "legacyEnum": {
                    "type": "string",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "items": { "type": "string", "enum": ["option1", "option2", "option3"] },
                },
                "titledMulti": { "type": "array", "items": { "anyOf": titled("Choice") } },
            },
        }))?;
        Ok(elicit(&context, "Pick from each kind of enum", requested).await)
    }
}
