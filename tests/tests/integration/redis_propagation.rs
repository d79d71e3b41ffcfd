//! An acknowledgement that holds on every instance: after a change,
//! `AgentStore::propagated` answers once every live instance sharing the
//! store applies it, names the ones that do not confirm, and stops waiting
//! for one whose presence lapsed. On one real `redis-server` and on a
//! real six-node cluster; skipped, saying so, without `redis-server`.

use std::time::Duration;

use mcp_profiles_serve::{AgentStore, Changed, RedisOptions};
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::contexts::{asking, child};
use mcp_profiles_tests::modern::LIMIT;
use mcp_profiles_tests::redis::RedisServer;
use mcp_profiles_tests::redis_cluster::RedisCluster;

use crate::redis_store::{Instance, alice_and_bob};

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
/// revocation are in force on every instance once `propagated` says so:
/// read there at once, with no waiting.
pub(crate) async fn each_change_is_in_force_everywhere_once_propagated(instances: &[Instance]) {
    alice_and_bob(&instances[0].store).await;
    let mut serving = Vec::new();
    for instance in instances {
        // Each instance serves alice, and knows bob's token.
        serving.push(instance.legacy("alice-token").await);
        assert_eq!(instance.status("bob-token").await, 200);
    }
    let everyone = instances.len();
    for round in 0..12 {
        let maker = &instances[round % everyone].store;
        let context = if round % 2 == 0 { child() } else { asking() };
        let change = maker.put_agent("alice", context, by()).await.unwrap().value;
        let propagation = maker.propagated(Changed::Agent("alice")).await.unwrap();
        assert_eq!(propagation.applied, everyone, "{propagation:?}");
        assert!(propagation.is_complete(), "{propagation:?}");
        for instance in instances {
            assert_eq!(
                instance.store.profiles().version("alice"),
                Some(change.agent.version)
            );
        }
    }

    let maker = &instances[1 % everyone].store;
    let killed = maker
        .put_kill_switch_if(&["ask_user_question".to_owned()], None, by())
        .await
        .unwrap()
        .value;
    let propagation = maker.propagated(Changed::KillSwitch).await.unwrap();
    assert!(propagation.is_complete(), "{propagation:?}");
    for instance in instances {
        assert_eq!(
            instance.store.profiles().kill_switch_version(),
            killed.version
        );
    }

    let maker = &instances[everyone - 1].store;
    assert!(maker.revoke_token("bob-token", by()).await.unwrap().value);
    let propagation = maker.propagated(Changed::Token("bob-token")).await.unwrap();
    assert!(propagation.is_complete(), "{propagation:?}");
    for instance in instances {
        assert_eq!(instance.status("bob-token").await, 401);
    }
    drop(serving);
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
