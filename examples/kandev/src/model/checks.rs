//! The bounds on what one call stores, and the error naming a bad field.

// Field names and messages name themselves.
#![allow(missing_docs)]

use serde::Serialize;

/// The longest name, title or label a record takes, in characters.
pub const MAX_NAME_CHARS: usize = 256;

/// The longest free text (description, prompt, content, script), in characters.
pub const MAX_TEXT_CHARS: usize = 64 * 1024;

/// The most records (tasks, sessions, messages, dependencies, steps, ...)
/// the board holds; past it, calls that would add one are refused.
pub const MAX_RECORDS: usize = 20_000;

/// The most items one call may add through a list argument (`blocked_by`,
/// imported workflows, review findings, walkthrough steps).
pub const MAX_ITEMS_PER_CALL: usize = 100;

/// Checks a name or title: one line of at most [`MAX_NAME_CHARS`], with no
/// control character or bidirectional override.
pub fn check_name(field: &'static str, value: &str) -> Result<(), BadField> {
    check_chars(field, value, MAX_NAME_CHARS, false)
}

/// Checks free text: at most [`MAX_TEXT_CHARS`]; line breaks and tabs are
/// fine, other control characters and bidirectional overrides are not.
pub fn check_text(field: &'static str, value: &str) -> Result<(), BadField> {
    check_chars(field, value, MAX_TEXT_CHARS, true)
}

/// Refuses text that reads differently from what it holds (NUL and other
/// control characters, U+202A-U+202E and U+2066-U+2069 reordering) and text
/// longer than `max` characters; the error names the field and code point.
fn check_chars(
    field: &'static str,
    value: &str,
    max: usize,
    multiline: bool,
) -> Result<(), BadField> {
    for (index, c) in value.chars().enumerate() {
        if index == max {
            return Err(BadField::new(
                field,
                format!("longer than {max} characters"),
            ));
        }
        let line_break = multiline && matches!(c, '\n' | '\r' | '\t');
        let kind = if c.is_control() && !line_break {
            "a control character"
        } else if matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') {
            "a bidirectional override"
        } else {
            continue;
        };
        return Err(BadField::new(
            field,
            format!(
                "character {} is U+{:04X}, {kind}, which {} may not contain",
                index + 1,
                u32::from(c),
                if multiline { "text" } else { "a name" }
            ),
        ));
    }
    Ok(())
}

/// The largest free-form JSON argument (settings, events, blocks, findings)
/// one call stores, serialised.
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// Refuses free-form JSON larger than [`MAX_DOCUMENT_BYTES`] serialised.
pub fn check_document(field: &'static str, value: &impl Serialize) -> Result<(), BadField> {
    let bytes = serde_json::to_vec(value).map_or(usize::MAX, |bytes| bytes.len());
    if bytes > MAX_DOCUMENT_BYTES {
        return Err(BadField::new(
            field,
            format!("{bytes} bytes of JSON; one call stores at most {MAX_DOCUMENT_BYTES}"),
        ));
    }
    Ok(())
}

/// Refuses a list argument of more than [`MAX_ITEMS_PER_CALL`] items.
pub fn check_items(field: &'static str, count: usize) -> Result<(), BadField> {
    if count > MAX_ITEMS_PER_CALL {
        return Err(BadField::new(
            field,
            format!("{count} items; one call takes at most {MAX_ITEMS_PER_CALL}"),
        ));
    }
    Ok(())
}

/// A tool argument that names nothing on the board, or is otherwise wrong:
/// which field, and why. Tools turn it into an error result naming the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadField {
    pub field: &'static str,
    pub message: String,
}

impl BadField {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        BadField {
            field,
            message: message.into(),
        }
    }

    /// `field` names an id that does not exist.
    pub fn missing(field: &'static str, kind: &str, id: &str) -> Self {
        BadField::new(field, format!("no {kind} `{id}`"))
    }
}

impl std::fmt::Display for BadField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid `{}`: {}", self.field, self.message)
    }
}
