//! `kandev-mcp gateway --oauth CONFIG`: the gateway as an OAuth 2.1
//! resource server in front of the agents the control API stores, its
//! access tokens minted by a live test issuer on 127.0.0.1. Each serving
//! case runs in memory and on a real `redis-server` (skipped, saying so,
//! without it; see `mcp_profiles_tests::redis`), where the agents are put
//! through a second gateway's control API: the OAuth gateway loads a
//! principal named only by a token from the shared store.

use crate::common;

use std::path::PathBuf;

use crate::common::gateway::{names, put};
use crate::common::{QUIET, Server, TOKEN};
use crate::gateway::Agent;
use mcp_profiles_tests::client::{Session, http_transport};
use mcp_profiles_tests::oauth::issuer::{Discovery, Issuer, merged, now};
use mcp_profiles_tests::oauth::keys::TestKey;
use mcp_profiles_tests::oauth::probe;
use mcp_profiles_tests::raw::RawSession;
use mcp_profiles_tests::redis::RedisServer;
use serde_json::{Value, json};

/// `kandev:ask` grants asking the user; `kandev:title` (a step-up scope)
/// setting the task's title.
const MAPPING: &str = r#"{
    "scopes": {"kandev:ask": ["user-question"], "kandev:title": ["task-title"]},
    "step_up": ["kandev:title"]
}"#;

/// Alice's stored profile: the board, asking the user, setting the title.
const ALICE: &str = r#"{"surface":"kanban-task","capabilities":["user-question","task-title"]}"#;

/// Alice's profile after the change: no longer asking the user.
const ALICE_TITLE_ONLY: &str = r#"{"surface":"kanban-task","capabilities":["task-title"]}"#;

const ASK_TOOL: &str = "ask_user_question_kandev";
const TITLE_TOOL: &str = "set_task_title_kandev";

/// A test issuer and the `--oauth` file trusting it for a gateway's MCP
/// URL, whose port is picked before the gateway starts.
struct Setup {
    issuer: Issuer,
    key: TestKey,
    /// The MCP listener, `127.0.0.1:PORT`.
    http: String,
    /// The resource URI: `http://127.0.0.1:PORT/mcp`.
    uri: String,
    /// Holds the `--oauth` file.
    _dir: tempfile::TempDir,
    config: PathBuf,
}

impl Setup {
    async fn new() -> Setup {
        let key = TestKey::es256("kandev-1");
        let issuer = Issuer::start(Discovery::OAuth, &[&key]).await;
        // A port nothing listens on now, for the gateway to bind.
        let http = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free loopback port")
            .to_string();
        let uri = format!("http://{http}/mcp");
        let settings = json!({
            "token": {"issuer": issuer.url, "resource": uri},
            "claims": serde_json::from_str::<Value>(MAPPING).unwrap(),
        });
        let (dir, config) = oauth_file(&settings.to_string());
        Setup {
            issuer,
            key,
            http,
            uri,
            _dir: dir,
            config,
        }
    }

    /// `kandev-mcp gateway --oauth CONFIG` on the picked port, on `redis`'s
    /// store if given (in memory if not).
    async fn gateway(&self, redis: Option<&RedisServer>) -> Server {
        let url = redis.map(RedisServer::url);
        let mut args = vec!["--oauth", self.config.to_str().unwrap()];
        if let Some(url) = &url {
            args.extend(["--store", url]);
        }
        let gateway = Server::start_gateway_on(&self.http, &args).await;
        assert_eq!(gateway.mcp, self.uri);
        gateway
    }

    /// A token valid for five minutes for this gateway, `sub=alice`,
    /// `change` set over its claims.
    fn token(&self, change: Value) -> String {
        let claims = merged(self.issuer.claims(), &json!({ "aud": self.uri }));
        self.key.sign(&merged(claims, &change))
    }

    /// A token of alice's with `scope`.
    fn alice(&self, scope: &str) -> String {
        self.token(json!({ "scope": scope }))
    }

    /// The Protected Resource Metadata URL the challenges name.
    fn metadata_url(&self) -> String {
        format!(
            "http://{}/.well-known/oauth-protected-resource/mcp",
            self.http
        )
    }
}

/// `text` written to `oauth.json` in a temporary directory of its own.
fn oauth_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("oauth.json");
    std::fs::write(&path, text).expect("the --oauth file is written");
    (dir, path)
}

