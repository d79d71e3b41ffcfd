//! JSON Schemas (2020-12, as OpenAPI 3.1 takes them) of the profile
//! context's wire form and its parts, built from the vocabulary and the
//! linked registry: the surfaces, capabilities and providers, the tool and
//! group names a deny list may hold, the groups that declare allow lists
//! and the tools each may allow. A backend's API description (its control
//! routes' bodies) then says exactly what its decoder accepts.
//!
//! What a schema cannot say, the decoder still checks, naming the bad
//! value: exclusive capabilities, an allow list over its group's `max`
//! beyond the schema's `maxItems`, a runtime allow list's names.

use std::borrow::Cow;

use rmcp::schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Value, json};

use crate::{AllowLists, DenyList, Policy, ProfileContext, Term, Vocabulary};

/// `{"type": "array", "items": {"enum": names}, "uniqueItems": true}`.
fn names_array(names: &[&str]) -> Value {
    json!({"type": "array", "items": {"enum": names}, "uniqueItems": true})
}

impl<S: Vocabulary> JsonSchema for ProfileContext<S> {
    fn schema_name() -> Cow<'static, str> {
        "ProfileContext".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        // A capability or provider given twice counts once.
        let mut properties = json!({
            "surface": {"enum": S::Surface::NAMES},
            "capabilities": {"type": "array", "items": {"enum": S::Capability::NAMES}},
            "providers": {"type": "array", "items": {"enum": S::Provider::NAMES}},
            "policy": generator.subschema_for::<Policy<S>>(),
        });
        if S::registry().allowing() {
            properties["allow"] = generator.subschema_for::<AllowLists<S>>().into();
        }
        if let Some(max) = S::RUNTIME_ALLOW_MAX {
            properties["runtime_allow"] = json!({
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "uniqueItems": true,
                "maxItems": max,
            });
        }
        json_schema!({
            "type": "object",
            "description": "A profile context: the surface a session serves, the capabilities and providers it holds, and what its policy and allow lists restrict.",
            "properties": properties,
            "required": ["surface"],
            "additionalProperties": false,
        })
    }
}

impl<S: Vocabulary> JsonSchema for Policy<S> {
    fn schema_name() -> Cow<'static, str> {
        "Policy".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "What a profile's policy removes: tools not read-only, destructive tools, and the tools and groups named.",
            "properties": {
                "read_only": {"type": "boolean"},
                "no_destructive": {"type": "boolean"},
                "deny": generator.subschema_for::<DenyList<S>>(),
            },
            "additionalProperties": false,
        })
    }
}

impl<S: Vocabulary> JsonSchema for DenyList<S> {
    fn schema_name() -> Cow<'static, str> {
        "DenyList".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let mut names: Vec<&str> = S::registry()
            .groups()
            .iter()
            .flat_map(|group| std::iter::once(group.name()).chain(group.tools().iter().copied()))
            .collect();
        names.sort_unstable();
        names.dedup();
        let mut schema = names_array(&names);
        schema["description"] = "Tool and tool group names of the server.".into();
        Schema::try_from(schema).unwrap_or_default()
    }
}

impl<S: Vocabulary> JsonSchema for AllowLists<S> {
    fn schema_name() -> Cow<'static, str> {
        "AllowLists".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let mut properties = serde_json::Map::new();
        for group in S::registry().groups() {
            if let (Some(universe), Some(max)) = (group.allow_universe(), group.allow_max()) {
                let mut list = names_array(universe);
                list["maxItems"] = max.into();
                properties.insert(group.name().to_owned(), list);
            }
        }
        json_schema!({
            "type": "object",
            "description": "The tools each group with an allow list allows, by group.",
            "properties": properties,
            "additionalProperties": false,
        })
    }
}
