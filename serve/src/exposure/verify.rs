//! Proof that the decision log and the audit trail agree ([`verify`]):
//! every call allowed named a tool in its principal's profile at the
//! revision it was decided under, and every call refused as outside the
//! profile (`not_in_profile`, `policy`, `allow_list`) named one outside it;
//! a call refused by the kill switch named one the profile would serve.
//! Zero mismatches, or the first counterexample named.
//!
//! The profile at a revision is rebuilt from the trail alone
//! ([`super::past`]): its context, its policy and allow lists, compiled
//! tools. What the trail cannot judge is counted apart, never passed: a
//! decision of no principal's agent (an OAuth token's derived profile), of
//! a tool no compiled group has (a runtime catalog's), or at a revision a
//! trimmed trail no longer holds.

use std::collections::HashMap;

use mcp_profiles::Vocabulary;

use super::past::{Moment, PastError, Trail};
use crate::AgentStore;
use crate::audit::AuditQuery;
use crate::audit::decisions::DecisionRecord;
use crate::store::StoreError;

/// What [`verify`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Verdict {
    /// Decisions judged against the trail.
    pub judged: u64,
    /// Decisions the trail cannot judge (see the [module](self)).
    pub unjudged: u64,
    /// Judged decisions that contradict the trail.
    pub mismatches: u64,
    /// The first of them, and why.
    pub first: Option<(DecisionRecord, String)>,
}

impl Verdict {
    /// Whether no judged decision contradicts the trail.
    pub fn holds(&self) -> bool {
        self.mismatches == 0
    }
}

/// The whole of `store`'s decision log, oldest first, read a page at a
/// time: what [`crate::exposure::verify::verify`] judges.
///
/// ```no_run
/// # async fn check<S: mcp_profiles::Vocabulary>(
/// #     store: &dyn mcp_profiles_serve::AgentStore<S>,
/// # ) -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_profiles_serve::exposure::past::Trail;
/// use mcp_profiles_serve::exposure::verify::{read_decisions, verify};
///
/// store.decisions_written().await?;
/// let verdict = verify(&Trail::<S>::read(store).await?, &read_decisions(store).await?);
/// assert!(verdict.holds(), "{:?}", verdict.first);
/// # Ok(()) }
/// ```
pub async fn read_decisions<S: Vocabulary>(
    store: &dyn AgentStore<S>,
) -> Result<Vec<DecisionRecord>, StoreError> {
    const PAGE: usize = AuditQuery::MAX_LIMIT;
    let mut all: Vec<DecisionRecord> = Vec::new();
    loop {
        let mut query = AuditQuery::new().with_limit(PAGE);
        if let Some(last) = all.last() {
            query = query.since(last.seq);
        }
        let page = store.decisions(&query).await?;
        let ended = page.len() < PAGE;
        all.extend(page);
        if ended {
            return Ok(all);
        }
    }
}

/// Judges every decision of `decisions` against `trail`.
///
/// ```no_run
/// # async fn check<S: mcp_profiles::Vocabulary>(
/// #     store: &dyn mcp_profiles_serve::AgentStore<S>,
/// #     log: &mcp_profiles_serve::audit::decisions::DecisionLog,
/// # ) -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_profiles_serve::exposure::{past::Trail, verify::verify};
///
/// // This process's decisions, as an in-memory log holds them.
/// let verdict = verify(&Trail::<S>::read(store).await?, &log.records());
/// assert!(verdict.holds(), "{:?}", verdict.first);
/// # Ok(()) }
/// ```
pub fn verify<S: Vocabulary>(trail: &Trail<S>, decisions: &[DecisionRecord]) -> Verdict {
    let registry = S::registry();
    let compiled: std::collections::HashSet<&str> = registry
        .groups()
        .iter()
        .flat_map(|group| group.tools().iter().copied())
        .collect();
    // What the trail says of each principal's profile at each revision.
    let mut profiles: HashMap<(&str, u64), AtRevision> = HashMap::new();
    let mut verdict = Verdict::default();
    for decision in decisions {
        let Some(principal) = decision.principal.as_deref() else {
            verdict.unjudged += 1;
            continue;
        };
        if !compiled.contains(decision.tool.as_str()) {
            verdict.unjudged += 1;
            continue;
        }
        let profile = profiles
            .entry((principal, decision.revision))
            .or_insert_with(|| {
                match trail.agent_at(principal, Moment::Revision(decision.revision)) {
                    Ok(agent) => AtRevision::Served(agent.map_or_else(Vec::new, |(context, _)| {
                        registry.assemble(&context).tool_names().to_vec()
                    })),
                    // A whole trail that never made the revision: the
                    // decision names a profile that never was.
                    Err(PastError::NoSuchRevision { .. }) if trail.is_whole() => AtRevision::Never,
                    Err(_) => AtRevision::Unknown,
                }
            });
        let tools = match profile {
            AtRevision::Served(tools) => tools,
            AtRevision::Unknown => {
                verdict.unjudged += 1;
                continue;
            }
            AtRevision::Never => {
                verdict.judged += 1;
                let why = format!(
                    "no audit record made revision {} of `{principal}`'s agent",
                    decision.revision
                );
                mismatch(&mut verdict, decision, why);
                continue;
            }
        };
        verdict.judged += 1;
        let served = tools.contains(&decision.tool.as_str());
        let wrong = match decision.reason.as_deref() {
            None if !served => Some("allowed, but not in the profile"),
            Some("kill_switch") if !served => {
                Some("refused by the kill switch, but not in the profile")
            }
            Some("not_in_profile" | "policy" | "allow_list") if served => {
                Some("refused as outside the profile, but in it")
            }
            _ => None,
        };
        if let Some(wrong) = wrong {
            let why = format!(
                "{wrong} at revision {} of `{principal}`'s agent ({} tools)",
                decision.revision,
                tools.len()
            );
            mismatch(&mut verdict, decision, why);
        }
    }
    verdict
}

/// What the trail says of one principal's profile at one revision.
enum AtRevision {
    /// The compiled tools it served (none: no agent then).
    Served(Vec<&'static str>),
    /// No record made it, and the trail is whole: it never was.
    Never,
    /// The trail cannot tell (trimmed, or unreadable for it).
    Unknown,
}

fn mismatch(verdict: &mut Verdict, decision: &DecisionRecord, why: String) {
    verdict.mismatches += 1;
    if verdict.first.is_none() {
        verdict.first = Some((decision.clone(), why));
    }
}
