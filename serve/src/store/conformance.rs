//! The checks every store backing must pass (feature `conformance`): run
//! them in the tests of your own [`AgentStore`], as this crate runs them
//! for the in-memory store and for Redis.
//!
//! Among them, the audit trail's: one record per change, written as the
//! change is made, none for a refused change or a write that changes
//! nothing, each saying what it replaced and made, and pages read the same
//! through either handle (see [`crate::audit`]).
//!
//! [`check`] takes two handles on one shared store, as two gateway
//! instances would hold them (for a store that lives in one process, the
//! same one twice), and a [`Fixture`] in the server's vocabulary. It
//! panics, naming the broken rule, at the first one that does not hold; it
//! uses principals whose names start with `conformance-`, and puts the
//! operator's kill switch (turning it off again at the end).
//!
//! ```no_run
//! # mod server {
//! #     #[derive(Clone)] pub struct Demo;
//! #     impl rmcp::ServerHandler for Demo {}
//! # }
//! # use server::Demo;
//! # mcp_profiles::vocabulary! {
//! #     server Demo;
//! #     #[surfaces] pub enum Surface { Ticket, Chat }
//! #     #[capabilities] pub enum Capability {}
//! #     #[providers] pub enum Provider {}
//! # }
//! # #[mcp_profiles::tool_group(name = "tickets", surface = "ticket")]
//! # impl Demo {
//! #     #[rmcp::tool(description = "List")]
//! #     async fn list_tickets(&self) -> Result<rmcp::model::CallToolResult, rmcp::ErrorData> { todo!() }
//! # }
//! use mcp_profiles::ProfileContext;
//! use mcp_profiles_serve::MemoryStore;
//! use mcp_profiles_serve::store::conformance::{Fixture, check};
//!
//! # async fn run() {
//! let store = MemoryStore::<Demo>::default();
//! let fixture = Fixture::new(ProfileContext::new(Surface::Ticket), ProfileContext::new(Surface::Chat));
//! check(&store, &store, &fixture).await;
//! # }
//! ```

use std::sync::LazyLock;
use std::time::Duration;

use mcp_profiles::{PolicyError, ProfileContext, Vocabulary};
use serde_json::Value;

use super::{AgentStore, StoreError, StoredKillSwitch};
use crate::audit::states::{self, compiled_tools};
use crate::audit::{Attribution, AuditQuery, AuditRecord};

/// How long a change made through one handle may take to reach the other
/// (a feed, a poll): only a bound on waiting, never a measure.
const ARRIVAL: Duration = Duration::from_secs(20);

/// What the checks need in the server's vocabulary.
#[derive(Clone, Debug)]
pub struct Fixture<S: Vocabulary> {
    /// A context.
    pub first: ProfileContext<S>,
    /// A context whose compiled tools differ from `first`'s.
    pub second: ProfileContext<S>,
    /// For stores that keep catalogs: two wire forms the store's decoder
    /// accepts, whose tools differ for a session of `first`, and one it
    /// refuses.
    #[cfg(feature = "runtime-tools")]
    pub catalogs: Option<Catalogs>,
    /// What order the store promises its audit records in.
    pub audit_order: AuditOrder,
}

/// The order a store's audit trail promises ([`Fixture::audit_order`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditOrder {
    /// Every record in the order of the changes (one Redis, memory).
    Total,
    /// In change order within a shard (a principal's agent, its tokens,
    /// the kill switch); across shards only to the millisecond, so two
    /// changes of different shards in one millisecond may come either way
    /// (a Redis Cluster).
    PerShard,
}

/// Catalog wire forms for [`Fixture::catalogs`].
#[cfg(feature = "runtime-tools")]
#[derive(Clone, Debug)]
pub struct Catalogs {
    /// A catalog the decoder accepts.
    pub one: serde_json::Value,
    /// Another, whose tools a session of [`Fixture::first`] sees differ.
    pub other: serde_json::Value,
    /// One the decoder refuses.
    pub refused: serde_json::Value,
}

impl<S: Vocabulary> Fixture<S> {
    /// Profiles only; `first` and `second` must assemble different tools.
    pub fn new(first: ProfileContext<S>, second: ProfileContext<S>) -> Self {
        Fixture {
            first,
            second,
            #[cfg(feature = "runtime-tools")]
            catalogs: None,
            audit_order: AuditOrder::Total,
        }
    }

