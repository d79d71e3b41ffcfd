//! The audit trail: one [`AuditRecord`] for every change of what an agent
//! can reach, written by the store in the same step as the change.
//!
//! Every write of an [`AgentStore`](crate::AgentStore) takes an
//! [`Attribution`] — who asked (a name, never a secret: a control token's
//! name, an OAuth subject) and the request's id — and the store appends the
//! record with the change, all or nothing: the in-memory store under the
//! lock that makes the change (into a bounded [`MemoryAuditLog`]),
//! `RedisStore` inside the Lua script that makes it (into a capped Redis
//! stream), so a record that cannot be appended refuses the change. A
//! refused change (a stale version, an unknown name) and a write that
//! changes nothing (revoking an unknown token, granting a token again to the
//! principal it names, deleting an agent that does not exist) leave no
//! record. [`AgentStore::audit`](crate::AgentStore::audit) reads the trail
//! back a page at a time ([`AuditQuery`]).
//!
//! # The record's JSON form
//!
//! Stable; every field is always present:
//!
//! ```json
//! {
//!   "seq": 42,
//!   "at": 1767225600123,
//!   "actor": "control",
//!   "principal": "alice",
//!   "kind": "profile-put",
//!   "before": {"context": {"surface": "ticket", "capabilities": [], "providers": []}, "version": 2},
//!   "after": {"context": {"surface": "ticket", "capabilities": ["refund"], "providers": []}, "version": 3},
//!   "added": ["issue_refund"],
//!   "removed": [],
//!   "request_id": "9f1c0c52-3d0b-4a57-a3c5-0e0f5f8a4c11"
//! }
//! ```
//!
//! - `seq`: grows with every record of one log (a store, shared by every
//!   instance of it); never reused. In memory and on one Redis it counts
//!   from 1 by one, and a change made after another has a greater one. On a
//!   Redis Cluster each shard numbers its own records (no key outside a
//!   principal's slot is on a change's path): congruent to the shard's
//!   index modulo 1024 and at least its primary's clock in ms times 1024,
//!   so numbers are unique, in change order within a shard (a principal's
//!   agent changes; a token's changes, in its digest's shard; the kill
//!   switch's), and across shards in the order of the primaries' clocks to
//!   the millisecond: two changes of different shards within one
//!   millisecond may be numbered either way. Page by `seq`, never count
//!   with it.
//! - `at`: when the change was made, in milliseconds since the Unix epoch
//!   (the Redis server's clock for `RedisStore`).
//! - `actor`, `request_id`: the write's [`Attribution`].
//! - `principal`: the agent changed; `null` for the kill switch, which is
//!   every agent's.
//! - `kind`: see [`AuditKind`]; an application's own kinds are lower-case
//!   names of its choosing (`task-autopilot`, say).
//! - `before`, `after`: the state the change replaced and the one it made
//!   (`null`: none, as before an agent's creation or after its deletion);
//!   see [`states`] for each kind's. A token is never stored, only its
//!   [`fingerprint`].
//! - `added`, `removed`: the tools the change gave and took away, sorted:
//!   for a profile, the compiled tools it enables; for a catalog, the
//!   catalog's tools; for the kill switch, the compiled tools it denies;
//!   empty for tokens.
//!
//! Bounded: the in-memory log keeps the newest 10,000 records by default
//! ([`MemoryStore::with_audit_capacity`](crate::MemoryStore::with_audit_capacity)),
//! the Redis stream about as many (`RedisOptions::with_audit_capacity`,
//! trimmed with `XADD ... MAXLEN ~ N`; on a cluster, each shard's stream);
//! `seq` goes on across what was dropped.

pub mod decisions;
mod memory;
mod query;
mod record;
pub mod states;
mod trail;

pub use memory::MemoryAuditLog;
pub use query::{AuditOrder, AuditQuery};
pub use record::{Attribution, AuditEntry, AuditError, AuditKind, AuditRecord};
pub use states::fingerprint;
pub use trail::{AuditTrail, DecisionTrail, TrailError};

/// How many records a log keeps unless told otherwise.
pub const DEFAULT_CAPACITY: usize = 10_000;
