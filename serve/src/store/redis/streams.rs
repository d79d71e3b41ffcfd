//! Reading numbered records back from capped Redis streams (the audit
//! trail, the decision log; on a cluster, one stream per shard), a page at
//! a time. Each entry's id is `{seq}-0`, so a page is exclusive ranges of
//! ids, merged by number across the streams. A stream that cannot be read
//! fails the page, named with its hash slot: a page is whole or not given.

use std::collections::VecDeque;

use super::RedisStore;
use super::slot::slot;
use crate::audit::{AuditOrder, AuditQuery};
use crate::store::StoreError;
use mcp_profiles::Vocabulary;

/// One stream entry as Redis answers `XRANGE`: its id and its fields and
/// values, flat.
pub(super) type Entry = (String, Vec<String>);

/// A record a stream holds, one per entry.
pub(super) trait Numbered: Sized {
    /// What the stream is, for errors: `audit`, `decision`.
    const WHAT: &'static str;
    fn seq(&self) -> u64;
    fn principal(&self) -> Option<&str>;
    /// The entry as the record it holds, strictly: anything else is
    /// [`StoreError::Corrupt`] naming the entry.
    fn decode(entry: Entry) -> Result<Self, StoreError>;
}

/// The number of an entry whose id is `{seq}-0`.
pub(super) fn seq_of(id: &str) -> Option<u64> {
    id.strip_suffix("-0")
        .filter(|seq| !seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|seq| seq.parse().ok())
}

/// An entry holding `fields`, as `XRANGE` answers it: for the decoders'
/// tests.
#[cfg(test)]
pub(super) fn entry(id: &str, fields: &[(&str, &str)]) -> Entry {
    let flat = fields
        .iter()
        .flat_map(|(name, value)| [name.to_string(), value.to_string()])
        .collect();
    (id.to_owned(), flat)
}

/// How far a page has read one stream.
struct Cursor<R> {
    key: String,
    /// The range still to read, as `XRANGE` bounds.
    low: String,
    high: String,
    /// Records read and not yet taken, in the page's order.
    read: VecDeque<R>,
    ended: bool,
}

impl<S: Vocabulary> RedisStore<S> {
    /// The page `query` asks for from `streams`: each stream read a batch
    /// at a time (the page's size; with a principal, at least 256, as most
    /// records are others'), the streams that ran out read again together,
    /// the next record always the one first in the page's order among them.
    pub(super) async fn read_streams<R: Numbered>(
        &self,
        streams: impl Iterator<Item = String>,
        query: &AuditQuery,
    ) -> Result<Vec<R>, StoreError> {
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
        let mut cursors: Vec<Cursor<R>> = streams
            .map(|key| Cursor {
                key,
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
                cursor.read.front().map(|record| (record.seq(), index))
            });
            let next = match query.order() {
                AuditOrder::OldestFirst => heads.min(),
                AuditOrder::NewestFirst => heads.max(),
            };
            let Some(record) = next.and_then(|(_, index)| cursors[index].read.pop_front()) else {
                return Ok(page);
            };
            if query.admits(record.seq(), record.principal()) {
                page.push(record);
                if page.len() == query.limit() {
                    return Ok(page);
                }
            }
        }
    }

    /// Reads the next batch of `cursor`'s stream in `order`.
    async fn read_on<R: Numbered>(
        &self,
        cursor: &mut Cursor<R>,
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
                "the {} stream `{}` (hash slot {}) could not be read: {why}",
                R::WHAT,
                cursor.key,
                slot(cursor.key.as_bytes())
            )),
            other => other,
        })?;
        cursor.ended = entries.len() < batch;
        for entry in entries {
            let record = R::decode(entry)?;
            let next = format!("({}-0", record.seq());
            match order {
                AuditOrder::OldestFirst => cursor.low = next,
                AuditOrder::NewestFirst => cursor.high = next,
            }
            cursor.read.push_back(record);
        }
        Ok(())
    }
}
