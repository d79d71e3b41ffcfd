//! Reading the audit trail back from its Redis stream (`P:audit`), a page
//! at a time. The records are written by the scripts that make the changes
//! (`scripts::AUDIT`); each entry's id is `{seq}-0`, so a page is one
//! exclusive range of ids.

use serde_json::{Map, Value};

use super::Inner;
use crate::audit::{AuditOrder, AuditQuery, AuditRecord};
use crate::store::StoreError;
use mcp_profiles::Vocabulary;

/// One stream entry as Redis answers `XRANGE`: its id and its fields and
/// values, flat.
type Entry = (String, Vec<String>);

impl<S: Vocabulary> Inner<S> {
    /// The page `query` asks for. Without a principal, one range read of
    /// the page's size; with one, ranges read on until the page is full or
    /// the trail ends.
    pub(super) async fn read_audit(
        &self,
        query: &AuditQuery,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        let batch = if query.principal().is_some() {
            query.limit().max(256)
        } else {
            query.limit()
        };
        let mut low = query
            .since_seq()
            .map_or_else(|| "-".to_owned(), |seq| format!("({seq}-0"));
        let mut high = query
            .before_seq()
            .map_or_else(|| "+".to_owned(), |seq| format!("({seq}-0"));
        let mut page = Vec::new();
        loop {
            let command = match query.order() {
                AuditOrder::OldestFirst => redis::cmd("XRANGE")
                    .arg(self.keys.audit())
                    .arg(&low)
                    .arg(&high)
                    .arg("COUNT")
                    .arg(batch)
                    .clone(),
                AuditOrder::NewestFirst => redis::cmd("XREVRANGE")
                    .arg(self.keys.audit())
                    .arg(&high)
                    .arg(&low)
                    .arg("COUNT")
                    .arg(batch)
                    .clone(),
            };
            let entries: Vec<Entry> = self.query(&command).await?;
            let last = entries.len() < batch;
            for entry in entries {
                let record = decode(entry)?;
                let next = format!("({}-0", record.seq);
                match query.order() {
                    AuditOrder::OldestFirst => low = next,
                    AuditOrder::NewestFirst => high = next,
                }
                if query.matches(&record) {
                    page.push(record);
                    if page.len() == query.limit() {
                        return Ok(page);
                    }
                }
            }
            if last {
                return Ok(page);
            }
        }
    }
}

/// A stream entry as the record it holds, strictly: an id that is not
/// `{seq}-0`, a field twice or unknown, a value that is not what the field
/// holds, is [`StoreError::Corrupt`] naming the entry.
fn decode((id, flat): Entry) -> Result<AuditRecord, StoreError> {
    let corrupt = |why: String| StoreError::Corrupt(format!("audit entry `{id}`: {why}"));
    let seq: u64 = id
        .strip_suffix("-0")
        .filter(|seq| !seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|seq| seq.parse().ok())
        .ok_or_else(|| corrupt("the id is not `{seq}-0`".to_owned()))?;
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

    fn entry(id: &str, fields: &[(&str, &str)]) -> Entry {
        let flat = fields
            .iter()
            .flat_map(|(name, value)| [name.to_string(), value.to_string()])
            .collect();
        (id.to_owned(), flat)
    }

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
