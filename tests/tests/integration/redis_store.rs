//! The Redis store against a real `redis-server`: several instances (each a
//! `RedisStore` served on its own HTTP listener) share profiles, versions and
//! tokens; replacements reach every session of the principal exactly once;
//! revocations reach every instance; the failure policy holds when Redis
//! dies and comes back. Skipped, saying so, without `redis-server`.

use std::sync::Arc;
use std::time::Duration;

use mcp_profiles::{CatalogDecoder, ProfileContext};
use mcp_profiles_serve::http::HttpServer;
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore, RedisOptions, RedisStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{CallOutcome, Session, http_transport, serve_agents};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::modern::{
    LIMIT, ModernSession, QUIET, expect_one_list_changed, expect_silence,
};
use mcp_profiles_tests::raw::RawSession;
use mcp_profiles_tests::redis::RedisServer;
use rmcp::service::Subscription;

type Context = ProfileContext<TaskServer>;

/// One gateway instance: a Redis store served over HTTP on 127.0.0.1.
pub(crate) struct Instance {
    pub(crate) store: Arc<RedisStore<TaskServer>>,
    pub(crate) http: HttpServer,
    uri: String,
}

impl Instance {
    pub(crate) async fn start(redis: &RedisServer, grace: Duration) -> Instance {
        Self::start_with(redis, grace, None).await
    }

    /// An instance whose agents may have catalogs `decoder` reads.
    pub(crate) async fn start_with(
        redis: &RedisServer,
        grace: Duration,
        decoder: Option<CatalogDecoder<TaskServer>>,
    ) -> Instance {
        let options = RedisOptions::default().with_grace(grace);
        Self::connect(&redis.url(), options, decoder).await
    }

    /// An instance on the store at `url` (one Redis or a cluster).
    pub(crate) async fn connect(
        url: &str,
        options: RedisOptions,
        decoder: Option<CatalogDecoder<TaskServer>>,
    ) -> Instance {
        let store = match decoder {
            None => RedisStore::connect(url, options).await,
            Some(decoder) => RedisStore::connect_with_catalogs(url, options, decoder).await,
        }
        .expect("the store connects");
        Self::serve(store).await
    }

    /// An instance whose local copy is `profiles`, with its settings.
    pub(crate) async fn start_over(
        redis: &RedisServer,
        grace: Duration,
        profiles: ProfileStore<TaskServer>,
    ) -> Instance {
        let options = RedisOptions::default().with_grace(grace);
        Self::connect_over(&redis.url(), options, profiles).await
    }

    /// An instance on the store at `url` (one Redis or a cluster) whose
    /// local copy is `profiles`, with its settings.
    pub(crate) async fn connect_over(
        url: &str,
        options: RedisOptions,
        profiles: ProfileStore<TaskServer>,
    ) -> Instance {
        let store = RedisStore::connect_with_profiles(url, options, profiles)
            .await
            .expect("the store connects");
        Self::serve(store).await
    }

    /// `store` served over HTTP on 127.0.0.1.
    async fn serve(store: Arc<RedisStore<TaskServer>>) -> Instance {
        let (http, uri) = serve_agents(store.profiles(), TaskServer::default()).await;
        Instance { store, http, uri }
    }

    pub(crate) async fn legacy(&self, token: &str) -> Session {
        Session::connect(http_transport(&self.uri, Some(token))).await
    }

    async fn subscriber(&self, token: &str) -> (ModernSession, Subscription) {
        let session = ModernSession::connect(http_transport(&self.uri, Some(token))).await;
        let subscription = session.subscribe().await;
        (session, subscription)
    }

    /// The status of an `initialize` POST bearing `token`.
    pub(crate) async fn status(&self, token: &str) -> u16 {
        self.refusal(token).await.0
    }

