//! [`AuditTrail`] and [`DecisionTrail`]: where an in-memory store keeps its
//! audit records and its call decisions, when not in memory.

use super::decisions::DecisionRecord;
use super::{AuditEntry, AuditQuery, AuditRecord, MemoryAuditLog};

/// Where a [`ProfileStore`](crate::ProfileStore) keeps the audit records of
/// the changes made through its [`AgentStore`](crate::AgentStore) methods:
/// a [`MemoryAuditLog`] unless
/// [`with_audit_trail`](crate::MemoryStore::with_audit_trail) says
/// otherwise (an application's own database, say).
///
/// The store appends a change's record *before* it makes the change, with
/// every other recorded change of the store held back, so records come in
/// the order of the changes, and a record the trail refuses refuses its
/// change ([`StoreError::Refused`](crate::StoreError::Refused), nothing
/// changed, no session told).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use mcp_profiles_serve::audit::{
///     AuditEntry, AuditQuery, AuditRecord, AuditTrail, MemoryAuditLog, TrailError,
/// };
///
/// /// A trail that refuses every record once told to (a full disk, say).
/// #[derive(Default)]
/// struct Flaky { log: MemoryAuditLog, full: Mutex<bool> }
///
/// impl AuditTrail for Flaky {
///     fn append(&self, entry: AuditEntry) -> Result<AuditRecord, TrailError> {
///         if *self.full.lock().unwrap() {
///             return Err(TrailError::new("the disk is full"));
///         }
///         AuditTrail::append(&self.log, entry)
///     }
///     fn query(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, TrailError> {
///         AuditTrail::query(&self.log, query)
///     }
/// }
/// # let _: Arc<dyn AuditTrail> = Arc::new(Flaky::default());
/// ```
pub trait AuditTrail: Send + Sync {
    /// Appends `entry` as the next record, made now, kept once this
    /// returns: the record, numbered by the trail (see the
    /// [module docs](super) for `seq`). An error refuses the change.
    ///
    /// # Errors
    ///
    /// [`TrailError`] naming why the record could not be kept.
    fn append(&self, entry: AuditEntry) -> Result<AuditRecord, TrailError>;

    /// The page `query` asks for.
    ///
    /// # Errors
    ///
    /// [`TrailError`] naming why the trail could not be read.
    fn query(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, TrailError>;
}

impl AuditTrail for MemoryAuditLog {
    fn append(&self, entry: AuditEntry) -> Result<AuditRecord, TrailError> {
        Ok(MemoryAuditLog::append(self, entry))
    }

    fn query(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, TrailError> {
        Ok(MemoryAuditLog::query(self, query))
    }
}

/// Where a [`ProfileStore`](crate::ProfileStore) keeps the call decisions
/// its [`DecisionLog`](super::decisions::DecisionLog) heard, beside its
/// [`AuditTrail`] (an application's own database, say), set with
/// [`with_decision_trail`](crate::MemoryStore::with_decision_trail).
///
/// The store ships what its log holds when
/// [`AgentStore::decisions_written`](crate::AgentStore::decisions_written)
/// is called (an application calls it every so often, and at shutdown), and
/// answers [`AgentStore::decisions`](crate::AgentStore::decisions) from the
/// trail.
pub trait DecisionTrail: Send + Sync {
    /// Keeps `records`, oldest first, numbering them itself (each a greater
    /// `seq` than any before); kept once this returns. An error keeps none
    /// of them: they go back to the log to be shipped again.
    ///
    /// # Errors
    ///
    /// [`TrailError`] naming why they could not be kept.
    fn append(&self, records: Vec<DecisionRecord>) -> Result<(), TrailError>;

    /// The page `query` asks for.
    ///
    /// # Errors
    ///
    /// [`TrailError`] naming why the trail could not be read.
    fn query(&self, query: &AuditQuery) -> Result<Vec<DecisionRecord>, TrailError>;
}

/// Why an [`AuditTrail`] could not keep or read records: its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrailError(String);

impl TrailError {
    /// An error saying `why`.
    pub fn new(why: impl Into<String>) -> Self {
        TrailError(why.into())
    }
}

impl std::fmt::Display for TrailError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TrailError {}