    /// The store's audit trail is ordered per shard only
    /// ([`AuditOrder::PerShard`]).
    pub fn with_audit_ordered_per_shard(mut self) -> Self {
        self.audit_order = AuditOrder::PerShard;
        self
    }

    /// The catalogs to check as well.
    #[cfg(feature = "runtime-tools")]
    pub fn with_catalogs(mut self, catalogs: Catalogs) -> Self {
        self.catalogs = Some(catalogs);
        self
    }
}

/// Runs every check through `one` and `other`, two handles on the same
/// store; panics at the first broken rule, naming it.
pub async fn check<S: Vocabulary>(
    one: &dyn AgentStore<S>,
    other: &dyn AgentStore<S>,
    fixture: &Fixture<S>,
) {
    assert_ne!(
        S::registry().assemble(&fixture.first).tool_names(),
        S::registry().assemble(&fixture.second).tool_names(),
        "the fixture's two contexts must assemble different tools"
    );
    versions_and_compare_and_set(one, other, fixture).await;
    tokens(one, other, fixture).await;
    changes_reach_the_other_handle(one, other, fixture).await;
    deletion(one, other, fixture).await;
    #[cfg(feature = "runtime-tools")]
    if let Some(catalogs) = &fixture.catalogs {
        catalogs_beside_profiles(one, other, fixture, catalogs).await;
    }
    kill_switch(one, other, fixture).await;
    audit_trail(one, other, fixture).await;
}

/// Who the checks other than the audit trail's say made their changes.
fn by() -> &'static Attribution {
    static BY: LazyLock<Attribution> = LazyLock::new(|| {
        Attribution::new("conformance", "conformance-check").expect("a valid attribution")
    });
    &BY
}

async fn versions_and_compare_and_set<S: Vocabulary>(
    one: &dyn AgentStore<S>,
    other: &dyn AgentStore<S>,
    fixture: &Fixture<S>,
) {
    let principal = "conformance-versions";
    let created = one.put_agent(principal, fixture.first, by()).await.unwrap();
    assert!(
        created.replication.is_confirmed(),
        "a change on a healthy store is confirmed by as many replicas as it requires: {:?}",
        created.replication
    );
    let created = created.into_value();
    assert_eq!(
        (created.agent.version, created.changed),
        (1, true),
        "a new agent is version 1 and changed"
    );
    let read = other
        .agent(principal)
        .await
        .unwrap()
        .expect("the agent, read through the other handle");
    assert_eq!(
        (read.version, *read.profile.context()),
        (1, fixture.first),
        "the other handle reads the agent as put"
    );
    let same = one
        .put_agent(principal, fixture.first, by())
        .await
        .unwrap()
        .value;
    assert_eq!(
        (same.agent.version, same.changed),
        (2, false),
        "an equal profile bumps the version and changes nothing"
    );
    let changed = other
        .put_agent(principal, fixture.second, by())
        .await
        .unwrap()
        .value;
    assert_eq!(
        (changed.agent.version, changed.changed),
        (3, true),
        "another tool set through the other handle is version 3 and changed"
    );
    let stale = one
        .put_agent_if(principal, fixture.first, Some(2), by())
        .await;
    assert!(
        matches!(&stale, Err(StoreError::Conflict { current: 3, .. })),
        "a compare-and-set on a stale version is a conflict naming the current one: {stale:?}"
    );
    let read = one.agent(principal).await.unwrap().unwrap();
    assert_eq!(
        (read.version, *read.profile.context()),
        (3, fixture.second),
        "a conflict changes nothing"
    );
    let current = one
        .put_agent_if(principal, fixture.first, Some(3), by())
        .await
        .unwrap()
        .value;
    assert_eq!(
        current.agent.version, 4,
        "a compare-and-set on the current version applies"
    );
    let create = "conformance-create-only";
    let made = one
        .put_agent_if(create, fixture.first, Some(0), by())
        .await
        .unwrap()
        .value;
    assert_eq!(made.agent.version, 1, "a create-only put makes version 1");
    let again = other
        .put_agent_if(create, fixture.first, Some(0), by())
        .await;
    assert!(
        matches!(&again, Err(StoreError::Conflict { current: 1, .. })),
        "a second create-only put is a conflict: {again:?}"
    );
    assert!(
        other.agent("conformance-nobody").await.unwrap().is_none(),
        "no agent reads as None"
    );
}

