//! An acknowledgement that holds on every instance: after a change,
//! `AgentStore::propagated` answers once every live instance sharing the
//! store applies it, names the ones that do not confirm, and stops waiting
//! for one whose presence lapsed. On one real `redis-server` and on a
//! real six-node cluster; skipped, saying so, without `redis-server`.

use std::time::Duration;

use mcp_profiles_serve::{AgentStore, Changed, RedisOptions, StoreError};
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{disabled, refused};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::modern::{LIMIT, QUIET};
use mcp_profiles_tests::redis::RedisServer;
use mcp_profiles_tests::redis_cluster::RedisCluster;

use crate::redis_store::{Instance, Sessions, alice_and_bob};

/// The set of live instances under the default prefix, on one Redis.
const INSTANCES: &str = "mcp-profiles:instances";

async fn named(url: &str, name: &str, grace: Duration, wait: Option<Duration>) -> Instance {
    let mut options = RedisOptions::default()
        .with_grace(grace)
        .with_instance_name(name);
    if let Some(wait) = wait {
        options = options.with_propagation_wait(wait);
    }
    Instance::connect(url, options, None).await
}

/// Through each instance in turn, a profile put, the kill switch and a
/// revocation are in force on every instance once `propagated` says so, as
/// a client sees it there at once, with no waiting: each instance's live
/// session lists the new set and gets the exact refusal for a tool the
/// change removed; a revoked token is refused with its challenge and its
/// open stream ends; and a refused change leaves every version as it was
/// and every session silent.
pub(crate) async fn each_change_is_in_force_everywhere_once_propagated(instances: &[Instance]) {
    alice_and_bob(&instances[0].store).await;
    let mut alice = Vec::new();
    let mut bob = Vec::new();
    for instance in instances {
        alice.push(instance.legacy("alice-token").await);
        bob.push(Sessions::open(instance, "bob-token").await);
    }
    let everyone = instances.len();
    let rounds = 12;
    let mut current = asking();
    for round in 0..rounds {
        let maker = &instances[round % everyone].store;
        let context = if round % 2 == 0 { child() } else { asking() };
        let change = maker.put_agent("alice", context, by()).await.unwrap().value;
        let propagation = maker.propagated(Changed::Agent("alice")).await.unwrap();
        assert_eq!(propagation.applied, everyone, "{propagation:?}");
        assert!(propagation.is_complete(), "{propagation:?}");
        let now = names_of(&context);
        let gone = names_of(&current)
            .into_iter()
            .find(|name| !now.contains(name))
            .expect("each round removes a tool");
        for (instance, session) in instances.iter().zip(&alice) {
            assert_eq!(
                instance.store.profiles().version("alice"),
                Some(change.agent.version)
            );
            assert_eq!(session.tool_names().await, now, "round {round}");
            assert_eq!(
                session.call(&gone, None).await,
                refused(&gone),
                "round {round}"
            );
        }
        current = context;
    }
    for session in &alice {
        assert_eq!(session.wait_for_notifications(rounds, LIMIT).await, rounds);
    }

    // A refused change: a compare-and-set on a stale version.
    let before = instances[0].store.profiles().version("alice");
    let stale = instances[1 % everyone]
        .store
        .put_agent_if("alice", child(), Some(1), by())
        .await;
    assert!(
        matches!(&stale, Err(StoreError::Conflict { .. })),
        "{:?}",
        stale.map(|_| ())
    );
    tokio::time::sleep(QUIET).await;
    for (instance, session) in instances.iter().zip(&alice) {
        assert_eq!(instance.store.profiles().version("alice"), before);
        assert_eq!(
            session.notifications(),
            rounds,
            "a refused change is silent"
        );
        assert_eq!(session.tool_names().await, names_of(&current));
    }

    let maker = &instances[1 % everyone].store;
    let killed = maker
        .put_kill_switch_if(&["ask_user_question".to_owned()], None, by())
        .await
        .unwrap()
        .value;
    let propagation = maker.propagated(Changed::KillSwitch).await.unwrap();
    assert!(propagation.is_complete(), "{propagation:?}");
    let mut spared = names_of(&current);
    spared.retain(|name| name != "ask_user_question");
    for (instance, session) in instances.iter().zip(&alice) {
        assert_eq!(
            instance.store.profiles().kill_switch_version(),
            killed.version
        );
        assert_eq!(session.tool_names().await, spared);
        assert_eq!(
            session.call("ask_user_question", None).await,
            disabled("ask_user_question")
        );
    }
    // Bob lists it too: his sessions heard of it once.
    for sessions in &mut bob {
        sessions.expect_one_more(1).await;
    }

    let maker = &instances[everyone - 1].store;
    assert!(maker.revoke_token("bob-token", by()).await.unwrap().value);
    let propagation = maker.propagated(Changed::Token("bob-token")).await.unwrap();
    assert!(propagation.is_complete(), "{propagation:?}");
    for (instance, sessions) in instances.iter().zip(&mut bob) {
        let (status, challenge) = instance.refusal("bob-token").await;
        assert_eq!((status, challenge.as_deref()), (401, Some("Bearer")));
        sessions.expect_ended().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_change_is_in_force_on_every_instance_once_propagated() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(5);
    let mut instances = Vec::new();
    for name in ["gw-a", "gw-b", "gw-c"] {
        instances.push(named(&redis.url(), name, grace, None).await);
    }
    let mut live = redis.query(&["ZRANGE", INSTANCES, "0", "-1"]);
    live.sort();
    assert_eq!(live, ["gw-a", "gw-b", "gw-c"]);
    each_change_is_in_force_everywhere_once_propagated(&instances).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_that_does_not_confirm_is_named_and_a_lapsed_one_is_not_awaited() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_millis(400);
    let wait = Duration::from_millis(600);
    let a = named(&redis.url(), "gw-a", grace, Some(wait)).await;
    let b = named(&redis.url(), "gw-b", grace, Some(wait)).await;
    alice_and_bob(&a.store).await;

    // Listed as live for a long while, but never follows the feed (a
    // process stalled with its feed task stuck, say).
    let far = (redis_now_ms(&redis) + 3_600_000).to_string();
    redis.command(&["ZADD", INSTANCES, &far, "gw-stuck"]);
    a.store.put_agent("alice", child(), by()).await.unwrap();
    let propagation = a.store.propagated(Changed::Agent("alice")).await.unwrap();
    assert_eq!(propagation.applied, 2, "{propagation:?}");
    assert_eq!(propagation.pending, ["gw-stuck"]);

    // One that lapses while the change waits: it stopped serving, so it is
    // dropped from the wait, not reported.
    redis.command(&["ZREM", INSTANCES, "gw-stuck"]);
    let soon = (redis_now_ms(&redis) + 150).to_string();
    redis.command(&["ZADD", INSTANCES, &soon, "gw-gone"]);
    b.store.put_agent("alice", asking(), by()).await.unwrap();
    let propagation = b.store.propagated(Changed::Agent("alice")).await.unwrap();
    assert_eq!(propagation.applied, 2, "{propagation:?}");
    assert!(propagation.is_complete(), "{propagation:?}");

    // An instance that leaves takes its name out of the set.
    drop(b);
    let left = async {
        while redis
            .query(&["ZRANGE", INSTANCES, "0", "-1"])
            .contains(&"gw-b".to_owned())
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(LIMIT, left)
        .await
        .expect("a dropped store leaves the set");
    let propagation = a.store.propagated(Changed::Agent("alice")).await.unwrap();
    assert_eq!(propagation.applied, 1, "{propagation:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_is_named_uniquely_by_default() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let options = || RedisOptions::default().with_grace(Duration::from_secs(5));
    let _a = Instance::connect(&redis.url(), options(), None).await;
    let _b = Instance::connect(&redis.url(), options(), None).await;
    let live = redis.query(&["ZRANGE", INSTANCES, "0", "-1"]);
    assert_eq!(live.len(), 2, "{live:?}");
    let pid = format!("-{}-", std::process::id());
    assert!(live.iter().all(|name| name.contains(&pid)), "{live:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_change_is_in_force_on_every_gateway_of_a_cluster_once_propagated() {
    let Some(cluster) = RedisCluster::start() else {
        return;
    };
    let grace = Duration::from_secs(30);
    let mut instances = Vec::new();
    for name in ["gw-a", "gw-b", "gw-c"] {
        instances.push(named(&cluster.store_url(), name, grace, None).await);
    }
    each_change_is_in_force_everywhere_once_propagated(&instances).await;
}

/// Redis's clock, in ms: what presence is scored by.
fn redis_now_ms(redis: &RedisServer) -> u64 {
    let time = redis.query(&["TIME"]);
    let seconds: u64 = time[0].parse().unwrap();
    let micros: u64 = time[1].parse().unwrap();
    seconds * 1000 + micros / 1000
}
