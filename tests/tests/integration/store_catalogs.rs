//! Runtime catalogs through the stores, beyond the conformance suite
//! (`store_conformance.rs`): on Redis (several instances on a real
//! `redis-server`) a catalog reaches every session of the principal once,
//! is reloaded whole by an instance that missed its feed message, and is
//! not served by an instance without a decoder; a store without a decoder
//! takes none.

use std::sync::Arc;
use std::time::Duration;

use mcp_profiles::rmcp::model::{CallToolResult, ContentBlock};
use mcp_profiles::{Catalog, CatalogDecoder, Rule, RuntimeTool};
use mcp_profiles_serve::{AgentStore, MemoryStore, StoreError};
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{CallOutcome, refused};
use mcp_profiles_tests::contexts::{asking, names_of};
use mcp_profiles_tests::modern::{LIMIT, QUIET};
use mcp_profiles_tests::redis::RedisServer;
use mcp_profiles_tests::{Surface, TaskServer};
use serde_json::{Value, json};

use crate::redis_store::Instance;

/// The test's wire form: `{"revision": N, "tools": ["name", ...]}`, each
/// tool on kanban-task, answering "ran <name>".
pub(crate) fn decoder() -> CatalogDecoder<TaskServer> {
    Arc::new(|_principal, wire: &Value| {
        let revision = wire["revision"]
            .as_u64()
            .ok_or("`revision` must be a number")?;
        let names = wire["tools"].as_array().ok_or("`tools` must be a list")?;
        let tools = names.iter().map(|name| {
            let name = name.as_str().unwrap_or_default().to_owned();
            let ran = format!("ran {name}");
            let schema = json!({"type": "object"}).as_object().unwrap().clone();
            RuntimeTool::new(
                name,
                "a plugin",
                schema,
                Rule::on_surface(Surface::KanbanTask),
                move |_, _| {
                    let ran = ran.clone();
                    async move { Ok(CallToolResult::success(vec![ContentBlock::text(ran)])) }
                },
            )
        });
        Ok(Catalog::new("test", revision, tools)?)
    })
}

pub(crate) fn wire(revision: u64, tools: &[&str]) -> Value {
    json!({"revision": revision, "tools": tools})
}

/// `asking()`'s compiled tools with `extra` added, sorted.
fn listing(extra: &[&str]) -> Vec<String> {
    let mut names = names_of(&asking());
    names.extend(extra.iter().map(|name| (*name).to_owned()));
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_without_a_decoder_takes_no_catalogs() {
    let without = MemoryStore::<TaskServer>::default();
    without.put_agent("alice", asking(), by()).await.unwrap();
    let refused = without
        .put_catalog_if("alice", wire(1, &["echo"]), None, by())
        .await;
    assert!(
        matches!(&refused, Err(StoreError::InvalidCatalog(why)) if why.contains("no catalogs")),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_instances_share_catalogs_and_reload_one_they_missed() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(30);
    let a = Instance::start_with(&redis, grace, Some(decoder())).await;
    let b = Instance::start_with(&redis, grace, Some(decoder())).await;
    a.store.put_agent("alice", asking(), by()).await.unwrap();
    a.store
        .put_catalog_if("alice", wire(1, &["echo"]), None, by())
        .await
        .unwrap();
    a.store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    a.store.put_agent("bob", asking(), by()).await.unwrap();
    a.store.grant_token("bob-token", "bob", by()).await.unwrap();

    let on_b = b.legacy("alice-token").await;
    assert_eq!(on_b.tool_names().await, listing(&["echo"]));
    assert_eq!(
        on_b.call("echo", None).await,
        CallOutcome::Ran(vec!["ran echo".to_owned()])
    );
    let bob = b.legacy("bob-token").await;
    assert_eq!(bob.call("echo", None).await, refused("echo"));

    // Through the other instance: one list_changed on b's session, none
    // for bob.
    let change = a
        .store
        .put_catalog_if("alice", wire(6, &["echo", "more"]), None, by())
        .await
        .unwrap();
    assert!(change.changed);
    assert_eq!(on_b.wait_for_notifications(1, LIMIT).await, 1);
    tokio::time::sleep(QUIET).await;
    assert_eq!((on_b.notifications(), bob.notifications()), (1, 0));
    assert_eq!(on_b.tool_names().await, listing(&["echo", "more"]));

    // b loses its feed (pub/sub connections killed): a catalog put
    // meanwhile reaches it once, on the feed or by the reload after it
    // subscribes again.
    redis.command(&["CLIENT", "KILL", "TYPE", "pubsub"]);
    a.store
        .put_catalog_if("alice", wire(7, &[]), None, by())
        .await
        .unwrap();
    assert_eq!(on_b.wait_for_notifications(2, LIMIT).await, 2);
    tokio::time::sleep(QUIET).await;
    assert_eq!(on_b.notifications(), 2);
    assert_eq!(on_b.tool_names().await, listing(&[]));
    assert_eq!(on_b.call("more", None).await, refused("more"));

    // An instance started now loads the agent with its catalog.
    a.store
        .put_catalog_if("alice", wire(8, &["late"]), None, by())
        .await
        .unwrap();
    let c = Instance::start_with(&redis, grace, Some(decoder())).await;
    let on_c = c.legacy("alice-token").await;
    assert_eq!(on_c.tool_names().await, listing(&["late"]));
    // One without a decoder serves the profile and not the catalog.
    let d = Instance::start(&redis, grace).await;
    let on_d = d.legacy("alice-token").await;
    assert_eq!(on_d.tool_names().await, listing(&[]));
}
