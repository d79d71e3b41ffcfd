//! The small payloads the scenarios ask for.

/// A 1x1 red PNG, base64.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";

/// A WAV file of silence, base64.
pub const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

/// How long list and read results may be cached, in milliseconds.
pub const TTL_MS: u64 = 60_000;

/// A JSON value that must be an object, as a JSON object.
pub fn object(value: serde_json::Value) -> rmcp::model::JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        other => unreachable!("a literal object, got {other}"),
    }
}