/// A 2025-11-25 `initialize` at `uri` with `token` (if any): status, the
/// `WWW-Authenticate` header and the body.
async fn initialize(uri: &str, token: Option<&str>) -> (u16, String, String) {
    let answer = probe::post(uri, token, &probe::initialize()).await;
    (answer.status, answer.challenge, answer.body)
}

/// `names` without `tool`.
fn without(names: &[String], tool: &str) -> Vec<String> {
    names.iter().filter(|name| *name != tool).cloned().collect()
}

/// No token, an expired one, one naming a principal with no agent: each
/// refused with the status and challenge the MCP authorization spec gives
/// it; the metadata the challenge names says whose tokens are taken.
async fn refuses_without_a_usable_token(redis: Option<&RedisServer>) {
    let setup = Setup::new().await;
    let mut gateway = setup.gateway(redis).await;
    put(&gateway, "alice", ALICE).await;

    let (status, challenge, _) = initialize(&gateway.mcp, None).await;
    assert_eq!(
        (status, challenge),
        (
            401,
            format!(
                "Bearer resource_metadata=\"{}\", scope=\"kandev:ask\"",
                setup.metadata_url()
            )
        )
    );
    let response = reqwest::get(setup.metadata_url()).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let document: Value = response.json().await.unwrap();
    assert_eq!(document["resource"], json!(setup.uri), "{document}");
    assert_eq!(
        document["authorization_servers"],
        json!([setup.issuer.url]),
        "{document}"
    );
    assert_eq!(
        document["scopes_supported"],
        json!(["kandev:ask", "kandev:title"]),
        "{document}"
    );

    let expired = setup.token(json!({ "scope": "kandev:ask", "exp": now() - 600 }));
    let (status, challenge, _) = initialize(&gateway.mcp, Some(&expired)).await;
    assert_eq!(
        (status, challenge),
        (
            401,
            format!(
                "Bearer resource_metadata=\"{}\", error=\"invalid_token\", error_description=\"the token has expired\"",
                setup.metadata_url()
            )
        )
    );

    // A valid token whose principal has no agent, here or in the store.
    let stranger = setup.token(json!({ "sub": "x", "scope": "kandev:ask" }));
    let (status, _, body) = initialize(&gateway.mcp, Some(&stranger)).await;
    assert_eq!(
        (status, body.as_str()),
        (403, "forbidden: principal `x` has no profile here")
    );

    // Alice's own token is let in.
    let (status, _, body) = initialize(&gateway.mcp, Some(&setup.alice("kandev:ask"))).await;
    assert_eq!(status, 200, "{body}");
    gateway.assert_alive();

    // Each refusal was counted under its reason, and alice's request.
    #[cfg(feature = "metrics")]
    {
        let metrics = crate::metrics::Metrics::scrape(&gateway, Some(common::BEARER)).await;
        let refusals = "mcp_profiles_oauth_refusals_total";
        for reason in ["missing", "expired", "no_profile"] {
            assert_eq!(
                metrics.value(refusals, &[("reason", reason)]),
                1.0,
                "{reason}"
            );
        }
        assert_eq!(metrics.value(refusals, &[("reason", "bad_signature")]), 0.0);
        let admitted = metrics.value("mcp_profiles_agent_requests_total", &[]);
        assert_eq!(admitted, 1.0, "alice's initialize");
    }
}

