//! What a principal could reach at a past moment, rebuilt from the audit
//! trail alone ([`exposure_at`]): the profile context and version in force
//! then, the kill switch in force then, and what they expose.
//!
//! Each part is read off the records that change it: the newest one at or
//! before the moment gives its `after`; failing that, the oldest one after
//! the moment gives its `before` (the state it replaced was in force at
//! the moment). A part no record speaks of is known only if the trail is
//! whole (its first record is number 1: nothing was trimmed, on one Redis
//! or in memory): then it was never set. Otherwise the answer says the
//! trail does not tell, and never guesses.
//!
//! Compiled tools only: a record names a runtime catalog's generation and
//! revision, not its tools.

use mcp_profiles::{
    DenyList, Explanation, KillSwitch, ProfileContext, ProfileController, Vocabulary,
};
use serde_json::Value;

use crate::audit::{AuditKind, AuditQuery, AuditRecord};
use crate::{AgentStore, StoreError};

/// An agent at a past moment: its context and version.
pub type Agent<S> = (ProfileContext<S>, u64);

/// A past moment to ask about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Moment {
    /// A time, in milliseconds since the Unix epoch (the records' `at`).
    At(u64),
    /// Just after the change that made this version of the principal's
    /// agent.
    Revision(u64),
}

/// What a principal could reach at a [`Moment`], and the records that say
/// so.
#[non_exhaustive]
pub struct PastExposure<S: Vocabulary> {
    /// Whom it is about.
    pub principal: String,
    /// The moment, as a time: the one asked, or that of the record that
    /// made the revision asked.
    pub at: u64,
    /// The principal's agent then (its context and version); `None`: it had
    /// none.
    pub agent: Option<Agent<S>>,
    /// The kill switch then (its names and version; no record and a whole
    /// trail: empty, version 0).
    pub kill_switch: (Vec<String>, u64),
    /// The numbers of the records each part was read off, ascending.
    pub evidence: Vec<u64>,
}

impl<S: Vocabulary> std::fmt::Debug for PastExposure<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PastExposure")
            .field("principal", &self.principal)
            .field("at", &self.at)
            .field("agent", &self.agent)
            .field("kill_switch", &self.kill_switch)
            .field("evidence", &self.evidence)
            .finish()
    }
}

impl<S: Vocabulary> PastExposure<S> {
    /// The compiled tools the agent was served then, sorted (under the kill
    /// switch then); none without an agent.
    pub fn tools(&self) -> Vec<String> {
        self.controller().map_or_else(Vec::new, |controller| {
            let tools = controller.tools().into_iter();
            tools.map(|tool| tool.name.into_owned()).collect()
        })
    }

    /// Every group on or off then and why, and every tool its policy or the
    /// kill switch removed (as [`ProfileController::explain`]).
    pub fn explain(&self) -> Option<Explanation<'static, S>> {
        self.controller().map(|controller| controller.explain())
    }

    /// A fresh controller serving the agent's context then under the kill
    /// switch then; names the registry no longer has are left out of the
    /// switch (checked in [`exposure_at`]).
    fn controller(&self) -> Option<ProfileController<S>> {
        let (context, _) = self.agent?;
        let switch = KillSwitch::new();
        switch.set(DenyList::new(&self.kill_switch.0).unwrap_or_default());
        Some(ProfileController::with_kill_switch(context, &switch))
    }
}

/// Why the past could not be told.
#[derive(Debug)]
#[non_exhaustive]
pub enum PastError {
    /// The trail could not be read.
    Store(StoreError),
    /// No record of the principal says this revision was made.
    NoSuchRevision {
        /// Whom it was asked of.
        principal: String,
        /// The revision asked.
        revision: u64,
    },
    /// The trail holds no record of what it names ("the principal's agent",
    /// "the kill switch") and was trimmed, so it cannot tell.
    NotInTrail(&'static str),
    /// A record whose state this could not read, by number, and why.
    Record(u64, String),
}

impl std::fmt::Display for PastError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PastError::Store(error) => write!(f, "the audit trail could not be read: {error}"),
            PastError::NoSuchRevision {
                principal,
                revision,
            } => write!(
                f,
                "no record in the audit trail made revision {revision} of `{principal}`'s agent"
            ),
            PastError::NotInTrail(what) => write!(
                f,
                "the audit trail holds no record of {what} and was trimmed, so it cannot tell"
            ),
            PastError::Record(seq, why) => write!(f, "audit record {seq}: {why}"),
        }
    }
}

