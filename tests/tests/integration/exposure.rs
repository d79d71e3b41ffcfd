//! Every stamped list says what it was decided under: the revision of the
//! profile in force and the digest of exactly what was listed, in `_meta`
//! under `mcp-profiles/exposure` (issue 44 §1).

use std::time::Duration;

use mcp_profiles::{DenyList, Exposure, ListDigest, ProfileController};
use mcp_profiles_serve::audit::AuditQuery;
use mcp_profiles_serve::audit::decisions::{DecisionLog, DecisionRecord};
use mcp_profiles_serve::audit::past::{Moment, PastError, PastExposure, Trail, exposure_at};
use mcp_profiles_serve::audit::verify::verify;
use mcp_profiles_serve::{AgentStore, ProfileStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{Session, http_transport, serve_agents, serve_duplex};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::library::{Library, desk};
use mcp_profiles_tests::redis::RedisServer;
use mcp_profiles_tests::waits::LIMIT;

use crate::redis_store::Instance;

/// What `session`'s `tools/list` says it was decided under, checked
/// against what it listed.
async fn listed_exposure(session: &Session) -> Exposure {
    let listed = session
        .service
        .list_tools(None)
        .await
        .expect("tools/list succeeds");
    let meta = listed.meta.as_ref().expect("a stamped list has _meta");
    let exposure = Exposure::from_meta(meta).expect("the _meta names an exposure");
    assert_eq!(
        exposure.digest,
        ListDigest::of(&listed.tools),
        "the digest is of exactly what was listed"
    );
    exposure
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stamped_list_names_its_revision_and_the_digest_of_what_it_listed() {
    let controller = ProfileController::new(asking()).with_exposure_stamp();
    let session = Session::connect(serve_duplex(controller.server(TaskServer::default()))).await;

    let first = listed_exposure(&session).await;
    assert_eq!(first.revision, 1);
    assert_eq!(first, controller.exposure());

    controller.replace(child());
    session.wait_for_notifications(1, LIMIT).await;
    let second = listed_exposure(&session).await;
    assert_eq!(second.revision, 2);
    assert_ne!(second.digest, first.digest);

    // The same tools again: a new revision, the same digest.
    controller.replace(asking());
    session.wait_for_notifications(2, LIMIT).await;
    let third = listed_exposure(&session).await;
    assert_eq!(third.revision, 3);
    assert_eq!(third.digest, first.digest);

    // The kill switch changes what is listed, not the profile's revision.
    controller
        .kill_switch()
        .set(DenyList::new(["ask_user_question"]).unwrap());
    session.wait_for_notifications(3, LIMIT).await;
    let killed = listed_exposure(&session).await;
    assert_eq!(killed.revision, 3);
    assert_ne!(killed.digest, third.digest);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unstamped_list_carries_no_meta_and_a_stamp_can_be_turned_off() {
    let controller = ProfileController::new(asking());
    let session = Session::connect(serve_duplex(controller.server(TaskServer::default()))).await;
    let listed = session.service.list_tools(None).await.unwrap();
    assert_eq!(listed.meta, None);

    controller.set_exposure_stamp(true);
    assert!(
        session
            .service
            .list_tools(None)
            .await
            .unwrap()
            .meta
            .is_some()
    );
    controller.set_exposure_stamp(false);
    assert_eq!(session.service.list_tools(None).await.unwrap().meta, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_and_resource_lists_are_stamped_too() {
    let controller = ProfileController::<Library>::new(desk()).with_exposure_stamp();
    let session = Session::connect(serve_duplex(controller.server(Library::default()))).await;
    let prompts = session.service.list_prompts(None).await.unwrap();
    let exposure = Exposure::from_meta(prompts.meta.as_ref().unwrap()).unwrap();
    assert_eq!(exposure.digest, ListDigest::of(&prompts.prompts));
    assert_eq!(exposure.revision, 1);
    let resources = session.service.list_resources(None).await.unwrap();
    let exposure = Exposure::from_meta(resources.meta.as_ref().unwrap()).unwrap();
    assert_eq!(exposure.digest, ListDigest::of(&resources.resources));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_of_a_store_is_listed_at_its_version() {
    let store = std::sync::Arc::new(ProfileStore::default().with_exposure_stamp());
    store.put_agent("alice", asking(), by()).await.unwrap();
    // A removal and a new agent: versions go on from the removed one's.
    store.put_agent("alice", child(), by()).await.unwrap();
    store.delete_agent("alice", by()).await.unwrap();
    let again = store.put_agent("alice", asking(), by()).await.unwrap();
    store.grant("alice-token", "alice").unwrap();
    let version = again.value.agent.version;
    assert!(version > 2, "{version}");
    let (http, uri) = serve_agents(&store, TaskServer::default()).await;
    let session = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    assert_eq!(listed_exposure(&session).await.revision, version);
    let put = store.put_agent("alice", child(), by()).await.unwrap();
    session.wait_for_notifications(1, LIMIT).await;
    assert_eq!(put.value.agent.version, version + 1);
    assert_eq!(listed_exposure(&session).await.revision, version + 1);
    http.shutdown().await.unwrap();
}

/// An instance on `redis` whose agents' lists are stamped.
async fn stamped(redis: &RedisServer) -> Instance {
    let profiles = ProfileStore::default().with_exposure_stamp();
    Instance::start_over(redis, Duration::from_secs(5), profiles).await
}

/// What `session` lists once its revision is `revision` (waiting for the
/// change to reach its instance).
async fn listed_at(session: &Session, revision: u64) -> Exposure {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let exposure = listed_exposure(session).await;
        if exposure.revision == revision || tokio::time::Instant::now() > deadline {
            return exposure;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_on_redis_agree_on_the_revision_and_the_digest() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (stamped(&redis).await, stamped(&redis).await);
    let put = a.store.put_agent("alice", asking(), by()).await.unwrap();
    a.store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    let (on_a, on_b) = (a.legacy("alice-token").await, b.legacy("alice-token").await);

    let version = put.value.agent.version;
    let (first_a, first_b) = (
        listed_at(&on_a, version).await,
        listed_at(&on_b, version).await,
    );
    assert_eq!(
        first_a.revision, version,
        "the revision is the store's version"
    );
    assert_eq!(first_a, first_b);

    // Changed through the other instance: both name its new version.
    let put = b.store.put_agent("alice", child(), by()).await.unwrap();
    let version = put.value.agent.version;
    let (second_a, second_b) = (
        listed_at(&on_a, version).await,
        listed_at(&on_b, version).await,
    );
    assert_eq!(second_a.revision, version);
    assert_eq!(second_a, second_b);
    assert_ne!(second_a.digest, first_a.digest);
    for instance in [a, b] {
        instance.http.shutdown().await.unwrap();
    }
}

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
    history_is_told_back(&std::sync::Arc::new(ProfileStore::<TaskServer>::default())).await;
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
    let store = std::sync::Arc::new(ProfileStore::<TaskServer>::default().with_audit_capacity(2));
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
        std::sync::Arc::new(std::sync::Arc::clone(&profiles));
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
    use mcp_profiles_tests::client::refused;
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