/// Scopes narrow alice's stored profile; a call of the tool the step-up
/// scope would reveal asks for it; a change of her stored profile through
/// the control API (on Redis, another gateway's) reaches her OAuth
/// sessions once.
async fn serves_scoped_views(redis: Option<&RedisServer>) {
    let setup = Setup::new().await;
    // On Redis alice is stored through another gateway before the OAuth
    // one starts: it finds her only when her token names her.
    let other = match redis {
        Some(redis) => Some(Server::start_gateway(&["--store", &redis.url()]).await),
        None => None,
    };
    let (mut gateway, stored) = match &other {
        Some(other) => {
            let stored = put(other, "alice", ALICE).await;
            (setup.gateway(redis).await, stored)
        }
        None => {
            let gateway = setup.gateway(None).await;
            let stored = put(&gateway, "alice", ALICE).await;
            (gateway, stored)
        }
    };
    let writer = other.as_ref().unwrap_or(&gateway);
    let full = names(&stored);
    assert!(
        full.contains(&ASK_TOOL.to_owned()) && full.contains(&TITLE_TOOL.to_owned()),
        "{full:?}"
    );

    // `kandev:ask`: the board and the question, not the title.
    let ask_token = setup.alice("kandev:ask");
    let mut asking = Agent::open(&gateway, &ask_token).await;
    asking.lists(&without(&full, TITLE_TOOL)).await;
    // No scope: neither.
    let bare = Session::connect(http_transport(&gateway.mcp, Some(&setup.alice("")))).await;
    assert_eq!(
        bare.tool_names().await,
        without(&without(&full, TITLE_TOOL), ASK_TOOL)
    );

    // Calling the title tool asks for the step-up scope, keeping the
    // scopes already granted.
    let session = RawSession::open(&gateway.mcp, &ask_token).await;
    let title = probe::call(TITLE_TOOL, json!({"title": "Ship the OAuth gateway"}));
    let answer = RawSession::post(&gateway.mcp, &ask_token, Some(session.id()), &title).await;
    assert_eq!(answer.status().as_u16(), 403);
    assert_eq!(
        answer.headers()["www-authenticate"].to_str().unwrap(),
        format!(
            "Bearer resource_metadata=\"{}\", error=\"insufficient_scope\", scope=\"kandev:ask kandev:title\", error_description=\"the tool needs scope kandev:title\"",
            setup.metadata_url()
        )
    );
    // With both scopes the title tool is listed, and the call goes on the
    // same session.
    let both_token = setup.alice("kandev:ask kandev:title");
    let both = Session::connect(http_transport(&gateway.mcp, Some(&both_token))).await;
    assert_eq!(both.tool_names().await, full);
    let answer = RawSession::post(&gateway.mcp, &both_token, Some(session.id()), &title).await;
    assert_eq!(answer.status().as_u16(), 200);

    // A change through the control API reaches every OAuth session of
    // alice's once, each still narrowed by its token.
    let changed = put(writer, "alice", ALICE_TITLE_ONLY).await;
    assert_eq!(changed["changed"], json!(true), "{changed}");
    let changed = names(&changed);
    asking.heard_once(1).await;
    assert_eq!(both.wait_for_notifications(1, common::LIMIT).await, 1);
    tokio::time::sleep(QUIET).await;
    assert_eq!(asking.legacy.notifications(), 1, "a second list_changed");
    assert_eq!(both.notifications(), 1, "a second list_changed");
    asking.lists(&without(&changed, TITLE_TOOL)).await;
    assert!(!changed.contains(&ASK_TOOL.to_owned()), "{changed:?}");
    assert_eq!(both.tool_names().await, changed);
    gateway.assert_alive();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_requests_without_a_usable_token_in_memory() {
    refuses_without_a_usable_token(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_requests_without_a_usable_token_on_redis() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    refuses_without_a_usable_token(Some(&redis)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_scoped_views_of_stored_agents_in_memory() {
    serves_scoped_views(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_scoped_views_of_agents_another_gateway_stored_on_redis() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    serves_scoped_views(Some(&redis)).await;
}

#[test]
fn a_bad_oauth_file_stops_the_gateway_before_it_serves() {
    let settings = |claims: &str| {
        format!(
            r#"{{"token": {{"issuer": "http://127.0.0.1:1", "resource": "http://127.0.0.1:2/mcp"}}, "claims": {claims}}}"#
        )
    };
    let (unknown_capability, unknown_capability_path) =
        oauth_file(&settings(r#"{"scopes": {"kandev:fly": ["flying"]}}"#));
    let (unknown_field, unknown_field_path) =
        oauth_file(&settings(r#"{"scopes": {}, "stepup": ["kandev:title"]}"#));
    let missing_path = unknown_field.path().join("absent.json");
    let cases = [
        (&unknown_capability_path, "unknown capability `flying`"),
        (&unknown_field_path, "unknown field `stepup`"),
        (&missing_path, "No such file"),
    ];
    for (path, bad) in cases {
        let path = path.to_str().unwrap();
        let output = common::run(&[
            "gateway",
            "--http",
            "127.0.0.1:0",
            "--control",
            "127.0.0.1:0",
            "--control-token",
            TOKEN,
            "--oauth",
            path,
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{path}: {stderr}");
        assert!(stderr.contains(&format!("--oauth {path}")), "{stderr}");
        assert!(stderr.contains(bad), "{bad}: {stderr}");
        assert!(!stderr.contains("mcp: "), "it served: {stderr}");
    }
    drop(unknown_capability);
}