impl std::error::Error for PastError {}

/// How many records a page of the trail reads.
const PAGE: usize = 1000;

/// What `principal` could reach at `moment`, from `store`'s audit trail
/// (read whole, a page at a time: at most its capacity, 10,000 records by
/// default).
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Desk;
/// #     impl rmcp::ServerHandler for Desk {}
/// # }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use mcp_profiles::ProfileContext;
/// use mcp_profiles_serve::audit::Attribution;
/// use mcp_profiles_serve::exposure::past::{Moment, exposure_at};
/// use mcp_profiles_serve::{AgentStore, MemoryStore};
///
/// # tokio_test(async {
/// let store = MemoryStore::<Desk>::default();
/// let by = Attribution::new("ops", "req-1").unwrap();
/// store.put_agent("alice", ProfileContext::new(Surface::Ticket), &by).await.unwrap();
/// store.put_agent("alice", ProfileContext::new(Surface::Chat), &by).await.unwrap();
/// let then = exposure_at(&store, "alice", Moment::Revision(1)).await.unwrap();
/// assert_eq!(then.agent.map(|(context, _)| context), Some(ProfileContext::new(Surface::Ticket)));
/// # });
/// # fn tokio_test(f: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub async fn exposure_at<S: Vocabulary>(
    store: &(impl AgentStore<S> + ?Sized),
    principal: &str,
    moment: Moment,
) -> Result<PastExposure<S>, PastError> {
    Trail::read(store).await?.exposure(principal, moment)
}

/// A store's audit trail, read once, to ask about many moments (as
/// [`super::verify`] does).
#[derive(Debug)]
pub struct Trail<S: Vocabulary> {
    /// Each principal's records, in the order of their numbers.
    agents: std::collections::HashMap<String, Vec<AuditRecord>>,
    /// The kill switch's records, likewise.
    kills: Vec<AuditRecord>,
    /// Whether the trail is whole: its first record is number 1.
    whole: bool,
    vocabulary: std::marker::PhantomData<fn() -> S>,
}

impl<S: Vocabulary> Trail<S> {
    /// `store`'s whole trail, read a page at a time (at most its capacity,
    /// 10,000 records by default).
    pub async fn read(store: &(impl AgentStore<S> + ?Sized)) -> Result<Self, PastError> {
        let mut trail = Trail {
            agents: std::collections::HashMap::new(),
            kills: Vec::new(),
            whole: true,
            vocabulary: std::marker::PhantomData,
        };
        let mut since = None;
        loop {
            let mut query = AuditQuery::new().with_limit(PAGE);
            if let Some(seq) = since {
                query = query.since(seq);
            }
            let page = store.audit(&query).await.map_err(PastError::Store)?;
            if since.is_none() {
                trail.whole = page.first().is_none_or(|record| record.seq == 1);
            }
            since = page.last().map(|record| record.seq);
            let short = page.len() < PAGE;
            for record in page {
                match (&record.kind, &record.principal) {
                    (AuditKind::KillSwitch, _) => trail.kills.push(record),
                    (_, Some(principal)) => {
                        let records = trail.agents.entry(principal.clone()).or_default();
                        records.push(record);
                    }
                    (_, None) => {}
                }
            }
            if short {
                return Ok(trail);
            }
        }
    }

    /// `principal`'s agent at `moment` (its context and version; `None`:
    /// it had none), without the kill switch: what [`super::verify`]
    /// judges a decision's revision by. On a trimmed trail a kill switch no
    /// record speaks of cannot be told, but the agent still can.
    pub fn agent_at(&self, principal: &str, moment: Moment) -> Result<Option<Agent<S>>, PastError> {
        Ok(self.agent_then(principal, moment, &mut Vec::new())?.0)
    }

