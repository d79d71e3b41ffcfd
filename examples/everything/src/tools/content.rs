//! Tools that answer at once: each content type, a tool error, a JSON
//! Schema 2020-12 input schema and a parameter carried in an HTTP header.

use std::sync::Arc;

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{AudioContent, CallToolResult, ContentBlock, JsonObject, ResourceContents};
use rmcp::{ErrorData, tool};
use serde_json::json;

use crate::Everything;
use crate::media::{PNG, WAV, object};

fn embedded(uri: &str, mime: &str, text: &str) -> ContentBlock {
    ContentBlock::resource(ResourceContents::TextResourceContents {
        uri: uri.into(),
        mime_type: Some(mime.into()),
        text: text.into(),
        meta: None,
    })
}

/// The schema the json-schema-2020-12 scenario checks is published intact:
/// `$schema`, `$defs` with an `$anchor`, composition and conditionals.
fn schema_2020_12() -> Arc<JsonObject> {
    Arc::new(object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } },
            },
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" },
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false,
    })))
}

/// One string parameter mirrored into the `Mcp-Param-Region` header (SEP-2243).
fn header_schema() -> Arc<JsonObject> {
    Arc::new(object(json!({
        "type": "object",
        "properties": {
            "region": { "type": "string", "description": "Where to run", "x-mcp-header": "Region" },
        },
        "required": ["region"],
    })))
}

#[tool_group(surface = "conformance", name = "content")]
impl Everything {
    #[tool(description = "Returns simple text content")]
    async fn test_simple_text(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "This is a simple text response for testing.",
        )]))
    }

    #[tool(description = "Returns image content")]
    async fn test_image_content(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::image(
            PNG,
            "image/png",
        )]))
    }

    #[tool(description = "Returns audio content")]
    async fn test_audio_content(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::Audio(
            AudioContent::new(WAV, "audio/wav"),
        )]))
    }

    #[tool(description = "Returns embedded resource content")]
    async fn test_embedded_resource(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![embedded(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )]))
    }

    #[tool(description = "Returns text, image and resource content together")]
    async fn test_multiple_content_types(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(PNG, "image/png"),
            embedded(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            ),
        ]))
    }

    #[tool(description = "Always fails, as a tool error the caller sees")]
    async fn test_error_handling(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::error(vec![ContentBlock::text(
            "This tool intentionally returns an error for testing",
        )]))
    }

    #[tool(
        description = "Tool with JSON Schema 2020-12 features",
        input_schema = schema_2020_12()
    )]
    async fn json_schema_2020_12_tool(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        let name = arguments
            .get("name")
            .and_then(|v| v.as_str())
            .unwrap_or("world");
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "Hello, {name}!"
        ))]))
    }

    #[tool(
        description = "Echoes its region, which also travels in the Mcp-Param-Region header",
        input_schema = header_schema()
    )]
    async fn test_custom_headers(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        let region = arguments
            .get("region")
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "region: {region}"
        ))]))
    }
}
