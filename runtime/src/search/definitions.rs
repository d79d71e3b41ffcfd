//! The definitions of the two tools search lists, made from its names and
//! limits.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(object) => Arc::new(object),
        _ => unreachable!("a schema literal is an object"),
    }
}

/// The search tool's definition.
pub(super) fn search_tool(name: &str, default: usize, max: usize) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What the tool should do, in a few words, or its name",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": max,
                "description": format!("How many tools to return ({default} unless told)"),
            },
        },
        "required": ["query"],
        "additionalProperties": false,
    });
    let description = "Search the tools this session may use that are not listed: \
         returns the best matches for the query, each with its name, description \
         and input schema. Call one by its name, or through the call tool.";
    Tool::new(name.to_owned(), description, object(schema)).annotate(
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
}

/// The call proxy's definition.
pub(super) fn call_tool(name: &str, search: &str) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "description": format!("The tool's name, as `{search}` returned it"),
            },
            "arguments": {
                "type": "object",
                "description": "The tool's arguments, as its input schema says",
            },
        },
        "required": ["name"],
        "additionalProperties": false,
    });
    let description = format!(
        "Call a tool `{search}` found, by its name, with its arguments: \
         the same as calling the tool itself."
    );
    Tool::new(name.to_owned(), description, object(schema))
}