    /// The agent at `moment` and the moment as a time, with the numbers
    /// of the records read pushed on `evidence`.
    fn agent_then(
        &self,
        principal: &str,
        moment: Moment,
        evidence: &mut Vec<u64>,
    ) -> Result<(Option<Agent<S>>, u64), PastError> {
        let mine = self.agents.get(principal).map_or(&[][..], Vec::as_slice);
        // The principal's records are one shard's on a cluster, so their
        // numbers order them; the kill switch's are compared by time.
        let (cut, at) = match moment {
            Moment::At(at) => (Cut::Time(at), at),
            Moment::Revision(revision) => {
                let made = mine
                    .iter()
                    .find(|record| state_version(&record.after) == Some(revision))
                    .ok_or_else(|| PastError::NoSuchRevision {
                        principal: principal.to_owned(),
                        revision,
                    })?;
                (Cut::Seq(made.seq), made.at)
            }
        };
        let shaping = |record: &&AuditRecord| {
            matches!(record.kind, AuditKind::ProfilePut | AuditKind::AgentDeleted)
        };
        let versioned =
            |record: &&AuditRecord| shaping(record) || record.kind == AuditKind::CatalogPut;
        let context = state_then(mine, cut, shaping, evidence);
        let version = state_then(mine, cut, versioned, evidence);
        let agent = match (context, version) {
            (Some((seq, context)), Some((_, version))) => match context.get("context") {
                None => None,
                Some(context) => Some((
                    ProfileContext::<S>::from_json(&context.to_string())
                        .map_err(|error| PastError::Record(seq, error.to_string()))?,
                    state_version(&version).unwrap_or_default(),
                )),
            },
            _ if self.whole => None,
            _ => return Err(PastError::NotInTrail("the principal's agent")),
        };
        Ok((agent, at))
    }

    /// Whether the trail is whole (nothing trimmed): a part no record
    /// speaks of was then never set.
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// What `principal` could reach at `moment` (see [`exposure_at`]).
    pub fn exposure(&self, principal: &str, moment: Moment) -> Result<PastExposure<S>, PastError> {
        let mut evidence = Vec::new();
        let (agent, at) = self.agent_then(principal, moment, &mut evidence)?;
        let whole = self.whole;
        let kill_switch = match state_then(&self.kills, Cut::Time(at), |_| true, &mut evidence) {
            Some((seq, state)) => {
                let names: Vec<String> = state
                    .get("deny")
                    .and_then(|deny| serde_json::from_value(deny.clone()).ok())
                    .unwrap_or_default();
                DenyList::<S>::new(&names)
                    .map_err(|error| PastError::Record(seq, error.to_string()))?;
                (names, state_version(&state).unwrap_or_default())
            }
            None if whole => (Vec::new(), 0),
            None => return Err(PastError::NotInTrail("the kill switch")),
        };
        evidence.sort_unstable();
        evidence.dedup();
        Ok(PastExposure {
            principal: principal.to_owned(),
            at,
            agent,
            kill_switch,
            evidence,
        })
    }
}

/// Where the past ends: records at or before a time, or up to a number.
#[derive(Clone, Copy)]
enum Cut {
    Time(u64),
    Seq(u64),
}

impl Cut {
    fn includes(self, record: &AuditRecord) -> bool {
        match self {
            Cut::Time(at) => record.at <= at,
            Cut::Seq(seq) => record.seq <= seq,
        }
    }
}

/// The state the records `relevant` picks out say was in force at `cut`
/// (`Value::Null`: none), with the number of the record that says it:
/// the newest one within the cut gives its `after`, else the oldest past
/// it its `before`; `None` if none is relevant.
fn state_then(
    records: &[AuditRecord],
    cut: Cut,
    relevant: impl Fn(&&AuditRecord) -> bool,
    evidence: &mut Vec<u64>,
) -> Option<(u64, Value)> {
    let mut relevant = records.iter().filter(relevant);
    let (within, past): (Vec<_>, Vec<_>) = relevant.by_ref().partition(|r| cut.includes(r));
    let (seq, state) = match (within.last(), past.first()) {
        (Some(record), _) => (record.seq, record.after.clone()),
        (None, Some(record)) => (record.seq, record.before.clone()),
        (None, None) => return None,
    };
    evidence.push(seq);
    Some((seq, state))
}

/// The `version` a state names.
fn state_version(state: &Value) -> Option<u64> {
    state.get("version")?.as_u64()
}