async fn tokens<S: Vocabulary>(
    one: &dyn AgentStore<S>,
    other: &dyn AgentStore<S>,
    fixture: &Fixture<S>,
) {
    let principal = "conformance-tokens";
    let unknown = one
        .grant_token("conformance-token-0", principal, by())
        .await;
    assert!(
        matches!(&unknown, Err(StoreError::UnknownPrincipal(p)) if p.principal() == principal),
        "a grant for a principal without an agent is refused naming it: {unknown:?}"
    );
    one.put_agent(principal, fixture.first, by()).await.unwrap();
    one.grant_token("conformance-token-1", principal, by())
        .await
        .unwrap();
    let found = other
        .profiles()
        .lookup("conformance-token-1")
        .await
        .unwrap();
    assert_eq!(
        found.as_ref().map(|p| p.name()),
        Some(principal),
        "a token granted through one handle is known through the other"
    );
    assert!(
        other
            .revoke_token("conformance-token-1", by())
            .await
            .unwrap()
            .value,
        "revoking a granted token says so"
    );
    assert!(
        !one.revoke_token("conformance-token-1", by())
            .await
            .unwrap()
            .value,
        "revoking it again says it was not granted"
    );
    eventually(
        "a revoked token stops naming its principal on the other handle",
        || async {
            one.profiles()
                .lookup("conformance-token-1")
                .await
                .unwrap()
                .is_none()
                && other
                    .profiles()
                    .lookup("conformance-token-1")
                    .await
                    .unwrap()
                    .is_none()
        },
    )
    .await;
}

async fn changes_reach_the_other_handle<S: Vocabulary>(
    one: &dyn AgentStore<S>,
    other: &dyn AgentStore<S>,
    fixture: &Fixture<S>,
) {
    let principal = "conformance-served";
    one.put_agent(principal, fixture.first, by()).await.unwrap();
    one.grant_token("conformance-token-2", principal, by())
        .await
        .unwrap();
    // A request bearing the token makes the other handle serve the agent.
    other
        .profiles()
        .lookup("conformance-token-2")
        .await
        .unwrap()
        .expect("the token is known");
    one.put_agent(principal, fixture.second, by())
        .await
        .unwrap();
    let served = |store: &dyn AgentStore<S>| {
        let principal = store.profiles().principal("conformance-token-2");
        principal
            .and_then(|principal| store.profiles().controller(&principal))
            .map(|controller| *controller.current().context())
    };
    eventually(
        "a replacement reaches the agent served through the other handle",
        || async { served(other) == Some(fixture.second) },
    )
    .await;
}

async fn deletion<S: Vocabulary>(
    one: &dyn AgentStore<S>,
    other: &dyn AgentStore<S>,
    fixture: &Fixture<S>,
) {
    let principal = "conformance-deleted";
    one.put_agent(principal, fixture.first, by()).await.unwrap();
    one.grant_token("conformance-token-3", principal, by())
        .await
        .unwrap();
    other
        .profiles()
        .lookup("conformance-token-3")
        .await
        .unwrap()
        .expect("the token is known");
    assert!(
        other.delete_agent(principal, by()).await.unwrap().value,
        "deleting an agent says so"
    );
    assert!(
        !one.delete_agent(principal, by()).await.unwrap().value,
        "deleting it again says there was none"
    );
    assert!(
        one.agent(principal).await.unwrap().is_none(),
        "a deleted agent reads as None"
    );
    eventually(
        "a deleted agent's tokens stop naming it on both handles",
        || async {
            one.profiles()
                .lookup("conformance-token-3")
                .await
                .unwrap()
                .is_none()
                && other
                    .profiles()
                    .lookup("conformance-token-3")
                    .await
                    .unwrap()
                    .is_none()
        },
    )
    .await;
    let again = one
        .put_agent_if(principal, fixture.first, Some(0), by())
        .await;
    assert!(
        again.is_ok(),
        "a deleted agent can be created again: {again:?}"
    );
}

