//! Reading the audit trail back from its Redis streams (`P:audit`; on a
//! cluster, one per shard), a page at a time. The records are written by
//! the scripts that make the changes (`scripts::AUDIT`); each entry's id is
//! `{seq}-0`, so a page is exclusive ranges of ids, merged by number
//! across the streams. A stream that cannot be read fails the page, named
//! with its hash slot: a page is whole or not given.

use std::collections::VecDeque;

use serde_json::{Map, Value};

use super::Inner;
use super::slot::slot;
use crate::audit::{AuditOrder, AuditQuery, AuditRecord};
use crate::store::StoreError;
use mcp_profiles::Vocabulary;

/// One stream entry as Redis answers `XRANGE`: its id and its fields and
/// values, flat.
type Entry = (String, Vec<String>);

/// How far a page has read one stream.
struct Cursor {
    key: String,
    /// The range still to read, as `XRANGE` bounds.
    low: String,
    high: String,
    /// Records read and not yet taken, in the page's order.
    read: VecDeque<AuditRecord>,
    ended: bool,
}

impl<S: Vocabulary> Inner<S> {
    /// The page `query` asks for: each stream read a batch at a time (the
    /// page's size; with a principal, at least 256, as most records are
    /// others'), the streams that ran out read again together, the next
    /// record always the one first in the page's order among them.
    pub(super) async fn read_audit(
        &self,
        query: &AuditQuery,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        // No record is before 0 or after the last number there is; Redis
        // refuses those exclusive bounds rather than answer nothing.
        if query.before_seq() == Some(0) || query.since_seq() == Some(u64::MAX) {
            return Ok(Vec::new());
        }
        let batch = if query.principal().is_some() {
            query.limit().max(256)
        } else {
            query.limit()
        };
        let low = query
            .since_seq()
            .map_or_else(|| "-".to_owned(), |seq| format!("({seq}-0"));
        let high = query
            .before_seq()
            .map_or_else(|| "+".to_owned(), |seq| format!("({seq}-0"));
        let mut cursors: Vec<Cursor> = self
            .keys
            .shards()
            .into_iter()
            .map(|shard| Cursor {
                key: self.keys.audit(shard),
                low: low.clone(),
                high: high.clone(),
                read: VecDeque::new(),
                ended: false,
            })
            .collect();
        let mut page = Vec::new();
        loop {
            let refills = cursors
                .iter_mut()
                .filter(|cursor| cursor.read.is_empty() && !cursor.ended)
                .map(|cursor| self.read_on(cursor, query.order(), batch));
            futures_util::future::try_join_all(refills).await?;
            let heads = cursors.iter().enumerate().filter_map(|(index, cursor)| {
                cursor.read.front().map(|record| (record.seq, index))
            });
            let next = match query.order() {
                AuditOrder::OldestFirst => heads.min(),
                AuditOrder::NewestFirst => heads.max(),
            };
            let Some(record) = next.and_then(|(_, index)| cursors[index].read.pop_front()) else {
                return Ok(page);
            };
            if query.matches(&record) {
                page.push(record);
                if page.len() == query.limit() {
                    return Ok(page);
                }
            }
        }
    }

    /// Reads the next batch of `cursor`'s stream in `order`.
    async fn read_on(
        &self,
        cursor: &mut Cursor,
        order: AuditOrder,
        batch: usize,
    ) -> Result<(), StoreError> {
        let command = match order {
            AuditOrder::OldestFirst => redis::cmd("XRANGE")
                .arg(&cursor.key)
                .arg(&cursor.low)
                .arg(&cursor.high)
                .arg("COUNT")
                .arg(batch)
                .clone(),
            AuditOrder::NewestFirst => redis::cmd("XREVRANGE")
                .arg(&cursor.key)
                .arg(&cursor.high)
                .arg(&cursor.low)
                .arg("COUNT")
                .arg(batch)
                .clone(),
        };
        // A shard whose node cannot be reached fails the page, naming the
        // stream (and so the hash slot) it could not read.
        let entries: Vec<Entry> = self.query(&command).await.map_err(|error| match error {
            StoreError::Unavailable(why) => StoreError::Unavailable(format!(
                "the audit stream `{}` (hash slot {}) could not be read: {why}",
                cursor.key,
                slot(cursor.key.as_bytes())
            )),
            other => other,
        })?;
        cursor.ended = entries.len() < batch;
        for entry in entries {
            let record = decode(entry)?;
            let next = format!("({}-0", record.seq);
            match order {
                AuditOrder::OldestFirst => cursor.low = next,
                AuditOrder::NewestFirst => cursor.high = next,
            }
            cursor.read.push_back(record);
        }
        Ok(())
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
