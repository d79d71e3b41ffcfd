//! A JSON document as the oracles read it: every object's entries in
//! document order, duplicate keys kept, so an oracle can judge what a map
//! (which keeps the last of a repeated key) would hide.

use std::collections::BTreeSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// A JSON document with every object's entries in document order,
/// duplicates kept.
#[derive(Clone, Debug)]
pub(crate) enum Json {
    /// A null, boolean, number or string.
    Other(Value),
    /// An array.
    Array(Vec<Json>),
    /// An object: its entries in document order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// As serde_json reads it into a `Value`: a repeated key keeps its last
    /// value.
    pub(crate) fn merged(&self) -> Value {
        match self {
            Json::Other(value) => value.clone(),
            Json::Array(items) => Value::Array(items.iter().map(Json::merged).collect()),
            Json::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(key, value)| (key.clone(), value.merged()))
                    .collect(),
            ),
        }
    }

    /// The entries of an object whose keys are distinct and all `known`.
    pub(crate) fn fields(&self, known: &[&str]) -> Option<&[(String, Json)]> {
        let Json::Object(entries) = self else {
            return None;
        };
        let keys: BTreeSet<&str> = entries.iter().map(|(key, _)| key.as_str()).collect();
        (keys.len() == entries.len() && keys.iter().all(|key| known.contains(key)))
            .then_some(entries.as_slice())
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct JsonVisitor;
        impl<'de> Visitor<'de> for JsonVisitor {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Other(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Other(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Other(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                Ok(Json::Other(Value::from(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::Other(Value::from(v)))
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Other(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Json>()? {
                    entries.push(entry);
                }
                Ok(Json::Object(entries))
            }
        }
        deserializer.deserialize_any(JsonVisitor)
    }
}