    /// The status of an `initialize` POST bearing `token`, and its
    /// `WWW-Authenticate` challenge if it has one.
    pub(crate) async fn refusal(&self, token: &str) -> (u16, Option<String>) {
        let initialize = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": RawSession::VERSION,
                "capabilities": {},
                "clientInfo": {"name": "probe", "version": "0"},
            },
        });
        let answer = RawSession::post(&self.uri, token, None, &initialize).await;
        let challenge = answer
            .headers()
            .get("www-authenticate")
            .map(|value| value.to_str().unwrap_or_default().to_owned());
        (answer.status().as_u16(), challenge)
    }
}

/// Alice and bob, both asking, with a token each, written through `store`.
pub(crate) async fn alice_and_bob(store: &impl AgentStore<TaskServer>) {
    for principal in ["alice", "bob"] {
        let change = store
            .put_agent(principal, asking(), by())
            .await
            .unwrap()
            .value;
        assert!(change.changed);
        store
            .grant_token(&format!("{principal}-token"), principal, by())
            .await
            .unwrap();
    }
}

/// Every session of a principal on one instance.
pub(crate) struct Sessions {
    legacy: Session,
    modern: ModernSession,
    events: Subscription,
}

impl Sessions {
    pub(crate) async fn open(instance: &Instance, token: &str) -> Sessions {
        let legacy = instance.legacy(token).await;
        let (modern, events) = instance.subscriber(token).await;
        Sessions {
            legacy,
            modern,
            events,
        }
    }

    /// Exactly `n` notifications so far on the 2025-era session, and
    /// exactly one more on the stream (none if `n` did not grow).
    pub(crate) async fn expect_one_more(&mut self, n: usize) {
        expect_one_list_changed(&mut self.events).await;
        assert_eq!(self.legacy.wait_for_notifications(n, LIMIT).await, n);
        tokio::time::sleep(QUIET).await;
        assert_eq!(
            self.legacy.notifications(),
            n,
            "a second list_changed arrived"
        );
        assert_eq!(self.modern.unsolicited(), 0);
    }

    /// The 2025-era stream ends: what the session was opened with no
    /// longer names its principal.
    pub(crate) async fn expect_ended(&mut self) {
        let ended = tokio::time::timeout(LIMIT, self.events.next()).await;
        assert!(!matches!(ended, Ok(Ok(Some(_)))), "{ended:?}");
    }

    pub(crate) async fn expect_none(&mut self, n: usize) {
        expect_silence(&mut self.events).await;
        assert_eq!(self.legacy.notifications(), n);
    }

