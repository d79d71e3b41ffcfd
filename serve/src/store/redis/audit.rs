//! Reading the audit trail back from its Redis streams (`P:audit`; on a
//! cluster, one per shard), a page at a time (see `streams`). The records
//! are written by the scripts that make the changes (`scripts::AUDIT`),
//! each entry's id `{seq}-0`.

use serde_json::{Map, Value};

use super::RedisStore;
use super::streams::{Entry, Numbered, seq_of};
use crate::audit::{AuditQuery, AuditRecord};
use crate::store::StoreError;
use mcp_profiles::Vocabulary;

impl<S: Vocabulary> RedisStore<S> {
    /// The page `query` asks for, merged across every shard's stream.
    pub(super) async fn read_audit(
        &self,
        query: &AuditQuery,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        let streams = self.keys.shards().into_iter();
        self.read_streams(streams.map(|shard| self.keys.audit(shard)), query)
            .await
    }
}

impl Numbered for AuditRecord {
    const WHAT: &'static str = "audit";

    fn seq(&self) -> u64 {
        self.seq
    }

    fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    fn decode(entry: Entry) -> Result<Self, StoreError> {
        decode(entry)
    }
}

/// A stream entry as the record it holds, strictly: an id that is not
/// `{seq}-0`, a field twice or unknown, a value that is not what the field
/// holds, is [`StoreError::Corrupt`] naming the entry.
fn decode((id, flat): Entry) -> Result<AuditRecord, StoreError> {
    let corrupt = |why: String| StoreError::Corrupt(format!("audit entry `{id}`: {why}"));
    let seq = seq_of(&id).ok_or_else(|| corrupt("the id is not `{seq}-0`".to_owned()))?;
    if flat.len() % 2 != 0 {
        return Err(corrupt("a field without a value".to_owned()));
    }
    let mut fields = Map::new();
    fields.insert("seq".into(), Value::from(seq));
    for pair in flat.chunks(2) {
        let (name, text) = (&pair[0], &pair[1]);
        let value = match name.as_str() {
            "actor" | "request_id" | "kind" | "principal" => Value::String(text.clone()),
            "at" | "before" | "after" | "added" | "removed" => serde_json::from_str(text)
                .map_err(|error| corrupt(format!("field `{name}`: {error}")))?,
            other => return Err(corrupt(format!("unknown field `{other}`"))),
        };
        if fields.insert(name.clone(), value).is_some() {
            return Err(corrupt(format!("field `{name}` twice")));
        }
    }
    for absent in ["principal", "before", "after"] {
        fields.entry(absent).or_insert(Value::Null);
    }
    serde_json::from_value(Value::Object(fields)).map_err(|error| corrupt(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::redis::streams::entry;

    const KILL: &[(&str, &str)] = &[
        ("at", "1767225600123"),
        ("actor", "control"),
        ("request_id", "r-1"),
        ("kind", "kill-switch"),
        ("added", "[]"),
        ("removed", r#"["delete_ticket"]"#),
        ("before", r#"{"deny":[],"version":0}"#),
        ("after", r#"{"deny":["delete_ticket"],"version":1}"#),
    ];

    #[test]
    fn entries_decode_into_records() {
        let record = decode(entry("7-0", KILL)).unwrap();
        assert_eq!((record.seq, record.at), (7, 1_767_225_600_123));
        assert_eq!(record.principal, None);
        assert_eq!(record.removed, ["delete_ticket"]);
        assert_eq!(record.after["version"], 1);
    }

    #[test]
    fn malformed_entries_are_named() {
        for (id, fields, says) in [
            ("7-1", KILL.to_vec(), "not `{seq}-0`"),
            ("x-0", KILL.to_vec(), "not `{seq}-0`"),
            (
                "7-0",
                [KILL, &[("token", "abc")]].concat(),
                "unknown field `token`",
            ),
            (
                "7-0",
                [KILL, &[("actor", "again")]].concat(),
                "field `actor` twice",
            ),
            ("7-0", KILL[1..].to_vec(), "missing field `at`"),
            (
                "7-0",
                [&[("at", "soon")], &KILL[1..]].concat(),
                "field `at`",
            ),
        ] {
            let error = decode(entry(id, &fields)).unwrap_err().to_string();
            assert!(error.contains(&format!("audit entry `{id}`")), "{error}");
            assert!(error.contains(says), "{error}");
        }
    }
}
