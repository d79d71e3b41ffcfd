//! The decision log: every call decision of a store's agents, and the
//! verifier that proves it agrees with the audit trail (issue 44 §1, §3).

use std::sync::Arc;
use std::time::Duration;

use mcp_profiles_serve::audit::AuditQuery;
use mcp_profiles_serve::audit::decisions::{DecisionLog, DecisionRecord};
use mcp_profiles_serve::exposure::past::Trail;
use mcp_profiles_serve::exposure::verify::{read_decisions, verify};
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore, StoreError};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{Session, http_transport, refused, serve_agents};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::redis::RedisServer;
use mcp_profiles_tests::waits::LIMIT;

use crate::redis_store::Instance;

/// A store whose agents' call decisions are kept, every one.
fn logging() -> (MemoryStore<TaskServer>, Arc<DecisionLog>) {
    let log = Arc::new(DecisionLog::new(10_000));
    let store = ProfileStore::default().with_decision_log(Arc::clone(&log));
    (MemoryStore::new(store), log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_decision_is_logged_and_the_log_agrees_with_the_trail() {
    let (store, log) = logging();
    let first = store.put_agent("alice", asking(), by()).await.unwrap();
    store.profiles().grant("alice-token", "alice").unwrap();
    let (http, uri) = serve_agents(store.profiles(), TaskServer::default()).await;
    let session = Session::connect(http_transport(&uri, Some("alice-token"))).await;

    // Allowed, then refused as outside the profile, under revision 1.
    session.call("ask_user_question", None).await;
    assert_eq!(
        session.call("ask_parent_question", None).await,
        refused("ask_parent_question")
    );
    // A new revision: the other way round; then the kill switch.
    let second = store.put_agent("alice", child(), by()).await.unwrap();
    session.wait_for_notifications(1, LIMIT).await;
    session.call("ask_parent_question", None).await;
    session.call("ask_user_question", None).await;
    let kill = vec!["ask_parent_question".to_owned()];
    store.put_kill_switch_if(&kill, None, by()).await.unwrap();
    session.wait_for_notifications(2, LIMIT).await;
    session.call("ask_parent_question", None).await;

    let decided: Vec<(String, u64, Option<String>)> = log
        .records()
        .into_iter()
        .map(|record| {
            assert_eq!(record.principal.as_deref(), Some("alice"));
            (record.tool, record.revision, record.reason)
        })
        .collect();
    let (v1, v2) = (first.value.agent.version, second.value.agent.version);
    let owned = |tool: &str, revision, reason: Option<&str>| {
        (tool.to_owned(), revision, reason.map(str::to_owned))
    };
    assert_eq!(
        decided,
        [
            owned("ask_user_question", v1, None),
            owned("ask_parent_question", v1, Some("not_in_profile")),
            owned("ask_parent_question", v2, None),
            owned("ask_user_question", v2, Some("not_in_profile")),
            owned("ask_parent_question", v2, Some("kill_switch")),
        ]
    );

    // In memory the log is the store's.
    assert_eq!(read_decisions(&store).await.unwrap(), log.records());
    let trail = Trail::<TaskServer>::read(&store).await.unwrap();
    let verdict = verify(&trail, &log.records());
    assert!(verdict.holds(), "{verdict:?}");
    assert_eq!((verdict.judged, verdict.unjudged), (5, 0));
    http.shutdown().await.unwrap();
}

/// What two gateways on one Redis decided is one log in Redis, shipped off
/// the call path, numbered there, read back whole or by principal, and
/// kept to ship again while Redis is away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_on_redis_ship_their_decisions_to_one_log() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let logs = [
        Arc::new(DecisionLog::new(100)),
        Arc::new(DecisionLog::new(100)),
    ];
    let grace = Duration::from_secs(60);
    let logged =
        |log: &Arc<DecisionLog>| ProfileStore::default().with_decision_log(Arc::clone(log));
    let a = Instance::start_over(&redis, grace, logged(&logs[0])).await;
    let b = Instance::start_over(&redis, grace, logged(&logs[1])).await;
    let put = a.store.put_agent("alice", asking(), by()).await.unwrap();
    a.store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    let v1 = put.value.agent.version;
    let (on_a, on_b) = (a.legacy("alice-token").await, b.legacy("alice-token").await);
    on_a.call("ask_user_question", None).await;
    on_b.call("ask_parent_question", None).await;
    on_b.call("ask_user_question", None).await;

    for instance in [&a, &b] {
        instance.store.decisions_written().await.unwrap();
    }
    let shipped = read_decisions(&b.store).await.unwrap();
    assert_eq!(read_decisions(&a.store).await.unwrap(), shipped);
    let mut decided: Vec<(&str, u64, Option<&str>)> = shipped
        .iter()
        .map(|record| {
            (
                record.tool.as_str(),
                record.revision,
                record.reason.as_deref(),
            )
        })
        .collect();
    decided.sort();
    assert_eq!(
        decided,
        [
            ("ask_parent_question", v1, Some("not_in_profile")),
            ("ask_user_question", v1, None),
            ("ask_user_question", v1, None),
        ]
    );
    let seqs: Vec<u64> = shipped.iter().map(|record| record.seq).collect();
    assert_eq!(seqs, [1, 2, 3], "numbered by the store, in order");
    let page = AuditQuery::new().of("alice").since(1).with_limit(1);
    assert_eq!(a.store.decisions(&page).await.unwrap(), shipped[1..2]);
    let trail = Trail::<TaskServer>::read(&a.store).await.unwrap();
    let verdict = verify(&trail, &shipped);
    assert!(verdict.holds(), "{verdict:?}");
    assert_eq!((verdict.judged, verdict.unjudged), (3, 0));

    // Redis away: served within its grace, the decision kept, not lost.
    redis.kill();
    on_a.call("ask_user_question", None).await;
    let away = a.store.decisions_written().await;
    assert!(matches!(away, Err(StoreError::Unavailable(_))), "{away:?}");
    redis.restart();
    // Each connection finds Redis gone at its first command after the
    // restart, and reconnects: the kept decision goes with the first that
    // reaches it.
    let reconnected = async {
        while a.store.decisions_written().await.is_err() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        loop {
            match read_decisions(&b.store).await {
                Ok(after) => return after,
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    };
    let after = tokio::time::timeout(LIMIT, reconnected)
        .await
        .expect("the kept decision is shipped once Redis is back");
    assert_eq!(after[..3], shipped[..]);
    assert_eq!(
        (after.len(), after[3].tool.as_str(), after[3].seq),
        (4, "ask_user_question", 4)
    );
    assert_eq!(logs[0].dropped(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verifier_names_a_planted_mismatch() {
    let store = MemoryStore::<TaskServer>::default();
    let put = store.put_agent("alice", asking(), by()).await.unwrap();
    let v1 = put.value.agent.version;
    let trail = Trail::<TaskServer>::read(&store).await.unwrap();
    let honest = DecisionRecord::new(1, 0, Some("alice"), "ask_user_question", v1, None);
    // Planted: a call allowed of a tool the profile did not serve.
    let planted = DecisionRecord::new(2, 0, Some("alice"), "ask_parent_question", v1, None);
    let hidden = DecisionRecord::new(
        3,
        0,
        Some("alice"),
        "ask_parent_question",
        v1,
        Some("not_in_profile"),
    );
    let never = DecisionRecord::new(4, 0, Some("alice"), "ask_user_question", 99, None);
    let decisions = [honest, planted.clone(), hidden, never];
    let verdict = verify(&trail, &decisions);
    assert_eq!((verdict.judged, verdict.mismatches), (4, 2), "{verdict:?}");
    let (first, why) = verdict.first.unwrap();
    assert_eq!(first, planted);
    assert_eq!(
        why,
        format!(
            "allowed, but not in the profile at revision {v1} of `alice`'s agent ({} tools)",
            names_of(&asking()).len()
        )
    );
}
