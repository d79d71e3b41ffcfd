//! The decision log: one record per `tools/call` decision of a store's
//! agents (all of them, or one in N), bounded, kept beside the audit trail
//! so [`crate::exposure::verify`] can prove the two agree.
//!
//! A record names the principal, the tool, the revision of the profile the
//! call was decided under, and allowed or refused and why; never a token
//! and never the call's arguments. A store attaches a [`DecisionLog`] with
//! [`ProfileStore::with_decision_log`](crate::ProfileStore::with_decision_log);
//! where the records are kept is the store's, as for the audit trail:
//!
//! - in memory, the log itself keeps them (the newest `capacity`, the
//!   oldest dropped and counted);
//! - on Redis and a Redis Cluster, a task of each instance ships the
//!   records heard there to a capped stream beside the audit trail (on a
//!   cluster, the principal's shard's) a batch at a time, off the call
//!   path: the log holds only those not shipped yet, and drops the oldest
//!   (counted) if the store cannot take them for longer than its capacity
//!   lasts.
//!
//! Either way [`AgentStore::decisions`](crate::AgentStore::decisions) reads
//! the store's log a page at a time, in the order of its numbers, and
//! [`AgentStore::decisions_written`](crate::AgentStore::decisions_written)
//! waits until what this instance heard so far is in it.
//! [`read_decisions`](crate::exposure::verify::read_decisions) reads it
//! whole, for [`crate::exposure::verify`].

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_profiles::{CallDecision, DecisionSink};
use rmcp::schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AuditOrder, AuditQuery};

/// One call decision, as the log keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[non_exhaustive]
pub struct DecisionRecord {
    /// Its number in the log that holds it (dropped records keep theirs):
    /// in memory from 1 by one; on Redis, the store's, numbered as the
    /// audit trail's records are (see [`crate::audit`]).
    pub seq: u64,
    /// When it was decided, in milliseconds since the Unix epoch, by the
    /// deciding instance's clock.
    pub at: u64,
    /// Whose call it was; `None` for a profile no principal's agent holds
    /// (one an OAuth token's claims derived).
    pub principal: Option<String>,
    /// The tool, by its canonical name (as the client sent it when no
    /// served tool has that name).
    pub tool: String,
    /// The revision of the principal's profile it was decided under.
    pub revision: u64,
    /// Whether a handler was let run.
    pub allowed: bool,
    /// Why it was refused: `not_in_profile`, `policy`, `allow_list`,
    /// `kill_switch`; `None` when allowed.
    pub reason: Option<String>,
}

impl DecisionRecord {
    /// Whose call it was, if a principal's.
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// A record of `principal`'s call of `tool`, decided under `revision`
    /// (`reason`: `None` if allowed), numbered `seq`, made at `at`.
    pub fn new(
        seq: u64,
        at: u64,
        principal: Option<&str>,
        tool: &str,
        revision: u64,
        reason: Option<&str>,
    ) -> Self {
        DecisionRecord {
            seq,
            at,
            principal: principal.map(str::to_owned),
            tool: tool.to_owned(),
            revision,
            allowed: reason.is_none(),
            reason: reason.map(str::to_owned),
        }
    }
}

/// A bounded, sampled log of call decisions, shared by every agent of the
/// store it is attached to.
///
/// ```
/// use mcp_profiles_serve::audit::decisions::DecisionLog;
///
/// let log = DecisionLog::new(100_000).sampled(10); // one decision in ten
/// assert!(log.records().is_empty());
/// ```
#[derive(Debug)]
pub struct DecisionLog {
    kept: Mutex<Kept>,
    capacity: usize,
    one_in: u64,
    /// Decisions heard, sampled or not.
    heard: AtomicU64,
}

#[derive(Debug, Default)]
struct Kept {
    records: VecDeque<DecisionRecord>,
    next: u64,
    dropped: u64,
}

impl DecisionLog {
    /// A log holding at most `capacity` decisions (at least one): in
    /// memory the newest, on a shared store those awaiting shipment. Every
    /// decision sampled.
    pub fn new(capacity: usize) -> Self {
        DecisionLog {
            kept: Mutex::default(),
            capacity: capacity.max(1),
            one_in: 1,
            heard: AtomicU64::new(0),
        }
    }

    /// This log, keeping one decision in `n` (the first, then every
    /// `n`th; 0 and 1 keep all).
    pub fn sampled(mut self, n: u64) -> Self {
        self.one_in = n.max(1);
        self
    }

    /// The records held, oldest first: every record kept, in memory; on a
    /// shared store, those not shipped yet.
    pub fn records(&self) -> Vec<DecisionRecord> {
        self.lock().records.iter().cloned().collect()
    }