#[cfg(feature = "runtime-tools")]
async fn catalogs_beside_profiles<S: Vocabulary>(
    one: &dyn AgentStore<S>,
    other: &dyn AgentStore<S>,
    fixture: &Fixture<S>,
    catalogs: &Catalogs,
) {
    let principal = "conformance-catalogs";
    let unknown = one
        .put_catalog_if(principal, catalogs.one.clone(), None, by())
        .await;
    assert!(
        matches!(&unknown, Err(StoreError::UnknownPrincipal(_))),
        "a catalog for a principal without an agent is refused: {unknown:?}"
    );
    one.put_agent(principal, fixture.first, by()).await.unwrap();
    let none = other
        .catalog(principal)
        .await
        .unwrap()
        .expect("the agent's catalog record");
    assert_eq!(
        (none.wire, none.version),
        (None, 1),
        "an agent starts without a catalog"
    );
    let refused = one
        .put_catalog_if(principal, catalogs.refused.clone(), None, by())
        .await;
    assert!(
        matches!(&refused, Err(StoreError::InvalidCatalog(_))),
        "a catalog the decoder refuses is refused: {refused:?}"
    );
    let put = one
        .put_catalog_if(principal, catalogs.one.clone(), Some(1), by())
        .await
        .unwrap()
        .value;
    assert_eq!(put.version, 2, "a catalog bumps the agent's version");
    let read = other.catalog(principal).await.unwrap().unwrap();
    assert_eq!(
        (read.wire, read.version),
        (Some(catalogs.one.clone()), 2),
        "the other handle reads the catalog as put"
    );
    let stale = other
        .put_catalog_if(principal, catalogs.other.clone(), Some(1), by())
        .await;
    assert!(
        matches!(&stale, Err(StoreError::Conflict { current: 2, .. })),
        "a catalog compare-and-set on a stale version is a conflict: {stale:?}"
    );
    let profile = other
        .put_agent_if(principal, fixture.first, Some(1), by())
        .await;
    assert!(
        matches!(&profile, Err(StoreError::Conflict { current: 2, .. })),
        "profiles and catalogs share one version: {profile:?}"
    );
    one.put_agent(principal, fixture.first, by()).await.unwrap();
    let kept = one.catalog(principal).await.unwrap().unwrap();
    assert_eq!(
        (kept.wire, kept.version),
        (Some(catalogs.one.clone()), 3),
        "a profile replacement keeps the catalog"
    );
    let changed = other
        .put_catalog_if(principal, catalogs.other.clone(), None, by())
        .await
        .unwrap()
        .value;
    assert_eq!(
        (changed.version, changed.changed),
        (4, true),
        "a catalog whose tools differ for the session changes what it lists"
    );
}

async fn kill_switch<S: Vocabulary>(
    one: &dyn AgentStore<S>,
    other: &dyn AgentStore<S>,
    fixture: &Fixture<S>,
) {
    let first = S::registry().assemble(&fixture.first);
    let tool = *first
        .tool_names()
        .first()
        .expect("the fixture's first context enables a compiled tool");
    let start = one
        .kill_switch()
        .await
        .unwrap()
        .map_or(0, |stored| stored.version);
    // An agent served through the other handle, to see the switch reach it.
    let principal = "conformance-killed";
    one.put_agent(principal, fixture.first, by()).await.unwrap();
    one.grant_token("conformance-token-4", principal, by())
        .await
        .unwrap();
    other
        .profiles()
        .lookup("conformance-token-4")
        .await
        .unwrap()
        .expect("the token is known");
    let lists_tool = |store: &dyn AgentStore<S>| {
        let principal = store.profiles().principal("conformance-token-4")?;
        let controller = store.profiles().controller(&principal)?;
        Some(controller.current().tool_names().contains(&tool))
    };

    let put = one
        .put_kill_switch_if(&[tool.to_owned()], Some(start), by())
        .await
        .unwrap()
        .value;
    let killed = StoredKillSwitch::new(vec![tool.to_owned()], start + 1);
    assert_eq!(put, killed, "a put bumps the kill switch's version by one");
    let read = other.kill_switch().await.unwrap();
    assert_eq!(
        read.as_ref(),
        Some(&killed),
        "the other handle reads the kill switch as put"
    );
    eventually(
        "the kill switch reaches the agent served through the other handle",
        || async { lists_tool(other) == Some(false) },
    )
    .await;
    assert_eq!(
        other.profiles().kill_switch_version(),
        start + 1,
        "the other handle's agents are under the version put"
    );

    let stale = other.put_kill_switch_if(&[], Some(start), by()).await;
    assert!(
        matches!(&stale, Err(StoreError::KillSwitchConflict { current }) if *current == start + 1),
        "a kill switch compare-and-set on a stale version is a conflict naming the current one: {stale:?}"
    );
    let misspelt = format!("{tool}x");
    let unknown = one
        .put_kill_switch_if(std::slice::from_ref(&misspelt), None, by())
        .await;
    assert!(
        matches!(
            &unknown,
            Err(StoreError::InvalidKillSwitch(PolicyError::UnknownName { name, suggestion }))
                if *name == misspelt && suggestion.as_deref() == Some(tool)
        ),
        "an unknown name is refused naming it, with the name meant: {unknown:?}"
    );
    let message = unknown.unwrap_err().to_string();
    assert!(
        message.contains(&misspelt) && message.contains("did you mean"),
        "the refusal names the name and the one meant: {message}"
    );
    let twice = one
        .put_kill_switch_if(&[tool.to_owned(), tool.to_owned()], None, by())
        .await;
    assert!(
        matches!(
            &twice,
            Err(StoreError::InvalidKillSwitch(PolicyError::Duplicate { .. }))
        ),
        "a name given twice is refused: {twice:?}"
    );
    assert_eq!(
        one.kill_switch().await.unwrap().as_ref(),
        Some(&killed),
        "refused puts change nothing"
    );

    let off = other
        .put_kill_switch_if(&[], Some(start + 1), by())
        .await
        .unwrap()
        .value;
    assert_eq!(
        off,
        StoredKillSwitch::new(Vec::new(), start + 2),
        "an empty list turns the switch off, bumping its version"
    );
    eventually(
        "turning the switch off gives the served agent its tool back",
        || async { lists_tool(other) == Some(true) && lists_tool(one) != Some(false) },
    )
    .await;
}

