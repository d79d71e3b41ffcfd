//! What a principal could reach at a past time or revision, rebuilt from
//! the audit trail alone, through the library and the control API (issue
//! 44 §2).

use std::time::Duration;

use mcp_profiles_serve::audit::AuditQuery;
use mcp_profiles_serve::exposure::past::{Moment, PastError, PastExposure, exposure_at};
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::redis::RedisServer;

use crate::exposure::stamped;

/// Asks `store`'s audit trail what alice could reach at `moment`.
async fn alice_at(
    store: &(impl AgentStore<TaskServer> + ?Sized),
    moment: Moment,
) -> PastExposure<TaskServer> {
    exposure_at(store, "alice", moment)
        .await
        .unwrap_or_else(|error| panic!("{moment:?}: {error}"))
}

/// The `at` of the newest record in `store`'s trail.
async fn newest_at(store: &(impl AgentStore<TaskServer> + ?Sized)) -> u64 {
    let newest = store
        .audit(&AuditQuery::new().newest_first().with_limit(1))
        .await
        .unwrap();
    newest[0].at
}

/// Alice's history, written through `store` a few milliseconds apart (so
/// times tell changes apart), then asked back at each revision and at the
/// time of each change.
async fn history_is_told_back(store: &(impl AgentStore<TaskServer> + ?Sized)) {
    let pause = || tokio::time::sleep(Duration::from_millis(3));
    let v1 = store.put_agent("alice", asking(), by()).await.unwrap();
    let v1 = v1.value.agent.version;
    pause().await;
    let asked = newest_at(store).await;
    let v2 = store.put_agent("alice", child(), by()).await.unwrap();
    let v2 = v2.value.agent.version;
    pause().await;
    let kill = vec!["ask_parent_question".to_owned()];
    store.put_kill_switch_if(&kill, None, by()).await.unwrap();
    let killed_at = newest_at(store).await;
    pause().await;
    store.delete_agent("alice", by()).await.unwrap();
    let deleted_at = newest_at(store).await;

    // By revision: the context and version that change made.
    let first = alice_at(store, Moment::Revision(v1)).await;
    assert_eq!(first.agent, Some((asking(), v1)));
    assert_eq!(first.tools(), names_of(&asking()));
    assert_eq!(first.kill_switch, (vec![], 0));
    let second = alice_at(store, Moment::Revision(v2)).await;
    assert_eq!(second.agent, Some((child(), v2)));

    // By time: before the second put, the first; once the switch is on,
    // the child without the tool it kills; after the deletion, nothing.
    assert_eq!(
        alice_at(store, Moment::At(asked)).await.agent,
        Some((asking(), v1))
    );
    let killed = alice_at(store, Moment::At(killed_at)).await;
    assert_eq!(killed.agent, Some((child(), v2)));
    assert_eq!(killed.kill_switch.0, kill);
    let mut expected = names_of(&child());
    expected.retain(|tool| tool != "ask_parent_question");
    assert_eq!(killed.tools(), expected);
    let explained = killed.explain().unwrap();
    assert!(
        explained
            .removed()
            .iter()
            .any(|removed| removed.tool() == "ask_parent_question")
    );
    assert_eq!(alice_at(store, Moment::At(deleted_at)).await.agent, None);
    // Before any record: the first put's `before`, no agent.
    assert_eq!(alice_at(store, Moment::At(0)).await.agent, None);
    assert!(matches!(
        exposure_at(store, "alice", Moment::Revision(99)).await,
        Err(PastError::NoSuchRevision { revision: 99, .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_past_is_told_back_from_the_in_memory_trail() {
    history_is_told_back(&MemoryStore::<TaskServer>::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_past_is_told_back_from_the_redis_trail() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let instance = stamped(&redis).await;
    history_is_told_back(&instance.store).await;
    instance.http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trimmed_trail_says_it_cannot_tell() {
    let store = std::sync::Arc::new(MemoryStore::<TaskServer>::default().with_audit_capacity(2));
    store.put_agent("alice", asking(), by()).await.unwrap();
    for principal in ["bob", "carol"] {
        store.put_agent(principal, asking(), by()).await.unwrap();
    }
    // Alice's only record was trimmed: her agent cannot be told.
    let error = exposure_at(&store, "alice", Moment::At(u64::MAX))
        .await
        .unwrap_err();
    assert!(matches!(error, PastError::NotInTrail(_)), "{error}");
    assert_eq!(
        error.to_string(),
        "the audit trail holds no record of the principal's agent and was trimmed, so it cannot tell"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_control_api_answers_what_an_agent_could_reach_then() {
    use mcp_profiles_serve::control::ControlApi;
    use mcp_profiles_serve::http::Serve;
    use serde_json::{Value, json};

    let profiles = std::sync::Arc::new(ProfileStore::<TaskServer>::default());
    let store: std::sync::Arc<dyn AgentStore<TaskServer>> =
        std::sync::Arc::new(MemoryStore::new(std::sync::Arc::clone(&profiles)));
    let (router, document) = ControlApi::new(std::sync::Arc::clone(&store), "secret").described();
    assert!(document["paths"]["/api/v1/agents/{principal}/exposure"]["get"].is_object());
    let control = Serve::on("127.0.0.1:0".parse().unwrap())
        .app(router)
        .await
        .unwrap();
    let get = |query: &str| {
        let url = format!(
            "http://{}/api/v1/agents/alice/exposure?{query}",
            control.local_addr()
        );
        async move {
            let answer = reqwest::Client::new()
                .get(url)
                .bearer_auth("secret")
                .send()
                .await
                .unwrap();
            let status = answer.status().as_u16();
            (status, answer.json::<Value>().await.unwrap())
        }
    };
    let first = store.put_agent("alice", asking(), by()).await.unwrap();
    store.put_agent("alice", child(), by()).await.unwrap();

    let (status, answer) = get(&format!("revision={}", first.value.agent.version)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["principal"], "alice");
    assert_eq!(
        answer["agent"]["profile"],
        serde_json::from_str::<Value>(&asking().to_json()).unwrap()
    );
    assert_eq!(answer["tools"], json!(names_of(&asking())));
    assert_eq!(answer["kill_switch"], json!({"deny": [], "version": 0}));
    assert_eq!(answer["evidence"], json!([1]));

    let (status, answer) = get("at=0").await;
    assert_eq!((status, &answer["agent"]), (200, &Value::Null), "{answer}");

    let (status, answer) = get("revision=99").await;
    assert_eq!((status, answer["code"].as_str()), (404, Some("not-found")));
    assert_eq!(
        answer["error"],
        "no record in the audit trail made revision 99 of `alice`'s agent"
    );
    let (status, answer) = get("at=1&revision=1").await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (400, Some("invalid-request"))
    );
    control.shutdown().await.unwrap();
}
