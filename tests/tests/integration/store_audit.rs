//! The audit trail through the serving crate's stores, beyond the
//! conformance suite (`store_conformance.rs`): the in-memory log keeps the
//! newest records; on a real `redis-server` the trail survives a restart of
//! Redis and a new instance, a record that cannot be appended refuses its
//! change (nothing moves, no instance hears of it), and the stream is
//! capped; an application's own trail does the same in memory. The Redis
//! tests are skipped, saying so, without `redis-server`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_profiles_serve::audit::{
    AuditEntry, AuditQuery, AuditRecord, AuditTrail, MemoryAuditLog, TrailError,
};
use mcp_profiles_serve::{AgentStore, MemoryStore, RedisOptions, RedisStore, StoreError};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::{attribution, by, records, said};
use mcp_profiles_tests::contexts::{asking, child};
use mcp_profiles_tests::redis::RedisServer;

use crate::redis_store::Instance;

const GRACE: Duration = Duration::from_secs(30);

fn owned(kind: &str, principal: Option<&str>, request: &str) -> (String, Option<String>, String) {
    (kind.into(), principal.map(Into::into), request.into())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_log_keeps_the_newest_records() {
    let store = Arc::new(MemoryStore::<TaskServer>::default().with_audit_capacity(2));
    for (n, context) in [asking(), child(), asking()].into_iter().enumerate() {
        let request = format!("r-{n}");
        store
            .put_agent("alice", context, &attribution("control", &request))
            .await
            .unwrap();
    }
    let kept = records(&store).await;
    assert_eq!(
        kept.iter().map(|r| r.seq).collect::<Vec<_>>(),
        [2, 3],
        "the oldest record is dropped past the capacity; numbers go on"
    );
    assert_eq!(said(&kept)[1], owned("profile-put", Some("alice"), "r-2"));
}

/// An application's trail that refuses every record while `full`.
#[derive(Default)]
struct Disk {
    kept: MemoryAuditLog,
    full: AtomicBool,
}

impl AuditTrail for Disk {
    fn append(&self, entry: AuditEntry) -> Result<AuditRecord, TrailError> {
        if self.full.load(Ordering::SeqCst) {
            return Err(TrailError::new("the disk is full"));
        }
        AuditTrail::append(&self.kept, entry)
    }

    fn query(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, TrailError> {
        AuditTrail::query(&self.kept, query)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_the_applications_trail_refuses_refuses_the_change() {
    let disk = Arc::new(Disk::default());
    let store = Arc::new(
        MemoryStore::<TaskServer>::default().with_audit_trail(Arc::clone(&disk) as Arc<_>),
    );
    store.put_agent("alice", asking(), by()).await.unwrap();
    store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    assert_eq!(
        records(&store).await.len(),
        2,
        "kept in the application's trail"
    );
    let tools = store
        .agent("alice")
        .await
        .unwrap()
        .unwrap()
        .profile
        .tool_names()
        .to_vec();

    disk.full.store(true, Ordering::SeqCst);
    let refused = |error: StoreError| {
        assert!(
            matches!(&error, StoreError::Refused(why) if why.contains("the disk is full")),
            "{error}"
        );
    };
    refused(store.put_agent("alice", child(), by()).await.unwrap_err());
    refused(
        store
            .grant_token("bob-token", "alice", by())
            .await
            .unwrap_err(),
    );
    refused(store.revoke_token("alice-token", by()).await.unwrap_err());
    refused(store.delete_agent("alice", by()).await.unwrap_err());
    refused(
        store
            .put_kill_switch_if(&["ask_user_question".to_owned()], None, by())
            .await
            .unwrap_err(),
    );
    let alice = store.agent("alice").await.unwrap().unwrap();
    assert_eq!(
        (alice.version, alice.profile.tool_names().to_vec()),
        (1, tools),
        "nothing moved"
    );
    assert_eq!(
        store.profiles().principal("alice-token").unwrap().name(),
        "alice"
    );
    assert!(store.profiles().principal("bob-token").is_none());
    assert!(store.kill_switch().await.unwrap().is_none());
    // A write that changes nothing records nothing, so nothing refuses it.
    store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();

    disk.full.store(false, Ordering::SeqCst);
    store.put_agent("alice", child(), by()).await.unwrap();
    let kept = records(&store).await;
    assert_eq!(kept.iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(
        kept[2].after["version"], 2,
        "the record names the version it made"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_trail_survives_a_restart_and_a_new_instance() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let a = Instance::start(&redis, GRACE).await;
    a.store
        .put_agent("alice", asking(), &attribution("control", "r-1"))
        .await
        .unwrap();
    a.store
        .grant_token("alice-token", "alice", &attribution("control", "r-2"))
        .await
        .unwrap();
    let before = records(&a.store).await;
    assert_eq!(before.len(), 2);

    redis.restart();
    let b = Instance::start(&redis, GRACE).await;
    assert_eq!(
        records(&b.store).await,
        before,
        "a new instance on the restarted Redis reads the same records"
    );
    b.store
        .put_agent("alice", child(), &attribution("operator", "r-3"))
        .await
        .unwrap();
    let after = records(&b.store).await;
    assert_eq!(
        said(&after),
        [
            owned("profile-put", Some("alice"), "r-1"),
            owned("token-granted", Some("alice"), "r-2"),
            owned("profile-put", Some("alice"), "r-3"),
        ]
    );
    assert_eq!(after[2].seq, 3, "numbering goes on across the restart");
    assert_eq!(after[2].actor, "operator");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_redis_cannot_append_refuses_the_change() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (
        Instance::start(&redis, GRACE).await,
        Instance::start(&redis, GRACE).await,
    );
    a.store.put_agent("alice", asking(), by()).await.unwrap();
    a.store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    // b serves alice, so it would hear of any change.
    b.store.profiles().lookup("alice-token").await.unwrap();
    assert_eq!(b.store.profiles().version("alice"), Some(1));

    // The stream's key holds a string: every XADD fails inside the script.
    assert_eq!(
        redis.command(&["SET", "mcp-profiles:audit", "not a stream"]),
        "+OK"
    );
    let put = a.store.put_agent("alice", child(), by()).await;
    assert!(
        matches!(&put, Err(StoreError::Refused(why)) if why.contains("WRONGTYPE")),
        "{put:?}"
    );
    let delete = a.store.delete_agent("alice", by()).await;
    assert!(delete.is_err(), "{delete:?}");
    let grant = a.store.grant_token("other-token", "alice", by()).await;
    assert!(grant.is_err(), "{grant:?}");
    let revoke = a.store.revoke_token("alice-token", by()).await;
    assert!(revoke.is_err(), "{revoke:?}");
    let kill = a
        .store
        .put_kill_switch_if(&["ask_user_question".to_owned()], None, by())
        .await;
    assert!(kill.is_err(), "{kill:?}");

    let stored = b.store.agent("alice").await.unwrap().expect("still there");
    assert_eq!(
        (stored.version, *stored.profile.context()),
        (1, asking()),
        "nothing moved"
    );
    assert!(b.store.kill_switch().await.unwrap().is_none());
    assert_eq!(
        redis.query(&["GET", "mcp-profiles:version:alice"]),
        ["1"],
        "not even the version"
    );
    assert_eq!(
        b.store
            .profiles()
            .lookup("alice-token")
            .await
            .unwrap()
            .map(|p| p.name().to_owned()),
        Some("alice".to_owned()),
        "the token still names alice"
    );
    assert!(
        b.store
            .profiles()
            .lookup("other-token")
            .await
            .unwrap()
            .is_none(),
        "the refused grant granted nothing"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        b.store.profiles().version("alice"),
        Some(1),
        "no instance heard of a change"
    );

    // Given its stream back, the store records and changes again, going on
    // from the last number.
    redis.command(&["DEL", "mcp-profiles:audit"]);
    let change = a
        .store
        .put_agent("alice", child(), by())
        .await
        .unwrap()
        .value;
    assert_eq!(change.agent.version, 2);
    let kept = records(&a.store).await;
    assert_eq!(kept.iter().map(|r| r.seq).collect::<Vec<_>>(), [3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_stream_is_capped() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    // Small stream nodes, so the approximate trim has whole nodes to drop.
    assert_eq!(
        redis.command(&["CONFIG", "SET", "stream-node-max-entries", "4"]),
        "+OK"
    );
    let options = RedisOptions::default()
        .with_grace(GRACE)
        .with_audit_capacity(8);
    assert_eq!(options.audit_capacity(), 8);
    let store = RedisStore::<TaskServer>::connect(&redis.url(), options)
        .await
        .unwrap();
    for n in 0..40 {
        let context = if n % 2 == 0 { asking() } else { child() };
        store.put_agent("alice", context, by()).await.unwrap();
    }
    let length: u64 = redis.query(&["XLEN", "mcp-profiles:audit"])[0]
        .parse()
        .unwrap();
    assert!(
        (8..=12).contains(&length),
        "about the capacity kept: {length}"
    );
    let kept = store
        .audit(&AuditQuery::new().newest_first())
        .await
        .unwrap();
    assert_eq!(kept.len() as u64, length);
    assert_eq!(kept[0].seq, 40, "the newest are kept");
}
