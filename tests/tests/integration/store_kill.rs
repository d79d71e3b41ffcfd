//! The operator's kill switch through the serving crate's stores, with real
//! rmcp clients over streamable HTTP: a `ProfileStore` applies each version
//! once (a repeated or older one changes nothing), agents added later start
//! under it; a Redis instance loads it before serving, catches up on one
//! put while it was off the feed, and skips names a newer build stored.
//! The Redis test is skipped, saying so, without `redis-server`.

use std::sync::Arc;
use std::time::Duration;

use mcp_profiles::DenyList;
use mcp_profiles_serve::{
    AgentStore, Apply, KillSwitchOutcome, MemoryStore, ProfileStore, StoredKillSwitch,
};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{CallOutcome, Session, disabled, http_transport, serve_agents};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::modern::{LIMIT, QUIET};
use mcp_profiles_tests::redis::RedisServer;

use crate::redis_store::Instance;

/// The tool killed: alice's profile (asking) has it, bob's (child) not.
const KILLED: &str = "ask_user_question";

/// `asking()`'s tools without [`KILLED`].
fn asking_without_killed() -> Vec<String> {
    let mut names = names_of(&asking());
    names.retain(|name| name != KILLED);
    names
}

/// Exactly `n` list_changed on `session` so far, and no more after a pause.
async fn heard(session: &Session, n: usize) {
    assert_eq!(session.wait_for_notifications(n, LIMIT).await, n);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), n, "a second list_changed arrived");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_store_applies_each_kill_switch_version_once() {
    let store = Arc::new(ProfileStore::<TaskServer>::default());
    store.add_agent("alice", asking());
    store.add_agent("bob", child());
    store.grant("alice-token", "alice").unwrap();
    store.grant("bob-token", "bob").unwrap();
    let (http, uri) = serve_agents(&store, TaskServer::default()).await;
    let alice = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    let bob = Session::connect(http_transport(&uri, Some("bob-token"))).await;
    assert_eq!(alice.call(KILLED, None).await, CallOutcome::Ran(vec![]));

    let killed = DenyList::new([KILLED]).unwrap();
    let KillSwitchOutcome::Applied(change) = store.apply_kill_switch(killed, 1, Apply::IfServed)
    else {
        panic!("version 1 is newer than 0");
    };
    assert_eq!(
        (change.replacements.len(), change.unchanged),
        (1, 1),
        "only alice's agent changed"
    );
    assert_eq!(change.replacements[0].diff.removed, [KILLED]);
    heard(&alice, 1).await;
    assert_eq!(bob.notifications(), 0);
    assert_eq!(alice.tool_names().await, asking_without_killed());
    assert_eq!(bob.tool_names().await, names_of(&child()));
    assert_eq!(alice.call(KILLED, None).await, disabled(KILLED));
    assert_eq!((store.killed(), store.kill_switch_version()), (killed, 1));

    // A feed message again, or an older one: nothing changes, nobody hears.
    for (version, list) in [(1, DenyList::empty()), (0, DenyList::empty()), (1, killed)] {
        let outcome = store.apply_kill_switch(list, version, Apply::IfServed);
        assert!(
            matches!(outcome, KillSwitchOutcome::Stale { held: 1 }),
            "{outcome:?}"
        );
    }
    tokio::time::sleep(QUIET).await;
    assert_eq!((alice.notifications(), bob.notifications()), (1, 0));
    assert_eq!(store.killed(), killed);

    // An agent added now starts under the switch.
    let carol = store.add_agent("carol", asking());
    assert!(!carol.current().tool_names().contains(&KILLED));

    // Off through the store seam, as a compare-and-set on version 1.
    let agents = MemoryStore::new(Arc::clone(&store));
    let stale = agents.put_kill_switch_if(&[], Some(0), by()).await;
    assert!(stale.is_err(), "{stale:?}");
    let off = agents
        .put_kill_switch_if(&[], Some(1), by())
        .await
        .unwrap()
        .value;
    assert_eq!(off, StoredKillSwitch::new(Vec::new(), 2));
    heard(&alice, 2).await;
    assert_eq!(bob.notifications(), 0);
    assert_eq!(alice.tool_names().await, names_of(&asking()));
    assert_eq!(alice.call(KILLED, None).await, CallOutcome::Ran(vec![]));

    // After a reconnect a shared store's word goes, older version or not.
    let reset = store.apply_kill_switch(killed, 1, Apply::Reset);
    assert!(reset.applied(), "{reset:?}");
    heard(&alice, 3).await;
    assert_eq!(store.kill_switch_version(), 1);
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_instance_loads_the_kill_switch_catches_up_and_skips_unknown_names() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(30);
    let a = Instance::start(&redis, grace).await;
    a.store.put_agent("alice", asking(), by()).await.unwrap();
    a.store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    let put = a
        .store
        .put_kill_switch_if(&[KILLED.to_owned()], Some(0), by())
        .await
        .unwrap()
        .value;
    assert_eq!(put, StoredKillSwitch::new(vec![KILLED.to_owned()], 1));
    assert_eq!(
        redis.query(&["HGETALL", "mcp-profiles:kill"]),
        [
            "version",
            "1",
            "names",
            r#"["ask_user_question"]"#,
            // What the audit trail's next record diffs against.
            "tools",
            r#"["ask_user_question"]"#
        ]
    );

    // An instance started now loads it before it serves.
    let b = Instance::start(&redis, grace).await;
    assert_eq!(
        (
            b.store.profiles().killed(),
            b.store.profiles().kill_switch_version()
        ),
        (DenyList::new([KILLED]).unwrap(), 1)
    );
    let on_b = b.legacy("alice-token").await;
    assert_eq!(on_b.tool_names().await, asking_without_killed());
    assert_eq!(on_b.call(KILLED, None).await, disabled(KILLED));

    // Off while b is off the feed: b's reload catches up, one notification.
    let dropped = redis.command(&["CLIENT", "KILL", "TYPE", "pubsub"]);
    assert!(dropped.starts_with(':'), "{dropped}");
    a.store
        .put_kill_switch_if(&[], Some(1), by())
        .await
        .unwrap();
    heard(&on_b, 1).await;
    assert_eq!(on_b.tool_names().await, names_of(&asking()));
    assert_eq!(b.store.profiles().kill_switch_version(), 2);

    // A newer build stored a name this one does not know: it is skipped,
    // the names it knows still kill, on the feed and on connecting.
    let names = r#"["from_a_newer_build","ask_user_question"]"#;
    redis.command(&["HSET", "mcp-profiles:kill", "names", names, "version", "3"]);
    let message = format!(r#"{{"kind":"kill","version":3,"names":{names}}}"#);
    for _ in 0..2 {
        // The second time is a repeat: stale, nothing changes.
        redis.command(&["PUBLISH", "mcp-profiles:changes", &message]);
    }
    heard(&on_b, 2).await;
    assert_eq!(on_b.tool_names().await, asking_without_killed());
    let c = Instance::start(&redis, grace).await;
    assert_eq!(
        (
            c.store.profiles().killed(),
            c.store.profiles().kill_switch_version()
        ),
        (DenyList::new([KILLED]).unwrap(), 3)
    );
    let on_c = c.legacy("alice-token").await;
    assert_eq!(on_c.call(KILLED, None).await, disabled(KILLED));
    let stored = c.store.kill_switch().await.unwrap().unwrap();
    assert_eq!(
        stored,
        StoredKillSwitch::new(vec!["from_a_newer_build".to_owned(), KILLED.to_owned()], 3),
        "the store reads back what is stored, unknown names included"
    );
}
