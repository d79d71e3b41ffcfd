//! The store backing conformance suite (`mcp_profiles_serve::store::conformance`)
//! run against this crate's own backings, as a user runs it against theirs:
//! the in-memory store (one handle twice) and Redis (two instances on one
//! real `redis-server`; skipped, saying so, without it).

use std::time::Duration;

use mcp_profiles_serve::store::conformance::{Catalogs, Fixture, check};
use mcp_profiles_serve::{MemoryStore, ProfileStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::contexts::{asking, child};
use mcp_profiles_tests::redis::RedisServer;
use serde_json::json;

use crate::redis_store::Instance;
use crate::store_catalogs::{decoder, wire};

pub(crate) fn fixture() -> Fixture<TaskServer> {
    Fixture::new(asking(), child()).with_catalogs(Catalogs {
        one: wire(1, &["echo"]),
        other: wire(2, &["echo", "more"]),
        refused: json!({"tools": []}),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_store_conforms() {
    let store = MemoryStore::new(ProfileStore::<TaskServer>::default().with_catalogs(decoder()));
    check(&store, &store, &fixture()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_redis_instances_conform() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(30);
    let one = Instance::start_with(&redis, grace, Some(decoder())).await;
    let other = Instance::start_with(&redis, grace, Some(decoder())).await;
    check(&one.store, &other.store, &fixture()).await;
}