    /// The page of the records held that `query` asks for.
    pub fn query(&self, query: &AuditQuery) -> Vec<DecisionRecord> {
        let kept = self.lock();
        let matching = |record: &&DecisionRecord| query.admits(record.seq, record.principal());
        let page: Box<dyn Iterator<Item = &DecisionRecord>> = match query.order() {
            AuditOrder::OldestFirst => Box::new(kept.records.iter()),
            AuditOrder::NewestFirst => Box::new(kept.records.iter().rev()),
        };
        page.filter(matching).take(query.limit()).cloned().collect()
    }

    /// How many records were dropped to keep within the capacity.
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    /// How many records it holds.
    pub(crate) fn held(&self) -> usize {
        self.lock().records.len()
    }

    /// Takes up to `most` of the oldest records held, for a store to ship.
    pub(crate) fn drain(&self, most: usize) -> Vec<DecisionRecord> {
        let mut kept = self.lock();
        let most = most.min(kept.records.len());
        kept.records.drain(..most).collect()
    }

    /// Gives back `batch`, taken by [`drain`](Self::drain) and not
    /// shipped, ahead of what was heard since; the oldest past the
    /// capacity dropped and counted.
    pub(crate) fn give_back(&self, batch: Vec<DecisionRecord>) {
        let mut kept = self.lock();
        for record in batch.into_iter().rev() {
            if kept.records.len() == self.capacity {
                kept.dropped += 1;
            } else {
                kept.records.push_front(record);
            }
        }
    }

    /// What `principal`'s agent tells its decisions to: a store attaches
    /// one to each agent; a lone controller takes one with
    /// [`ProfileController::log_decisions`](mcp_profiles::ProfileController::log_decisions).
    pub fn sink(self: &Arc<Self>, principal: Option<&str>) -> Arc<dyn DecisionSink> {
        Arc::new(PrincipalSink {
            log: Arc::clone(self),
            principal: principal.map(Arc::from),
        })
    }

    fn keep(&self, principal: Option<&str>, decision: CallDecision<'_>) {
        if !self
            .heard
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(self.one_in)
        {
            return;
        }
        let at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_millis() as u64);
        let mut kept = self.lock();
        kept.next += 1;
        let record = DecisionRecord::new(
            kept.next,
            at,
            principal,
            decision.tool,
            decision.revision,
            decision.refused,
        );
        if kept.records.len() == self.capacity {
            kept.records.pop_front();
            kept.dropped += 1;
        }
        kept.records.push_back(record);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One agent's view of the log: its decisions, under its principal.
struct PrincipalSink {
    log: Arc<DecisionLog>,
    principal: Option<Arc<str>>,
}

impl DecisionSink for PrincipalSink {
    fn decided(&self, decision: CallDecision<'_>) {
        self.log.keep(self.principal.as_deref(), decision);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_the_newest_sampled_decisions_and_counts_what_it_dropped() {
        let log = Arc::new(DecisionLog::new(2).sampled(2));
        let sink = log.sink(Some("alice"));
        for tool in ["a", "b", "c", "d", "e", "f"] {
            sink.decided(CallDecision::new(tool, 3, None));
        }
        // a, c, e sampled; a dropped.
        let records = log.records();
        let tools: Vec<&str> = records.iter().map(|r| r.tool.as_str()).collect();
        assert_eq!(tools, ["c", "e"]);
        assert_eq!((records[0].seq, records[1].seq), (2, 3));
        assert_eq!(log.dropped(), 1);
        assert_eq!(records[0].principal.as_deref(), Some("alice"));
        assert!(records[0].allowed && records[0].reason.is_none());
    }

    #[test]
    fn a_batch_given_back_goes_first_and_the_capacity_still_holds() {
        let log = Arc::new(DecisionLog::new(3));
        let sink = log.sink(None);
        for tool in ["a", "b"] {
            sink.decided(CallDecision::new(tool, 1, None));
        }
        let batch = log.drain(10);
        for tool in ["c", "d"] {
            sink.decided(CallDecision::new(tool, 1, Some("policy")));
        }
        // Only one of a, b fits ahead of c, d: b, the newer, and a dropped.
        log.give_back(batch);
        let tools: Vec<String> = log.records().into_iter().map(|r| r.tool).collect();
        assert_eq!(tools, ["b", "c", "d"]);
        assert_eq!(log.dropped(), 1);
        let page = log.query(&AuditQuery::new().newest_first().with_limit(1));
        assert_eq!(page[0].tool, "d");
    }
}
