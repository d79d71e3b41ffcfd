//! Name presentation through the stores (`ProfileStore::with_presentation`):
//! every agent's sessions, over streamable HTTP with real rmcp clients,
//! list presented names and call tools by them or by their canonical
//! names; a catalog whose tools would collide under the presentation is
//! refused naming both, storing nothing and telling no session, in memory
//! and on Redis (before it is stored); a presentation colliding with an
//! agent the store holds is refused, renaming nobody.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use mcp_profiles::{Presentation, PresentationError};
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore, StoreError};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{CallOutcome, Session, http_transport, serve_agents};
use mcp_profiles_tests::contexts::{asking, names_of};
use mcp_profiles_tests::modern::{LIMIT, QUIET};
use mcp_profiles_tests::redis::RedisServer;
use mcp_profiles_tests::shadow::Shadow;

use crate::presentation::{catalog, echo, presented, questions};
use crate::redis_store::Instance;
use crate::store_catalogs::{decoder, wire};

/// A store taking the test's catalogs, listing names under [`questions`].
fn presenting() -> ProfileStore<TaskServer> {
    ProfileStore::default()
        .with_catalogs(decoder())
        .with_presentation(questions())
        .expect("collision-free over the task server")
}

/// `asking()`'s tools as presented, with the presented runtime tools
/// `extra` added, sorted.
fn listing(extra: &[&str]) -> Vec<String> {
    let mut names = presented(names_of(&asking()));
    names.extend(extra.iter().map(|name| (*name).to_owned()));
    names.sort();
    names
}

/// Whether `refusal` is the store's refusal of `ask_user` (a runtime tool)
/// for shadowing what `ask_user_question` is listed as, naming both.
fn refused_for_shadowing<T: std::fmt::Debug>(refusal: &Result<T, StoreError>) -> bool {
    matches!(
        refusal,
        Err(StoreError::InvalidCatalog(why))
            if why.contains("`ask_user_question`") && why.contains("`ask_user`")
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_presents_every_agents_names_and_refuses_a_colliding_catalog() {
    let store = MemoryStore::new(presenting());
    store.put_agent("alice", asking(), by()).await.unwrap();
    store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    let (http, uri) = serve_agents(store.profiles(), TaskServer::default()).await;
    let session = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    let listed = listing(&[]);
    assert!(listed.contains(&"ask_user".to_owned()), "{listed:?}");
    assert_eq!(session.tool_names().await, listed);
    // By the presented name and by the canonical one.
    assert_eq!(
        session.call("ask_user", None).await,
        CallOutcome::Ran(vec![])
    );
    assert_eq!(
        session.call("ask_user_question", None).await,
        CallOutcome::Ran(vec![])
    );

    // `ask_user` is what `ask_user_question` is listed as: refused, naming
    // both; the version, the stored catalog and the sessions are untouched.
    let refusal = store
        .put_catalog_if("alice", wire(1, &["ask_user"]), None, by())
        .await;
    assert!(refused_for_shadowing(&refusal), "{refusal:?}");
    let kept = store
        .catalog("alice")
        .await
        .unwrap()
        .expect("alice's agent");
    assert_eq!((kept.wire, kept.version), (None, 1));
    assert_eq!(store.profiles().version("alice"), Some(1));

    // A catalog that collides nowhere installs, listed by presented names.
    let change = store
        .put_catalog_if("alice", wire(2, &["poll_question"]), Some(1), by())
        .await
        .unwrap();
    assert_eq!((change.version, change.changed), (2, true));
    assert_eq!(change.tools, listing(&["poll"]));
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 1, "the refusal told a session");
    assert_eq!(session.tool_names().await, listing(&["poll"]));
    assert_eq!(
        session.call("poll", None).await,
        CallOutcome::Ran(vec!["ran poll_question".to_owned()])
    );
    drop(http);
}

#[test]
fn a_presentation_colliding_with_an_agent_held_is_refused_renaming_nobody() {
    let calls = Arc::new(AtomicUsize::new(0));
    let store = ProfileStore::<TaskServer>::default();
    let bob = store.add_agent("bob", asking());
    let alice = store.add_agent("alice", asking());
    // Installed before any presentation: `ask_user` is a name of its own.
    alice.install(&catalog(1, vec![echo("ask_user", &calls)]));
    let err = store.with_presentation(questions()).unwrap_err();
    assert_eq!(
        err,
        PresentationError::ShadowsTool {
            tool: "ask_user_question".into(),
            presented: "ask_user".into(),
        }
    );
    assert_eq!((alice.presentation(), bob.presentation()), (None, None));

    // Without the collision, the agents held are renamed too.
    let store = ProfileStore::<TaskServer>::default();
    let bob = store.add_agent("bob", asking());
    let store = store
        .with_presentation(questions())
        .expect("collision-free");
    assert_eq!(bob.presentation(), Some(questions()));
    assert_eq!(store.presentation(), Some(&questions()));

    // One colliding over the registry's own tools is refused, naming both.
    let ext = Presentation::strip_suffix("_ext").expect("a valid suffix");
    let err = ProfileStore::<Shadow>::default()
        .with_presentation(ext)
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("`lookup_ext`") && message.contains("`lookup`"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_refuses_a_colliding_catalog_before_storing_it() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(30);
    let a = Instance::start_over(&redis, grace, presenting()).await;
    let b = Instance::start_over(&redis, grace, presenting()).await;
    a.store.put_agent("alice", asking(), by()).await.unwrap();
    a.store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    let on_b = b.legacy("alice-token").await;
    assert_eq!(on_b.tool_names().await, listing(&[]));
    assert_eq!(on_b.call("ask_user", None).await, CallOutcome::Ran(vec![]));

    // Refused through either instance, before Redis keeps it.
    for instance in [&a, &b] {
        let refusal = instance
            .store
            .put_catalog_if("alice", wire(1, &["ask_user"]), None, by())
            .await;
        assert!(refused_for_shadowing(&refusal), "{refusal:?}");
    }
    let kept = b
        .store
        .catalog("alice")
        .await
        .unwrap()
        .expect("alice's agent");
    assert_eq!((kept.wire, kept.version), (None, 1));

    let change = a
        .store
        .put_catalog_if("alice", wire(2, &["poll_question"]), Some(1), by())
        .await
        .unwrap()
        .value;
    assert_eq!(change.tools, listing(&["poll"]));
    assert_eq!(on_b.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(on_b.tool_names().await, listing(&["poll"]));
    assert_eq!(
        on_b.call("poll", None).await,
        CallOutcome::Ran(vec!["ran poll_question".to_owned()])
    );

    // An instance that presents nothing stores what collides on b, which
    // serves the profile without that catalog (fail closed), telling its
    // session once.
    let plain = Instance::start_with(&redis, grace, Some(decoder())).await;
    plain
        .store
        .put_catalog_if("alice", wire(3, &["ask_user"]), None, by())
        .await
        .unwrap();
    assert_eq!(on_b.wait_for_notifications(2, LIMIT).await, 2);
    tokio::time::sleep(QUIET).await;
    assert_eq!(on_b.notifications(), 2);
    assert_eq!(on_b.tool_names().await, listing(&[]));
    // `ask_user` is still the compiled tool's presented name.
    assert_eq!(on_b.call("ask_user", None).await, CallOutcome::Ran(vec![]));
}