    pub(crate) async fn expect_tools(&self, context: &Context) {
        assert_eq!(self.legacy.tool_names().await, names_of(context));
        assert_eq!(self.modern.tool_names().await, names_of(context));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replacement_through_any_instance_reaches_every_session_of_the_principal_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(5);
    let instances = [
        Instance::start(&redis, grace).await,
        Instance::start(&redis, grace).await,
        Instance::start(&redis, grace).await,
    ];
    replacements_reach_every_session_once(&instances).await;
    for instance in instances {
        instance.http.shutdown().await.unwrap();
    }
}

/// Through any of three instances, a replacement reaches every session of
/// its principal once and no other session.
pub(crate) async fn replacements_reach_every_session_once(instances: &[Instance; 3]) {
    alice_and_bob(&instances[0].store).await;
    let mut alice = Vec::new();
    let mut bob = Vec::new();
    for instance in instances {
        alice.push(Sessions::open(instance, "alice-token").await);
        bob.push(Sessions::open(instance, "bob-token").await);
    }
    for sessions in alice.iter().chain(&bob) {
        sessions.expect_tools(&asking()).await;
    }

    // Through the third instance: every alice session hears once, bob's none.
    let change = instances[2]
        .store
        .put_agent("alice", child(), by())
        .await
        .unwrap();
    assert!(change.changed);
    assert_eq!(change.agent.version, 2);
    for sessions in &mut alice {
        sessions.expect_one_more(1).await;
        sessions.expect_tools(&child()).await;
    }
    for sessions in &mut bob {
        sessions.expect_none(0).await;
        sessions.expect_tools(&asking()).await;
    }
    // The same tool set again: a new version, no notification anywhere.
    let same = child().with_provider(mcp_profiles_tests::Provider::GitLab);
    let change = instances[1]
        .store
        .put_agent("alice", same, by())
        .await
        .unwrap()
        .value;
    assert!(!change.changed);
    assert_eq!(change.agent.version, 3);
    for sessions in &mut alice {
        sessions.expect_none(1).await;
    }
    // A compare-and-set on a stale version changes nothing anywhere.
    let stale = instances[0]
        .store
        .put_agent_if("alice", asking(), Some(2), by())
        .await;
    assert!(
        matches!(
            &stale,
            Err(mcp_profiles_serve::StoreError::Conflict { current: 3, .. })
        ),
        "{stale:?}"
    );
    for sessions in &mut alice {
        sessions.expect_none(1).await;
    }
    // Every instance agrees on the stored agent and its version.
    for instance in instances {
        let stored = instance.store.agent("alice").await.unwrap().unwrap();
        assert_eq!(stored.version, 3);
        assert_eq!(stored.profile.context(), &same);
        assert_eq!(instance.store.profiles().version("alice"), Some(3));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_revoked_tokens_are_refused_on_every_instance() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(5);
    let (a, b) = (
        Instance::start(&redis, grace).await,
        Instance::start(&redis, grace).await,
    );
    tokens_hold_on_every_instance(&a, &b).await;
}

/// Unknown tokens are refused; a revocation or a deletion through one
/// instance ends the token on both.
pub(crate) async fn tokens_hold_on_every_instance(a: &Instance, b: &Instance) {
    alice_and_bob(&a.store).await;
    a.store
        .grant_token("alice-phone", "alice", by())
        .await
        .unwrap();
    let unknown = a.store.grant_token("carol-token", "carol", by()).await;
    assert!(
        matches!(
            unknown,
            Err(mcp_profiles_serve::StoreError::UnknownPrincipal(_))
        ),
        "{unknown:?}"
    );
    assert_eq!(b.status("mallory-token").await, 401);
    assert_eq!(b.status("carol-token").await, 401);

    let mut on_b = Sessions::open(b, "alice-token").await;
    let phone = Sessions::open(b, "alice-phone").await;
    assert!(
        a.store
            .revoke_token("alice-token", by())
            .await
            .unwrap()
            .value
    );
    // Refused on both instances within a second of the answer.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
    for instance in [a, b] {
        while instance.status("alice-token").await != 401 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "a revoked token still served"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    // What it opened on b ended; alice's other token still works.
    let ended = tokio::time::timeout(LIMIT, on_b.events.next()).await;
    assert!(!matches!(ended, Ok(Ok(Some(_)))), "{ended:?}");
    phone.expect_tools(&asking()).await;
    assert!(
        !a.store
            .revoke_token("alice-token", by())
            .await
            .unwrap()
            .value
    );

    // Deleting an agent ends all its tokens everywhere.
    assert!(b.store.delete_agent("alice", by()).await.unwrap().value);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
    while b.status("alice-phone").await != 401 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "a deleted agent's token still served"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(a.store.agent("alice").await.unwrap().is_none());
    assert!(!a.store.delete_agent("alice", by()).await.unwrap().value);
    assert_eq!(b.status("bob-token").await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restart_loses_no_change_and_converges() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(30);
    let (a, b) = (
        Instance::start(&redis, grace).await,
        Instance::start(&redis, grace).await,
    );
    alice_and_bob(&a.store).await;
    let mut on_a = Sessions::open(&a, "alice-token").await;
    let mut on_b = Sessions::open(&b, "alice-token").await;
    let mut bob_on_b = Sessions::open(&b, "bob-token").await;

    redis.kill();
    // Within the grace period the last applied profile is still served.
    on_b.expect_tools(&asking()).await;
    let write = a.store.put_agent("alice", child(), by()).await;
    assert!(
        matches!(write, Err(mcp_profiles_serve::StoreError::Unavailable(_))),
        "{write:?}"
    );

    redis.restart();
    // Made as soon as Redis is back, perhaps before b has subscribed again:
    // b's reload catches it if the feed did not.
    let change = loop {
        match a.store.put_agent("alice", child(), by()).await {
            Ok(change) => break change,
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    assert!(change.changed);
    for sessions in [&mut on_a, &mut on_b] {
        sessions.expect_one_more(1).await;
        sessions.expect_tools(&child()).await;
    }
    bob_on_b.expect_none(0).await;
    assert_eq!(
        b.store.profiles().version("alice"),
        Some(change.agent.version)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_published_while_an_instance_is_off_the_feed_is_applied_when_it_is_back() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let grace = Duration::from_secs(30);
    let (a, b) = (
        Instance::start(&redis, grace).await,
        Instance::start(&redis, grace).await,
    );
    alice_and_bob(&a.store).await;
    let mut on_a = Sessions::open(&a, "alice-token").await;
    let mut on_b = Sessions::open(&b, "alice-token").await;

    // Both instances lose their feed connection (Redis stays up); the change
    // is published before they can subscribe again, so it reaches b only
    // through the reload that follows its reconnection.
    let killed = redis.command(&["CLIENT", "KILL", "TYPE", "pubsub"]);
    assert!(killed.starts_with(':'), "{killed}");
    let change = a
        .store
        .put_agent("alice", child(), by())
        .await
        .unwrap()
        .value;
    assert!(change.changed);
    for sessions in [&mut on_a, &mut on_b] {
        sessions.expect_one_more(1).await;
        sessions.expect_tools(&child()).await;
    }
    assert_eq!(
        b.store.profiles().version("alice"),
        Some(change.agent.version)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_grace_period_requests_are_refused_until_redis_is_back() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let a = Instance::start(&redis, Duration::from_millis(300)).await;
    alice_and_bob(&a.store).await;
    let session = a.legacy("alice-token").await;
    assert_eq!(
        session.call("ask_user_question", None).await,
        CallOutcome::Ran(vec![])
    );

    redis.kill();
    let refused = async {
        loop {
            if let CallOutcome::Refused(_, message) = session.call("ask_user_question", None).await
            {
                break message;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let message = tokio::time::timeout(LIMIT, refused)
        .await
        .expect("calls are refused once the grace period has passed");
    assert!(message.contains("grace period"), "{message}");
    // A token this instance never saw cannot be checked: 503, not served.
    assert_eq!(a.status("bob-token").await, 503);

    redis.restart();
    let served = async {
        while session.call("ask_user_question", None).await != CallOutcome::Ran(vec![]) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(LIMIT, served)
        .await
        .expect("calls are served again once Redis is back");
    assert_eq!(a.status("bob-token").await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_store_counts_versions_through_the_same_seam() {
    let store = MemoryStore::<TaskServer>::default();
    alice_and_bob(&store).await;
    let change = store.put_agent("alice", child(), by()).await.unwrap().value;
    assert!(change.changed);
    assert_eq!(change.agent.version, 2);
    let change = store.put_agent("alice", child(), by()).await.unwrap().value;
    assert!(!change.changed);
    assert_eq!(change.agent.version, 3);
    let stale = store.put_agent_if("alice", asking(), Some(2), by()).await;
    assert!(
        matches!(
            &stale,
            Err(mcp_profiles_serve::StoreError::Conflict { current: 3, .. })
        ),
        "{stale:?}"
    );
    let created = store
        .put_agent_if("carol", asking(), Some(0), by())
        .await
        .unwrap()
        .value;
    assert_eq!(created.agent.version, 1);
    let stored = store.agent("alice").await.unwrap().unwrap();
    assert_eq!((stored.version, stored.profile.context()), (3, &child()));
    assert!(store.revoke_token("alice-token", by()).await.unwrap().value);
    assert!(store.profiles().principal("alice-token").is_none());
    assert!(store.delete_agent("alice", by()).await.unwrap().value);
    assert!(store.agent("alice").await.unwrap().is_none());
    let _ = Arc::clone(store.profiles());
}
