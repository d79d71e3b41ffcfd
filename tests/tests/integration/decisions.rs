//! The decision log: every call decision of a store's agents, and the
//! verifier that proves it agrees with the audit trail (issue 44 §1, §3).

use mcp_profiles_serve::audit::decisions::{DecisionLog, DecisionRecord};
use mcp_profiles_serve::exposure::past::Trail;
use mcp_profiles_serve::exposure::verify::verify;
use mcp_profiles_serve::{AgentStore, ProfileStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{Session, http_transport, refused, serve_agents};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::waits::LIMIT;

/// A store whose agents' call decisions are kept, every one.
fn logging() -> (
    std::sync::Arc<ProfileStore<TaskServer>>,
    std::sync::Arc<DecisionLog>,
) {
    let log = std::sync::Arc::new(DecisionLog::new(10_000));
    let store = ProfileStore::default().with_decision_log(std::sync::Arc::clone(&log));
    (std::sync::Arc::new(store), log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_decision_is_logged_and_the_log_agrees_with_the_trail() {
    let (store, log) = logging();
    let first = store.put_agent("alice", asking(), by()).await.unwrap();
    store.grant("alice-token", "alice").unwrap();
    let (http, uri) = serve_agents(&store, TaskServer::default()).await;
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

    let trail = Trail::<TaskServer>::read(&store).await.unwrap();
    let verdict = verify(&trail, &log.records());
    assert!(verdict.holds(), "{verdict:?}");
    assert_eq!((verdict.judged, verdict.unjudged), (5, 0));
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verifier_names_a_planted_mismatch() {
    let store = std::sync::Arc::new(ProfileStore::<TaskServer>::default());
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
