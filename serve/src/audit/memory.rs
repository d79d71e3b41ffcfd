//! [`MemoryAuditLog`]: the newest records of one process, in memory.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{AuditEntry, AuditOrder, AuditQuery, AuditRecord, DEFAULT_CAPACITY};

/// An audit trail in memory: the newest `capacity` records, numbered from
/// 1 on (the numbers go on past the records dropped).
///
/// The in-memory store keeps one
/// ([`MemoryStore::with_audit_capacity`](crate::MemoryStore::with_audit_capacity));
/// an application that keeps its own changes in memory can use one too,
/// appending under the lock that makes each change, or through
/// [`record`](Self::record), so that records come in the order of the
/// changes.
#[derive(Debug)]
pub struct MemoryAuditLog {
    log: Mutex<Log>,
}

#[derive(Debug)]
struct Log {
    records: VecDeque<AuditRecord>,
    /// The number of the next record.
    next: u64,
    capacity: usize,
}

impl Default for MemoryAuditLog {
    /// A log of [`DEFAULT_CAPACITY`] records.
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

impl MemoryAuditLog {
    /// A log keeping the newest `capacity` records (at least 1).
    pub fn new(capacity: usize) -> Self {
        MemoryAuditLog {
            log: Mutex::new(Log {
                records: VecDeque::new(),
                next: 1,
                capacity: capacity.max(1),
            }),
        }
    }

    /// How many records it keeps at most.
    pub fn capacity(&self) -> usize {
        self.lock().capacity
    }

    /// Appends `entry` as the next record, made now, dropping the oldest
    /// record past the capacity; the record.
    pub fn append(&self, entry: AuditEntry) -> AuditRecord {
        self.lock().append(entry)
    }

    /// Makes a change with the log held, and appends the entry it returns
    /// (`None`: it changed nothing), so that no other record falls between
    /// the change and its record. What `change` returns besides, or its
    /// error (nothing appended).
    ///
    /// ```
    /// use mcp_profiles_serve::audit::{Attribution, AuditEntry, AuditKind, AuditQuery, MemoryAuditLog};
    ///
    /// let log = MemoryAuditLog::default();
    /// let by = Attribution::new("control", "req-1")?;
    /// let kind = AuditKind::application("task-autopilot")?;
    /// let flipped: Result<bool, String> = log.record(|| {
    ///     // ... make the change (or fail, appending nothing); then say what it was.
    ///     Ok((true, Some(AuditEntry::new(&by, kind, Some("task-2")))))
    /// });
    /// assert_eq!(flipped, Ok(true));
    /// assert_eq!(log.query(&AuditQuery::new()).len(), 1);
    /// # Ok::<(), mcp_profiles_serve::audit::AuditError>(())
    /// ```
    pub fn record<T, E>(
        &self,
        change: impl FnOnce() -> Result<(T, Option<AuditEntry>), E>,
    ) -> Result<T, E> {
        let mut log = self.lock();
        let (outcome, entry) = change()?;
        if let Some(entry) = entry {
            log.append(entry);
        }
        Ok(outcome)
    }

    /// The page `query` asks for.
    pub fn query(&self, query: &AuditQuery) -> Vec<AuditRecord> {
        let log = self.lock();
        let matching = |record: &&AuditRecord| query.matches(record);
        match query.order() {
            AuditOrder::OldestFirst => log
                .records
                .iter()
                .filter(matching)
                .take(query.limit())
                .cloned()
                .collect(),
            AuditOrder::NewestFirst => log
                .records
                .iter()
                .rev()
                .filter(matching)
                .take(query.limit())
                .cloned()
                .collect(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Log {
    fn append(&mut self, entry: AuditEntry) -> AuditRecord {
        let record = entry.into_record(self.next, now_ms());
        self.next += 1;
        while self.records.len() >= self.capacity {
            self.records.pop_front();
        }
        self.records.push_back(record.clone());
        record
    }
}

/// Milliseconds since the Unix epoch, now (0 on a clock set before it).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Attribution, AuditKind};

    fn entry(principal: &str) -> AuditEntry {
        let by = Attribution::new("t", "r").unwrap();
        AuditEntry::new(&by, AuditKind::ProfilePut, Some(principal))
    }

    #[test]
    fn the_log_keeps_the_newest_and_numbers_go_on() {
        let log = MemoryAuditLog::new(3);
        for n in 0..5 {
            log.append(entry(&format!("p{n}")));
        }
        let seqs: Vec<u64> = log
            .query(&AuditQuery::new())
            .iter()
            .map(|r| r.seq)
            .collect();
        assert_eq!(seqs, [3, 4, 5]);
        let back: Vec<u64> = log
            .query(&AuditQuery::new().newest_first().before(5).with_limit(1))
            .iter()
            .map(|r| r.seq)
            .collect();
        assert_eq!(back, [4]);
    }

    #[test]
    fn a_failed_change_appends_nothing() {
        let log = MemoryAuditLog::new(3);
        let failed: Result<(), &str> = log.record(|| Err("refused"));
        assert_eq!(failed, Err("refused"));
        let unchanged: Result<(), &str> = log.record(|| Ok(((), None)));
        assert_eq!(unchanged, Ok(()));
        assert!(log.query(&AuditQuery::new()).is_empty());
    }
}
