//! Which records one page of the audit trail holds.

use super::AuditRecord;

/// The order of a page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AuditOrder {
    /// Oldest first: page forward with [`AuditQuery::since`] set to the
    /// last `seq` of a page.
    #[default]
    OldestFirst,
    /// Newest first: page back with [`AuditQuery::before`] set to the last
    /// `seq` of a page.
    NewestFirst,
}

/// One page of the audit trail: the records whose `seq` lies strictly
/// between `since` and `before` (either open), of `principal` if given, at
/// most `limit` of them, from the end [`AuditOrder`] says.
///
/// A page shorter than its limit is the last one.
///
/// ```
/// use mcp_profiles_serve::audit::{Attribution, AuditEntry, AuditKind, AuditQuery, MemoryAuditLog};
///
/// let log = MemoryAuditLog::new(100);
/// let by = Attribution::new("control", "req-1")?;
/// for principal in ["alice", "bob", "alice"] {
///     log.append(AuditEntry::new(&by, AuditKind::ProfilePut, Some(principal)));
/// }
/// let first = log.query(&AuditQuery::new().with_limit(2));
/// assert_eq!(first.iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2]);
/// let next = log.query(&AuditQuery::new().with_limit(2).since(first[1].seq));
/// assert_eq!(next.iter().map(|r| r.seq).collect::<Vec<_>>(), [3]);
/// let alice = log.query(&AuditQuery::new().of("alice").newest_first());
/// assert_eq!(alice.iter().map(|r| r.seq).collect::<Vec<_>>(), [3, 1]);
/// # Ok::<(), mcp_profiles_serve::audit::AuditError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditQuery {
    principal: Option<String>,
    since: Option<u64>,
    before: Option<u64>,
    limit: usize,
    order: AuditOrder,
}

impl Default for AuditQuery {
    fn default() -> Self {
        AuditQuery {
            principal: None,
            since: None,
            before: None,
            limit: Self::DEFAULT_LIMIT,
            order: AuditOrder::OldestFirst,
        }
    }
}

impl AuditQuery {
    /// The records a query holds unless told otherwise.
    pub const DEFAULT_LIMIT: usize = 100;

    /// The most records one page holds.
    pub const MAX_LIMIT: usize = 1000;

    /// Every record, oldest first, [`DEFAULT_LIMIT`](Self::DEFAULT_LIMIT)
    /// at a time.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only `principal`'s records (which leaves out the kill switch's,
    /// which are every agent's).
    pub fn of(mut self, principal: &str) -> Self {
        self.principal = Some(principal.to_owned());
        self
    }

    /// Only records after number `seq`.
    pub fn since(mut self, seq: u64) -> Self {
        self.since = Some(seq);
        self
    }

    /// Only records before number `seq`.
    pub fn before(mut self, seq: u64) -> Self {
        self.before = Some(seq);
        self
    }

    /// At most `limit` records, held between 1 and
    /// [`MAX_LIMIT`](Self::MAX_LIMIT).
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit.clamp(1, Self::MAX_LIMIT);
        self
    }

    /// Newest first.
    pub fn newest_first(mut self) -> Self {
        self.order = AuditOrder::NewestFirst;
        self
    }

    /// The principal asked for, if any.
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// The lower bound (exclusive), if any.
    pub fn since_seq(&self) -> Option<u64> {
        self.since
    }

    /// The upper bound (exclusive), if any.
    pub fn before_seq(&self) -> Option<u64> {
        self.before
    }

    /// The most records of the page.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The page's order.
    pub fn order(&self) -> AuditOrder {
        self.order
    }

    /// Whether `record` lies in the range and is of the principal asked.
    pub fn matches(&self, record: &AuditRecord) -> bool {
        self.admits(record.seq, record.principal.as_deref())
    }

    /// Whether a record numbered `seq`, of `principal`, lies in the range
    /// and is of the principal asked (the decision log's records too).
    pub(crate) fn admits(&self, seq: u64, principal: Option<&str>) -> bool {
        self.in_range(seq)
            && self
                .principal
                .as_deref()
                .is_none_or(|asked| principal == Some(asked))
    }

    /// Whether `seq` lies strictly between the bounds.
    pub fn in_range(&self, seq: u64) -> bool {
        self.since.is_none_or(|since| seq > since) && self.before.is_none_or(|before| seq < before)
    }
}
