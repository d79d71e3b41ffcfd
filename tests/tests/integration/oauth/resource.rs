//! A resource server on 127.0.0.1 in front of the fixture task server's
//! agents, kept in memory or in a real Redis, its tokens minted by a live
//! test issuer.

use mcp_profiles::ProfileContext;
use mcp_profiles_serve::oauth::{ClaimMapping, OAuth, OAuthConfig, TokenValidator};
use mcp_profiles_serve::{AgentStore, ProfileStore, RedisOptions, RedisStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::oauth::probe;
use mcp_profiles_tests::redis::RedisServer;
use serde_json::{Value, json};
use std::sync::Arc;

use super::issuer::{Discovery, Issuer, merged};
use super::keys::TestKey;

/// The mapping most cases use: `tasks:ask` grants asking the user,
/// `tasks:title` (a step-up scope) setting the title.
pub const MAPPING: &str = r#"{
    "scopes": {"tasks:ask": ["user-question"], "tasks:title": ["task-title"]},
    "step_up": ["tasks:title"]
}"#;

/// Alice's stored profile: the board, asking the user, setting titles.
pub const ALICE: &str =
    r#"{"surface":"kanban-task","capabilities":["user-question","task-title"]}"#;

pub struct Resource {
    pub issuer: Issuer,
    pub key: TestKey,
    pub store: Arc<ProfileStore<TaskServer>>,
    /// The MCP endpoint, which is also the resource URI.
    pub uri: String,
    kept: Kept,
}

/// Where a [`Resource`]'s agents are kept: its own store's memory, or a
/// Redis its store is the local copy of.
enum Kept {
    InMemory,
    OnRedis {
        shared: Arc<RedisStore<TaskServer>>,
        /// Running for as long as the resource serves.
        _redis: RedisServer,
    },
}

impl Resource {
    /// Serves `mapping` with alice's agent stored.
    pub async fn start(mapping: &str) -> Self {
        Self::start_with(mapping, |config| config).await
    }

    /// Like [`start`](Self::start), the validator's configuration changed
    /// by `configure`.
    pub async fn start_with(
        mapping: &str,
        configure: impl FnOnce(OAuthConfig) -> OAuthConfig,
    ) -> Self {
        let store = Arc::new(ProfileStore::<TaskServer>::default());
        store.add_agent("alice", context(ALICE));
        Self::start_on(mapping, configure, store).await
    }

    /// Like [`start_with`](Self::start_with), once on each store: in
    /// memory, and in a `redis-server` of its own (left out, saying so,
    /// when none is installed).
    pub async fn on_each_store(
        mapping: &str,
        configure: impl Fn(OAuthConfig) -> OAuthConfig,
    ) -> Vec<Self> {
        let mut each = vec![Self::start_with(mapping, &configure).await];
        if let Some(redis) = RedisServer::start() {
            let shared = RedisStore::<TaskServer>::connect(&redis.url(), RedisOptions::default())
                .await
                .expect("the store connects");
            shared
                .put_agent("alice", context(ALICE), by())
                .await
                .expect("alice's agent is put");
            let mut r = Self::start_on(mapping, configure, Arc::clone(shared.profiles())).await;
            r.kept = Kept::OnRedis {
                shared,
                _redis: redis,
            };
            each.push(r);
        }
        each
    }

    /// Where its agents are kept, for assertion messages.
    pub fn kept(&self) -> &'static str {
        match self.kept {
            Kept::InMemory => "in memory",
            Kept::OnRedis { .. } => "on Redis",
        }
    }

    /// Gives `principal` an agent with `profile` (a context's JSON) where
    /// this resource's agents are kept.
    pub async fn put_agent(&self, principal: &str, profile: &str) {
        match &self.kept {
            Kept::InMemory => {
                self.store.add_agent(principal, context(profile));
            }
            Kept::OnRedis { shared, .. } => {
                shared
                    .put_agent(principal, context(profile), by())
                    .await
                    .expect("the agent is put");
            }
        }
    }

    /// Serves `mapping` over `store`'s agents (a shared store's local copy,
    /// say), the validator's configuration changed by `configure`.
    pub async fn start_on(
        mapping: &str,
        configure: impl FnOnce(OAuthConfig) -> OAuthConfig,
        store: Arc<ProfileStore<TaskServer>>,
    ) -> Self {
        let key = TestKey::es256("ec-1");
        let issuer = Issuer::start(Discovery::OAuth, &[&key]).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let uri = format!("http://{}/mcp", listener.local_addr().expect("address"));
        let config = configure(OAuthConfig::new(&issuer.url, &uri).expect("a valid config"));
        let mapping = ClaimMapping::from_json(mapping).expect("a valid mapping");
        let oauth = Arc::new(OAuth::new(TokenValidator::new(config), mapping));
        let app = mcp_profiles_serve::http::oauth_router(
            &store,
            TaskServer::default(),
            oauth,
            Default::default(),
        );
        tokio::spawn(async move { axum::serve(listener, app).await });
        Resource {
            issuer,
            key,
            store,
            uri,
            kept: Kept::InMemory,
        }
    }

    /// Claims valid for five minutes for this resource, `change` set over
    /// them (`null` removes a claim).
    pub fn claims(&self, change: Value) -> Value {
        let mut claims = merged(self.issuer.claims(), &json!({ "aud": self.uri }));
        claims = merged(claims, &change);
        let fields = claims.as_object_mut().expect("an object");
        fields.retain(|_, value| !value.is_null());
        claims
    }

    /// A token of alice's with `scope`.
    pub fn token(&self, scope: &str) -> String {
        self.key.sign(&self.claims(json!({ "scope": scope })))
    }

    /// The URL `WWW-Authenticate` names.
    pub fn metadata_url(&self) -> String {
        self.uri
            .replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    }
}

pub fn context(json: &str) -> ProfileContext<TaskServer> {
    ProfileContext::from_json(json).expect("a valid context")
}

/// A request with `token` (if any): status, the `WWW-Authenticate`
/// header and the body.
pub async fn request(uri: &str, token: Option<&str>, body: Value) -> (u16, String, String) {
    let answer = probe::post(uri, token, &body).await;
    (answer.status, answer.challenge, answer.body)
}

pub use mcp_profiles_tests::oauth::probe::initialize;
