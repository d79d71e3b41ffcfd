//! The check behind the `plugin_snapshot` fuzz target, shared with the
//! corpus replay test (which includes this file as a module, so it depends
//! on nothing libFuzzer brings).
//!
//! The bytes are a plugin-tool snapshot body (`PUT
//! /api/v1/mcp/plugin-tools`). `Snapshot::decode` must agree with an
//! independent oracle (the document read as plain JSON entries, duplicates
//! kept, judged by the wire rules and Kandev's naming rule, re-derived here
//! from its description); an accepted snapshot re-encodes and decodes back
//! equal; installing it either works, listing exactly its exposed names, or
//! is refused with a message and changes nothing. Nothing may panic.

use std::collections::BTreeSet;

use kandev_mcp::plugins::{Backend, Plugins, Snapshot};
use kandev_mcp::{Kandev, Surface};
use mcp_profiles::{ProfileContext, ProfileController};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::json::Json;

const TOOL_FIELDS: [&str; 12] = [
    "plugin_id",
    "plugin_display_name",
    "local_name",
    "exposed_name",
    "description",
    "surfaces",
    "input_schema",
    "output_schema",
    "read_only_hint",
    "destructive_hint",
    "idempotent_hint",
    "open_world_hint",
];

/// Kandev's exposed name, written from its formula: the slug of the
/// plugin id (each character lower-cased to one, as Go's `unicode.ToLower`
/// does; `[a-z0-9_]` kept, anything else `_`; outer `_` trimmed); over 64
/// characters, `kandev_<slug cut to max(1, 47 - len(local))>_<local>_<hash8>`.
fn oracle_name(plugin_id: &str, local: &str) -> String {
    let mut slug = String::new();
    for c in plugin_id.chars() {
        // `İ` is the one character whose full lower case is two characters;
        // Go's simple mapping keeps the first.
        let lower = if c == '\u{130}' {
            'i'
        } else {
            c.to_lowercase().next().unwrap()
        };
        slug.push(
            if lower.is_ascii_lowercase() || lower.is_ascii_digit() || lower == '_' {
                lower
            } else {
                '_'
            },
        );
    }
    let slug = slug.trim_matches('_');
    let plain = format!("kandev_{slug}_{local}");
    if plain.len() <= 64 {
        return plain;
    }
    let digest = Sha256::digest(plugin_id.as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let available = 64_usize.saturating_sub(8 + local.len() + 1 + 8).max(1);
    let cut: String = slug.chars().take(available).collect();
    format!("kandev_{cut}_{local}_{hash}")
}

/// Whether one tool object obeys the wire form and Kandev's rules; its
/// exposed name if so.
fn oracle_tool(tool: &Json) -> Option<String> {
    tool.fields(&TOOL_FIELDS)?;
    let value = tool.merged();
    let field = |key: &str| value.get(key);
    let required = |key: &str| match field(key) {
        None => Some(""),
        Some(value) => value.as_str(),
    };
    let (plugin_id, local, exposed, description) = (
        required("plugin_id")?,
        required("local_name")?,
        required("exposed_name")?,
        required("description")?,
    );
    if [plugin_id, local, exposed, description].contains(&"") {
        return None;
    }
    let optional_ok =
        |key: &str, ok: fn(&Value) -> bool| field(key).is_none_or(|v| v.is_null() || ok(v));
    if !optional_ok("plugin_display_name", Value::is_string)
        || !optional_ok("input_schema", Value::is_object)
        || !optional_ok("output_schema", Value::is_object)
    {
        return None;
    }
    let hints = [
        "read_only_hint",
        "destructive_hint",
        "idempotent_hint",
        "open_world_hint",
    ];
    if hints
        .iter()
        .any(|hint| field(hint).is_some_and(|v| !v.is_boolean()))
    {
        return None;
    }
    let surfaces: Vec<&str> = match field("surfaces") {
        None => Vec::new(),
        Some(value) => value
            .as_array()?
            .iter()
            .map(Value::as_str)
            .collect::<Option<_>>()?,
    };
    let distinct: BTreeSet<&str> = surfaces.iter().copied().collect();
    if surfaces.is_empty()
        || distinct.len() != surfaces.len()
        || !distinct.is_subset(&BTreeSet::from([
            "kanban-task",
            "office-task",
            "managed-conversation",
        ]))
    {
        return None;
    }
    (oracle_name(plugin_id, local) == exposed).then(|| exposed.to_owned())
}

/// What the rules say of `bytes`: `Some(exposed names)` if accepted.
pub(crate) fn oracle(bytes: &[u8]) -> Option<Vec<String>> {
    let document: Json = serde_json::from_slice(bytes).ok()?;
    let fields = document.fields(&["generation", "revision", "tools"])?;
    let field = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let generation = field("generation")?.merged();
    if generation.as_str().is_none_or(str::is_empty) {
        return None;
    }
    if field("revision").is_some_and(|revision| revision.merged().as_u64().is_none()) {
        return None;
    }
    match field("tools") {
        None => Some(Vec::new()),
        Some(Json::Array(tools)) => tools.iter().map(oracle_tool).collect(),
        Some(_) => None,
    }
}

/// Fuzz target `plugin_snapshot`.
pub fn check_plugin_snapshot(data: &[u8]) {
    let decoded = Snapshot::decode(data);
    let expected = oracle(data);
    match (&decoded, &expected) {
        (Ok(snapshot), Some(names)) => {
            let exposed: Vec<&str> = snapshot
                .tools
                .iter()
                .map(|t| t.exposed_name.as_str())
                .collect();
            assert_eq!(exposed, *names, "decoded other tools");
            let json = serde_json::to_vec(snapshot).expect("a snapshot encodes");
            let back = Snapshot::decode(&json).expect("an encoded snapshot decodes");
            assert_eq!(&back, snapshot, "the snapshot does not round-trip");
            check_install(snapshot);
        }
        (Ok(snapshot), None) => panic!("accepted {snapshot:?}, which the rules refuse"),
        (Err(err), Some(_)) => panic!("refused a snapshot the rules accept: {err}"),
        (Err(err), None) => assert!(!err.to_string().is_empty(), "an error says nothing"),
    }
}

/// Installing `snapshot` lists exactly its exposed names on a kanban-task
/// session, or is refused naming why and changes nothing.
fn check_install(snapshot: &Snapshot) {
    let controller = ProfileController::<Kandev>::new(ProfileContext::new(Surface::KanbanTask));
    let compiled = controller.tools();
    let plugins = Plugins::new(Backend::none());
    match plugins.install(&controller, snapshot.clone()) {
        Ok(_) => {
            let mut expected: Vec<String> = snapshot
                .tools
                .iter()
                .filter(|tool| tool.surfaces.iter().any(|s| s == "kanban-task"))
                .map(|tool| tool.exposed_name.clone())
                .chain(compiled.iter().map(|tool| tool.name.to_string()))
                .collect();
            expected.sort();
            let listed: Vec<String> = controller
                .tools()
                .iter()
                .map(|t| t.name.to_string())
                .collect();
            assert_eq!(listed, expected, "the session lists other tools");
            assert_eq!(plugins.installed().as_ref(), Some(snapshot));
        }
        Err(err) => {
            assert!(!err.problems().is_empty(), "a refusal without a reason");
            assert_eq!(
                controller.tools(),
                compiled,
                "a refused install changed the tools"
            );
            assert!(plugins.installed().is_none());
        }
    }
}