async fn audit_trail<S: Vocabulary>(
    one: &dyn AgentStore<S>,
    other: &dyn AgentStore<S>,
    fixture: &Fixture<S>,
) {
    let asked = |n: u32| {
        Attribution::new("conformance-auditor", format!("conformance-audit-{n}"))
            .expect("a valid attribution")
    };
    let (principal, token) = ("conformance-audited", "conformance-token-audited");
    let (first, second) = (fixture.first, fixture.second);
    let newest = one
        .audit(&AuditQuery::new().newest_first().with_limit(1))
        .await
        .unwrap();
    let start = newest.first().map_or(0, |record| record.seq);

    let (a1, a2, a3, a4, a5, a6, a7, a8, refused) = (
        asked(1),
        asked(2),
        asked(3),
        asked(4),
        asked(5),
        asked(6),
        asked(7),
        asked(8),
        asked(99),
    );
    let created = one.put_agent(principal, first, &a1).await.unwrap().value;
    let replaced = other.put_agent(principal, second, &a2).await.unwrap().value;
    let (v1, v2) = (created.agent.version, replaced.agent.version);
    assert!(
        one.put_agent_if(principal, first, Some(v1), &refused)
            .await
            .is_err(),
        "a stale put is refused"
    );
    one.grant_token(token, principal, &a3).await.unwrap();
    other.grant_token(token, principal, &refused).await.unwrap();
    assert!(other.revoke_token(token, &a4).await.unwrap().value);
    assert!(!one.revoke_token(token, &refused).await.unwrap().value);
    let mut expected = vec![
        ("profile-put", Some(principal), "conformance-audit-1"),
        ("profile-put", Some(principal), "conformance-audit-2"),
        ("token-granted", Some(principal), "conformance-audit-3"),
        ("token-revoked", Some(principal), "conformance-audit-4"),
    ];
    // The agent's version once its catalog, if the store takes one, is put.
    #[cfg(feature = "runtime-tools")]
    let version = match &fixture.catalogs {
        Some(catalogs) => {
            let put = one
                .put_catalog_if(principal, catalogs.one.clone(), None, &a5)
                .await
                .unwrap()
                .value;
            expected.push(("catalog-put", Some(principal), "conformance-audit-5"));
            put.version
        }
        None => v2,
    };
    #[cfg(not(feature = "runtime-tools"))]
    let version = {
        let _ = &a5;
        v2
    };
    let tool = compiled_tools(&first)
        .into_iter()
        .next()
        .expect("the fixture's first context enables a compiled tool");
    let switch = one.kill_switch().await.unwrap();
    let (held, held_version) = switch.map_or((Vec::new(), 0), |s| (s.names, s.version));
    let killed = one
        .put_kill_switch_if(std::slice::from_ref(&tool), Some(held_version), &a6)
        .await
        .unwrap()
        .value;
    assert!(
        one.put_kill_switch_if(&[format!("{tool}x")], None, &refused)
            .await
            .is_err(),
        "an unknown name is refused"
    );
    let off = other
        .put_kill_switch_if(&[], Some(killed.version), &a7)
        .await
        .unwrap()
        .value;
    assert!(other.delete_agent(principal, &a8).await.unwrap().value);
    assert!(!one.delete_agent(principal, &refused).await.unwrap().value);
    expected.extend([
        ("kill-switch", None, "conformance-audit-6"),
        ("kill-switch", None, "conformance-audit-7"),
        ("agent-deleted", Some(principal), "conformance-audit-8"),
    ]);

    let all = other.audit(&AuditQuery::new().since(start)).await.unwrap();
    let said = |all: &[AuditRecord]| -> Vec<(String, Option<String>, String)> {
        all.iter()
            .map(|r| {
                (
                    r.kind.as_str().to_owned(),
                    r.principal.clone(),
                    r.request_id.clone(),
                )
            })
            .collect()
    };
    let expected: Vec<(String, Option<String>, String)> = expected
        .iter()
        .map(|(kind, principal, id)| {
            (
                (*kind).to_owned(),
                principal.map(str::to_owned),
                (*id).to_owned(),
            )
        })
        .collect();
    if fixture.audit_order == AuditOrder::PerShard {
        // Each shard's records in order; then the whole in change order,
        // for the checks below.
        let shard = |kind: &str| match kind {
            "kill-switch" => 0,
            "token-granted" | "token-revoked" => 1,
            _ => 2,
        };
        let said = said(&all);
        for of in 0..3 {
            let within = |records: &[(String, Option<String>, String)]| {
                records
                    .iter()
                    .filter(|r| shard(&r.0) == of)
                    .cloned()
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                within(&said),
                within(&expected),
                "one record per change, in order within its shard, through either handle; none for a refused change or a write that changed nothing"
            );
        }
    }
    let mut last = start;
    for record in &all {
        assert!(
            record.seq > last,
            "records are numbered in the order of their changes: {} after {last}",
            record.seq
        );
        last = record.seq;
        assert_eq!(record.actor, "conformance-auditor", "the actor is kept");
        assert!(record.at > 0, "each record says when");
        let json = serde_json::to_string(record).unwrap();
        assert!(
            !json.contains(token),
            "no record holds a token, only its fingerprint: {json}"
        );
        let back: AuditRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, record, "a record's JSON form reads back as written");
    }
    // In the order of the changes, for the checks of each record below.
    let mut changes = all.clone();
    if fixture.audit_order == AuditOrder::PerShard {
        changes.sort_by_key(|record| {
            expected
                .iter()
                .position(|(_, _, id)| *id == record.request_id)
        });
    }
    assert_eq!(
        said(&changes),
        expected,
        "one record per change, in order, through either handle; none for a refused change or a write that changed nothing"
    );
    let (first_tools, second_tools) = (compiled_tools(&first), compiled_tools(&second));
    let states_of = |r: &AuditRecord| (r.before.clone(), r.after.clone());
    let tools_of = |r: &AuditRecord| (r.added.clone(), r.removed.clone());
    assert_eq!(
        states_of(&changes[0]),
        (Value::Null, states::profile(&first, Some(v1))),
        "a creation replaces nothing and makes the profile"
    );
    assert_eq!(
        tools_of(&changes[0]),
        (first_tools.clone(), Vec::new()),
        "a creation adds every tool of the profile"
    );
    assert_eq!(
        states_of(&changes[1]),
        (
            states::profile(&first, Some(v1)),
            states::profile(&second, Some(v2))
        ),
        "a replacement says the profiles and versions before and after"
    );
    assert_eq!(
        tools_of(&changes[1]),
        states::changed(&first_tools, &second_tools),
        "a replacement says the tools it added and removed"
    );
    assert_eq!(
        states_of(&changes[2]),
        (Value::Null, states::token(token, principal)),
        "a grant says the token's fingerprint and principal"
    );
    assert_eq!(
        states_of(&changes[3]),
        (states::token(token, principal), Value::Null),
        "a revocation says what the token named"
    );
    let n = all.len();
    let (kill_on, kill_off, deleted) = (&changes[n - 3], &changes[n - 2], &changes[n - 1]);
    if expected[4].0 == "catalog-put" {
        let catalog = &changes[4];
        assert_eq!(
            (&catalog.before, &catalog.after["version"]),
            (&states::catalog(None, Some(v2)), &Value::from(version)),
            "a first catalog replaces none and bumps the agent's version"
        );
        assert!(
            !catalog.added.is_empty()
                && catalog.removed.is_empty()
                && catalog.after["catalog"]["tools"] == catalog.added.len(),
            "a first catalog adds each of its tools: {catalog:?}"
        );
    }
    assert_eq!(
        states_of(kill_on),
        (
            states::kill_switch(&held, Some(held_version)),
            states::kill_switch(std::slice::from_ref(&tool), Some(killed.version))
        ),
        "the kill switch's record says the lists and versions"
    );
    assert!(
        kill_on.removed.contains(&tool) && !kill_on.added.contains(&tool),
        "killing a tool removes it: {kill_on:?}"
    );
    assert_eq!(
        (
            kill_off.after.clone(),
            kill_off.added.contains(&tool),
            kill_off.removed.clone()
        ),
        (
            states::kill_switch::<String>(&[], Some(off.version)),
            true,
            Vec::new()
        ),
        "turning the switch off gives the tool back"
    );
    assert_eq!(
        (states_of(deleted), tools_of(deleted)),
        (
            (states::deleted(&second, version, 0), Value::Null),
            (Vec::new(), second_tools.clone())
        ),
        "a deletion says what it removed"
    );

    let page = |query: AuditQuery| async move {
        let through_one = one.audit(&query).await.unwrap();
        let through_other = other.audit(&query).await.unwrap();
        assert_eq!(
            through_one, through_other,
            "both handles read the same page of {query:?}"
        );
        through_one
    };
    let seqs = |records: &[AuditRecord]| records.iter().map(|r| r.seq).collect::<Vec<_>>();
    let all_seqs = seqs(&all);
    let head = page(AuditQuery::new().since(start).with_limit(3)).await;
    assert_eq!(
        seqs(&head),
        all_seqs[..3],
        "a page holds its limit, oldest first"
    );
    let next = page(AuditQuery::new().since(head[2].seq).with_limit(3)).await;
    assert_eq!(
        seqs(&next),
        all_seqs[3..6],
        "the next page starts after the last"
    );
    let latest = page(AuditQuery::new().newest_first().with_limit(2)).await;
    assert_eq!(
        seqs(&latest),
        [all_seqs[n - 1], all_seqs[n - 2]],
        "newest first, the newest records"
    );
    let back = page(
        AuditQuery::new()
            .newest_first()
            .before(all_seqs[n - 1])
            .with_limit(1),
    )
    .await;
    assert_eq!(
        seqs(&back),
        [all_seqs[n - 2]],
        "paging back before a record"
    );
    let between = page(AuditQuery::new().since(all_seqs[0]).before(all_seqs[2])).await;
    assert_eq!(seqs(&between), [all_seqs[1]], "both bounds are exclusive");
    for (query, what) in [
        (AuditQuery::new().before(0), "before 0"),
        (
            AuditQuery::new().newest_first().before(0),
            "before 0, newest first",
        ),
        (AuditQuery::new().since(u64::MAX), "after the last number"),
    ] {
        assert!(page(query).await.is_empty(), "no record is {what}");
    }
    let of = page(AuditQuery::new().since(start).of(principal)).await;
    let of_principal: Vec<u64> = all
        .iter()
        .filter(|r| r.principal.as_deref() == Some(principal))
        .map(|r| r.seq)
        .collect();
    assert_eq!(
        seqs(&of),
        of_principal,
        "a principal's records, without the kill switch's"
    );
    let few = page(AuditQuery::new().since(start).of(principal).with_limit(2)).await;
    assert_eq!(
        seqs(&few),
        of_principal[..2],
        "a principal's page holds its limit"
    );
}

/// Waits until `condition` holds, polling; panics with `what` if it still
/// does not after [`ARRIVAL`].
async fn eventually<F, Fut>(what: &str, mut condition: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + ARRIVAL;
    while !condition().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: not within {ARRIVAL:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
