//! Every stamped list says what it was decided under: the revision of the
//! profile in force and the digest of exactly what was listed, in `_meta`
//! under `mcp-profiles/exposure` (issue 44 §1).

use std::time::Duration;

use mcp_profiles::{DenyList, Exposure, ListDigest, ProfileController};
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{Session, http_transport, serve_agents, serve_duplex};
use mcp_profiles_tests::contexts::{asking, child};
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
    let store = std::sync::Arc::new(MemoryStore::new(
        ProfileStore::default().with_exposure_stamp(),
    ));
    store.put_agent("alice", asking(), by()).await.unwrap();
    // A removal and a new agent: versions go on from the removed one's.
    store.put_agent("alice", child(), by()).await.unwrap();
    store.delete_agent("alice", by()).await.unwrap();
    let again = store.put_agent("alice", asking(), by()).await.unwrap();
    store.profiles().grant("alice-token", "alice").unwrap();
    let version = again.value.agent.version;
    assert!(version > 2, "{version}");
    let (http, uri) = serve_agents(store.profiles(), TaskServer::default()).await;
    let session = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    assert_eq!(listed_exposure(&session).await.revision, version);
    let put = store.put_agent("alice", child(), by()).await.unwrap();
    session.wait_for_notifications(1, LIMIT).await;
    assert_eq!(put.value.agent.version, version + 1);
    assert_eq!(listed_exposure(&session).await.revision, version + 1);
    http.shutdown().await.unwrap();
}

/// An instance on `redis` whose agents' lists are stamped.
pub(crate) async fn stamped(redis: &RedisServer) -> Instance {
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
