//! The decision log on Redis: each instance ships the call decisions its
//! [`DecisionLog`] heard to a capped stream (`P:decisions`; on a cluster,
//! the principal's shard's), a batch per shard in one script
//! ([`scripts::DECISIONS`]), from a task of its own every
//! [`SHIP_EVERY`] and whenever asked ([`AgentStore::decisions_written`]):
//! never on a call's path. A batch the store does not take is given back
//! to the log, to go with the next.
//!
//! [`AgentStore::decisions_written`]: crate::AgentStore::decisions_written
//! [`DecisionLog`]: crate::audit::decisions::DecisionLog

use std::collections::BTreeMap;
use std::sync::Weak;
use std::time::Duration;

use futures_util::StreamExt;
use mcp_profiles::Vocabulary;

use super::RedisStore;
use super::connection::Call;
use super::scripts::{self, Shard};
use super::streams::{Entry, Numbered, seq_of};
use crate::audit::AuditQuery;
use crate::audit::decisions::DecisionRecord;
use crate::store::StoreError;

/// How often an instance ships what its log heard.
pub(super) const SHIP_EVERY: Duration = Duration::from_millis(100);

/// The most records one script appends.
const BATCH: usize = 1_000;

/// The most shards' appends in flight at once.
const SHARDS_AT_ONCE: usize = 2;

/// One shard's append: its records back, and whether the store took them.
type AppendFuture<'a> = std::pin::Pin<
    Box<dyn Future<Output = (Vec<DecisionRecord>, Result<(), StoreError>)> + Send + 'a>,
>;

impl<S: Vocabulary> RedisStore<S> {
    /// The page `query` asks for, merged across every shard's stream.
    pub(super) async fn read_decisions(
        &self,
        query: &AuditQuery,
    ) -> Result<Vec<DecisionRecord>, StoreError> {
        let streams = self.keys.shards().into_iter();
        self.read_streams(streams.map(|shard| self.keys.decisions(shard)), query)
            .await
    }

    /// Ships every record the log holds now, a batch at a time; a refused
    /// batch is given back and ends it. One shipping at a time, so
    /// a caller who waits for it knows that what was heard before is in.
    pub(super) async fn ship_decisions(&self) -> Result<(), StoreError> {
        let Some(log) = self.local.decision_log() else {
            return Ok(());
        };
        let _one_at_a_time = self.shipping.lock().await;
        // What is held now, not what keeps coming meanwhile: under a
        // steady load a wait for "empty" might never end.
        let mut left = log.held();
        while left > 0 {
            let batch = log.drain(left.min(BATCH));
            if batch.is_empty() {
                return Ok(());
            }
            left -= batch.len();
            let mut by_shard: BTreeMap<usize, (Shard, Vec<DecisionRecord>)> = BTreeMap::new();
            for record in batch {
                let shard = record
                    .principal()
                    .map_or_else(|| self.keys.kill_shard(), |p| self.keys.principal(p));
                let group = by_shard.entry(scripts::Keys::index(shard));
                group.or_insert_with(|| (shard, Vec::new())).1.push(record);
            }
            // Two shards at a time, so shipping never fills a cluster
            // connection's commands in flight ahead of a change's.
            let appends = by_shard.into_values().map(|(shard, records)| {
                let append: AppendFuture<'_> = Box::pin(async move {
                    let outcome = self.append_decisions(shard, &records).await;
                    (records, outcome)
                });
                append
            });
            let outcomes: Vec<_> = futures_util::stream::iter(appends)
                .buffer_unordered(SHARDS_AT_ONCE)
                .collect()
                .await;
            let mut refused = None;
            for (records, outcome) in outcomes {
                if let Err(error) = outcome {
                    log.give_back(records);
                    refused.get_or_insert(error);
                }
            }
            if let Some(error) = refused {
                return Err(error);
            }
        }
        Ok(())
    }

    /// Appends `records` to `shard`'s stream, numbered there.
    async fn append_decisions(
        &self,
        shard: Shard,
        records: &[DecisionRecord],
    ) -> Result<(), StoreError> {
        let mut call = Call::new(&scripts::DECISIONS);
        call.key(self.keys.decisions(shard))
            .key(self.keys.decisions_seq(shard))
            .arg(self.decision_capacity)
            .arg(self.keys.numbering(shard));
        for record in records {
            call.arg(record.at)
                .arg(record.principal().unwrap_or(""))
                .arg(&record.tool)
                .arg(record.revision)
                .arg(record.reason.as_deref().unwrap_or(""));
        }
        self.run_waiting::<i64>(&call, 0).await.map(|_| ())
    }
}

