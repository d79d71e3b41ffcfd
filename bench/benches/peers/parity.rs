//! The harness's guard that a comparison compares like with like: every
//! server must serve the tools ours serves, names and definitions.
//!
//! A definition is its name, title, description, annotations and input
//! and output schemas. `_meta` is left out (FastMCP adds its tags there,
//! which a client does not act on). The TypeScript SDK's `McpServer` takes
//! zod and lists its own conversion of each input schema back to JSON
//! Schema, which reorders and rewrites keywords, so for it (`ts-sdk`,
//! `ts-sdk-debounced`) an input schema must name the same properties and
//! the same required ones. FastMCP inlines `$defs` references (its own
//! schema handling), so its input schema must equal ours with ours
//! inlined. Every other server must list ours exactly.

use std::collections::BTreeSet;

use serde_json::Value;

/// Where `theirs` (what `server` listed) differs from `ours`, the first
/// difference named.
pub fn same_tools(ours: &[Value], theirs: &[Value], server: &str) -> Result<(), String> {
    let names = |tools: &[Value]| -> BTreeSet<String> {
        (tools.iter())
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect()
    };
    let (mine, others) = (names(ours), names(theirs));
    if mine != others || theirs.len() != ours.len() {
        return Err(format!(
            "tool names differ: only ours {:?}, only theirs {:?}",
            mine.difference(&others).collect::<Vec<_>>(),
            others.difference(&mine).collect::<Vec<_>>()
        ));
    }
    let converts = matches!(server, "ts-sdk" | "ts-sdk-debounced");
    for tool in ours {
        let name = &tool["name"];
        let other = (theirs.iter())
            .find(|other| &other["name"] == name)
            .expect("the same names");
        for key in ["title", "description", "annotations", "outputSchema"] {
            if tool.get(key) != other.get(key) {
                return Err(format!(
                    "{name}: `{key}` differs: ours {}, theirs {}",
                    show(tool.get(key)),
                    show(other.get(key))
                ));
            }
        }
        let (schema, their_schema) = (&tool["inputSchema"], &other["inputSchema"]);
        let same = match server {
            _ if converts => shape(schema) == shape(their_schema),
            "fastmcp" => &inlined(schema) == their_schema,
            _ => schema == their_schema,
        };
        if !same {
            return Err(format!(
                "{name}: `inputSchema` differs: ours {schema}, theirs {their_schema}"
            ));
        }
    }
    Ok(())
}

/// `schema` with every local `#/$defs/NAME` reference replaced by the
/// definition (the reference's own keywords kept), and `$defs` dropped.
fn inlined(schema: &Value) -> Value {
    fn walk(value: &Value, defs: &serde_json::Map<String, Value>) -> Value {
        match value {
            Value::Object(object) => {
                let target = (object.get("$ref").and_then(Value::as_str))
                    .and_then(|path| path.strip_prefix("#/$defs/"))
                    .and_then(|name| defs.get(name));
                let mut out = match target {
                    Some(Value::Object(definition)) => {
                        walk(&Value::Object(definition.clone()), defs)
                            .as_object()
                            .cloned()
                            .unwrap_or_default()
                    }
                    _ => serde_json::Map::new(),
                };
                for (key, item) in object {
                    if key == "$defs" || (key == "$ref" && target.is_some()) {
                        continue;
                    }
                    out.insert(key.clone(), walk(item, defs));
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| walk(item, defs)).collect())
            }
            other => other.clone(),
        }
    }
    let defs = schema["$defs"].as_object().cloned().unwrap_or_default();
    walk(schema, &defs)
}

/// An input schema's property names and required ones.
fn shape(schema: &Value) -> (BTreeSet<&str>, BTreeSet<&str>) {
    let properties = (schema["properties"].as_object().into_iter())
        .flat_map(|properties| properties.keys().map(String::as_str))
        .collect();
    let required = (schema["required"].as_array().into_iter())
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    (properties, required)
}

fn show(value: Option<&Value>) -> String {
    value.map_or_else(|| "absent".to_owned(), Value::to_string)
}
