//! Board configuration for configuration chats and outside clients:
//! `configuration-workflows`, `configuration-agents`, `configuration-mcp`,
//! `configuration-prompts`, `configuration-executors`,
//! `configuration-tasks` and `configuration-settings`; and, for
//! configuration chats only, `configuration-automations`.
//!
//! One file per concern; the helpers below are shared by several of them.

mod agents;
mod automations;
mod executors;
mod prompts;
mod settings;
mod tasks;
mod workflows;

use crate::store::{BadField, check_name};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// `value` trimmed, or an error when nothing is left.
fn required_text(field: &'static str, value: String) -> Result<String, BadField> {
    let value = value.trim();
    if value.is_empty() {
        return Err(BadField::new(field, "the value is empty"));
    }
    check_name(field, value)?;
    Ok(value.to_owned())
}

/// `None` for a blank string (clearing an optional field), else the string.
fn unless_blank(value: String) -> Option<String> {
    (!value.trim().is_empty()).then_some(value)
}

/// `base` with the keys of `extra` added or replaced: test arguments as a
/// valid call plus what one case changes.
#[cfg(test)]
fn with_arguments(mut base: serde_json::Value, extra: serde_json::Value) -> serde_json::Value {
    if let (Some(base), serde_json::Value::Object(extra)) = (base.as_object_mut(), extra) {
        base.extend(extra);
    }
    base
}
