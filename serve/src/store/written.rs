//! What a store answers for a change it made: the outcome, and whether the
//! store's replicas confirmed it ([`Written`], [`Replication`]).

/// A change a store made, and how far its replicas confirmed it.
///
/// The change is made, recorded and published whatever
/// [`replication`](Self::replication) says: it is in force. What that says
/// is whether it would survive a failover of the store's primary now (see
/// [`Replication`]). It reads as its [`value`](Self::value) (`Deref`).
///
/// ```
/// use mcp_profiles_serve::store::{Replication, Written};
///
/// let written = Written::new(true, Replication::new(0, 1));
/// assert!(*written);
/// assert!(!written.replication.is_confirmed());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Written<T> {
    /// What the change made (or, for a change that changed nothing, that
    /// it changed nothing).
    pub value: T,
    /// Whether the store's replicas confirmed the change.
    pub replication: Replication,
}

impl<T> Written<T> {
    /// `value`, made with `replication`: what a backing of one's own
    /// answers a change with.
    pub fn new(value: T, replication: Replication) -> Self {
        Written { value, replication }
    }

    /// `value`, needing no replica to confirm it (one process, a store
    /// without replicas, or a change that changed nothing).
    pub fn unreplicated(value: T) -> Self {
        Written::new(value, Replication::not_required())
    }

    /// The value, its replication dropped.
    pub fn into_value(self) -> T {
        self.value
    }

    /// The same replication, of what `f` makes of the value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Written<U> {
        Written::new(f(self.value), self.replication)
    }
}

impl<T> std::ops::Deref for Written<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

/// How many of the replicas a store requires confirmed a change before it
/// answered.
///
/// Unconfirmed ([`is_confirmed`](Self::is_confirmed) false) means: the
/// change is made on the store's primary, recorded in its audit trail and
/// published to every instance, which apply it; but fewer replicas than
/// required had it when the store stopped waiting, so a failover of that
/// primary before they catch up may undo it (the change, its record and
/// its version with it). The control API answers such a change with 202
/// and `Mcp-Profiles-Unconfirmed` ([`crate::control::UNCONFIRMED_HEADER`]);
/// a client reads the agent back later and puts the change again if it is
/// gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Replication {
    /// How many replicas confirmed the change.
    pub confirmed: usize,
    /// How many the store requires (`RedisOptions::with_replica_acks`).
    pub required: usize,
}

impl Replication {
    /// `confirmed` of `required` replicas confirmed the change.
    pub fn new(confirmed: usize, required: usize) -> Self {
        Replication {
            confirmed,
            required,
        }
    }

    /// No replica is required: one process, a store without replicas, or a
    /// change that changed nothing.
    pub fn not_required() -> Self {
        Replication::new(0, 0)
    }

    /// Whether as many replicas as required confirmed the change.
    pub fn is_confirmed(&self) -> bool {
        self.confirmed >= self.required
    }
}