/// Ships `inner`'s decisions every [`SHIP_EVERY`] until the store is
/// dropped.
pub(super) async fn ship<S: Vocabulary>(inner: Weak<RedisStore<S>>) {
    let mut tick = tokio::time::interval(SHIP_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(inner) = inner.upgrade() else {
            return;
        };
        if let Err(error) = inner.ship_decisions().await {
            tracing::warn!(%error, "call decisions could not be shipped; kept to ship again");
        }
    }
}

impl Numbered for DecisionRecord {
    const WHAT: &'static str = "decision";

    fn seq(&self) -> u64 {
        self.seq
    }

    fn principal(&self) -> Option<&str> {
        DecisionRecord::principal(self)
    }

    /// Strictly, as an audit entry: an id that is not `{seq}-0`, a field
    /// twice, unknown or missing, a number that is not one, is
    /// [`StoreError::Corrupt`] naming the entry.
    fn decode((id, flat): Entry) -> Result<Self, StoreError> {
        let corrupt = |why: String| StoreError::Corrupt(format!("decision entry `{id}`: {why}"));
        let seq = seq_of(&id).ok_or_else(|| corrupt("the id is not `{seq}-0`".to_owned()))?;
        if flat.len() % 2 != 0 {
            return Err(corrupt("a field without a value".to_owned()));
        }
        let mut fields: BTreeMap<&str, &str> = BTreeMap::new();
        for pair in flat.chunks(2) {
            let name = pair[0].as_str();
            if !matches!(name, "at" | "principal" | "tool" | "revision" | "reason") {
                return Err(corrupt(format!("unknown field `{name}`")));
            }
            if fields.insert(name, &pair[1]).is_some() {
                return Err(corrupt(format!("field `{name}` twice")));
            }
        }
        let field = |name: &str| {
            fields
                .get(name)
                .copied()
                .ok_or_else(|| corrupt(format!("missing field `{name}`")))
        };
        let number = |name: &str| {
            field(name)?
                .parse::<u64>()
                .map_err(|error| corrupt(format!("field `{name}`: {error}")))
        };
        Ok(DecisionRecord::new(
            seq,
            number("at")?,
            fields.get("principal").copied(),
            field("tool")?,
            number("revision")?,
            fields.get("reason").copied(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::redis::streams::entry;

    const REFUSED: &[(&str, &str)] = &[
        ("at", "1767225600123"),
        ("principal", "alice"),
        ("tool", "delete_ticket"),
        ("revision", "3"),
        ("reason", "kill_switch"),
    ];

    #[test]
    fn entries_decode_into_records() {
        let record = DecisionRecord::decode(entry("9-0", REFUSED)).unwrap();
        let expected = DecisionRecord::new(
            9,
            1_767_225_600_123,
            Some("alice"),
            "delete_ticket",
            3,
            Some("kill_switch"),
        );
        assert_eq!(record, expected);
        let allowed = DecisionRecord::decode(entry("10-0", &REFUSED[..4])).unwrap();
        assert!(allowed.allowed && allowed.reason.is_none());
    }

    #[test]
    fn malformed_entries_are_named() {
        for (id, fields, says) in [
            ("9-1", REFUSED.to_vec(), "not `{seq}-0`"),
            (
                "9-0",
                [REFUSED, &[("args", "{}")]].concat(),
                "unknown field `args`",
            ),
            (
                "9-0",
                [REFUSED, &[("tool", "x")]].concat(),
                "field `tool` twice",
            ),
            ("9-0", REFUSED[1..].to_vec(), "missing field `at`"),
            (
                "9-0",
                [&[("at", "soon")], &REFUSED[1..]].concat(),
                "field `at`",
            ),
        ] {
            let error = DecisionRecord::decode(entry(id, &fields)).unwrap_err();
            let error = error.to_string();
            assert!(error.contains(&format!("decision entry `{id}`")), "{error}");
            assert!(error.contains(says), "{error}");
        }
    }
}
