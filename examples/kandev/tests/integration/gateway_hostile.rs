//! A hostile pass over `kandev-mcp gateway`'s control API, as `hostile.rs`
//! is over `serve`'s: bad tokens on every route, principal names that are
//! not names, versions that are not versions, duplicate keys, depth bombs,
//! bodies past the cap, racing compare-and-sets, and tokens and sessions
//! that must serve only their own principal. The cases about keys run on
//! both stores: in memory, and on a real `redis-server`, whose keys are then
//! read back to prove each name was stored exactly and nothing else moved
//! (skipped, saying so, without `redis-server`; see
//! `mcp_profiles_tests::redis`).
//!
//! The route table [`routes`] lists every route of the gateway's control
//! API; a new one is covered by the token and body-cap checks by adding a
//! line there.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::common::gateway::{admitted, call, grant, names, put, until_refused};
use crate::common::raw::{self, Route};
use crate::common::{BEARER, LIMIT, QUIET, Server};
use kandev_mcp::gateway::control::MAX_PRINCIPAL_BYTES;
use kandev_mcp::{Kandev, Surface};
use mcp_profiles::ProfileContext;
use mcp_profiles_serve::{AgentStore, RedisOptions, RedisStore, StoreError};
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{Session, http_transport, refused};
use mcp_profiles_tests::raw::RawSession;
use mcp_profiles_tests::redis::RedisServer;
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::{Barrier, Semaphore};

const TASK: &str = r#"{"surface":"kanban-task","capabilities":["user-question"]}"#;
const CONFIG: &str = r#"{"surface":"configuration"}"#;
const OFFICE: &str = r#"{"surface":"office-task"}"#;

/// The operator's kill switch route.
const KILL_SWITCH: &str = "/api/v1/kill-switch";

/// The prefix of every key the gateway's Redis store writes.
const PREFIX: &str = "mcp-profiles";

/// Every route of the gateway's control API, for `principal`: method, path
/// and a body that would change something if it were accepted.
fn routes(principal: &str) -> Vec<Route> {
    let agent = format!("/api/v1/agents/{principal}");
    let grant = json!({ "token": "mallory-token", "principal": principal });
    let table = [
        (Method::GET, agent.clone(), None),
        (
            Method::PUT,
            agent.clone(),
            Some(json!({ "profile": profile(OFFICE) })),
        ),
        (Method::DELETE, agent.clone(), None),
        (Method::GET, format!("{agent}/plugin-tools"), None),
        (
            Method::PUT,
            format!("{agent}/plugin-tools"),
            Some(json!({"generation": "g", "revision": 1, "tools": []})),
        ),
        (Method::POST, "/api/v1/tokens".to_owned(), Some(grant)),
        (
            Method::POST,
            "/api/v1/tokens/revoke".to_owned(),
            Some(json!({ "token": "alice-token" })),
        ),
        (Method::GET, KILL_SWITCH.to_owned(), None),
        (
            Method::PUT,
            KILL_SWITCH.to_owned(),
            Some(json!({ "deny": ["kanban-task"], "version": 0 })),
        ),
    ];
    table
        .into_iter()
        .map(|(method, path, body)| (method, path, body.map(|b| b.to_string().into_bytes())))
        .collect()
}

fn profile(json: &str) -> Value {
    serde_json::from_str(json).expect("a profile")
}

/// Gateways sharing one store: in memory (one gateway) or a real
/// `redis-server`.
struct Deployment {
    gateways: Vec<Server>,
    redis: Option<RedisServer>,
}

impl Deployment {
    async fn memory() -> Deployment {
        Deployment {
            gateways: vec![Server::start_gateway(&[]).await],
            redis: None,
        }
    }

    /// `n` gateways on one new `redis-server`; `None` (the test skipped)
    /// without one.
    async fn redis(n: usize) -> Option<Deployment> {
        let redis = RedisServer::start()?;
        let mut gateways = Vec::new();
        for _ in 0..n {
            gateways.push(Server::start_gateway(&["--store", &redis.url()]).await);
        }
        Some(Deployment {
            gateways,
            redis: Some(redis),
        })
    }

    /// Every key in Redis (`None` in memory).
    fn keys(&self) -> Option<BTreeSet<String>> {
        let redis = self.redis.as_ref()?;
        Some(redis.query(&["KEYS", "*"]).into_iter().collect())
    }
}

/// Runs `case` once on each store, as two tests `in_memory` and `on_redis`
/// (with `$gateways` gateways) in a module named after it.
macro_rules! on_both_stores {
    ($case:ident, $gateways:expr) => {
        mod $case {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn in_memory() {
                super::$case(super::Deployment::memory().await).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn on_redis() {
                if let Some(deployment) = super::Deployment::redis($gateways).await {
                    super::$case(deployment).await;
                }
            }
        }
    };
}

/// The keys Redis holds for `principal`'s agent with `tokens`.
fn agent_keys(principal: &str, tokens: &[&str]) -> BTreeSet<String> {
    let mut keys: BTreeSet<String> = ["agent", "version"]
        .iter()
        .map(|kind| format!("{PREFIX}:{kind}:{principal}"))
        .collect();
    if !tokens.is_empty() {
        keys.insert(format!("{PREFIX}:tokens:{principal}"));
    }
    for token in tokens {
        keys.insert(format!("{PREFIX}:token:{}", sha256(token)));
    }
    keys
}

/// The keys every store holds once it recorded a change: the audit
/// trail's, and the set of live instances.
fn store_keys() -> BTreeSet<String> {
    [
        format!("{PREFIX}:audit"),
        format!("{PREFIX}:audit:seq"),
        format!("{PREFIX}:instances"),
    ]
    .into()
}

/// A token's SHA-256 in lower-case hex: what the Redis store keys it by.
fn sha256(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `name` as a path segment: every byte but the unreserved ones
/// (RFC 3986, 2.3) percent-encoded, so the name arrives whole.
fn encode(name: &str) -> String {
    name.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// `METHOD /api/v1/agents/{segment}` with the right token, the segment sent
/// exactly as written (reqwest, like any URL client, would remove dot
/// segments) and `body` as JSON if given; the status and the answer (JSON,
/// or the text as a JSON string).
async fn agent_raw(
    gateway: &Server,
    method: &Method,
    segment: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let body = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} /api/v1/agents/{segment} HTTP/1.1\r\nHost: 127.0.0.1\r\n\
         Authorization: {BEARER}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let (status, text) = raw::raw_http(gateway, head, body.into_bytes()).await;
    let answer = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, answer)
}

/// The answer's `error`, or a panic naming the answer.
fn error(answer: &Value) -> &str {
    answer["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message in {answer}"))
}

/// Panics unless `answer` refuses principal `name` by name: escaped (no
/// control or bidi character reaches a log or a terminal) and clipped to
/// 64 characters.
fn assert_names(answer: &Value, name: &str) {
    let shown: String = name.chars().take(64).collect();
    let cut = if shown.len() < name.len() { "…" } else { "" };
    let expected = format!("principal `{}{cut}`", shown.escape_debug());
    let message = error(answer);
    assert!(
        message.starts_with(&expected),
        "{name:?}: expected {expected:?} in {message:?}"
    );
    assert!(message.len() < 600, "{name:?}: {} bytes", message.len());
}

/// `GET /api/v1/agents/{principal}` on every gateway: 200 and the same
/// principal, version and tools as `expected`.
async fn assert_agent(deployment: &Deployment, principal: &str, expected: &Value) {
    for gateway in &deployment.gateways {
        let (status, got) = agent_raw(gateway, &Method::GET, &encode(principal), None).await;
        assert_eq!(status, 200, "{principal}: {got}");
        for field in ["principal", "version", "tools", "profile"] {
            assert_eq!(got[field], expected[field], "{principal}: {field}");
        }
    }
}

/// Names outside `[A-Za-z0-9._@-]{1,128}`, and the dot segments.
fn refused_names() -> Vec<String> {
    let mut names: Vec<String> = [
        "",
        ".",
        "..",
        "a/b",
        "/",
        "../alice",
        "alice/..",
        ":",
        "alice:x",
        "mcp-profiles:agent:alice",
        "*",
        "a*",
        "?",
        "al?ce",
        "[",
        "[ab]lice",
        "\\",
        "\0",
        "alice\0",
        "%2F",
        "%61lice",
        "%",
        " ",
        " alice",
        "alice ",
        "al ice",
        "\t",
        "alice\n",
        "alice\r\n",
        "\u{a0}alice",
        "\u{202e}ecila",
        "\u{2066}alice\u{2069}",
        "\u{200b}alice",
        "\u{feff}alice",
        "\u{430}lice",
        "alice;bob",
        "alice,bob",
        "{principal}",
        "~",
        "\"",
        "'",
        "$",
    ]
    .map(String::from)
    .to_vec();
    names.push("x".repeat(MAX_PRINCIPAL_BYTES + 1));
    names.push("x".repeat(257));
    names.push("é".repeat(65));
    names.push("\u{202e}".repeat(100));
    names
}

/// Odd names the gateway accepts, each its own agent.
fn accepted_names() -> Vec<String> {
    let mut names: Vec<String> = [
        "Alice",
        "ALICE",
        "a",
        "0",
        "...",
        "-",
        "_",
        "@",
        ".alice",
        "alice.",
        "a..b",
        "-rf",
        "alice@example.com",
        "__proto__",
        "null",
    ]
    .map(String::from)
    .to_vec();
    names.push("x".repeat(MAX_PRINCIPAL_BYTES));
    names
}

on_both_stores!(principal_names, 2);

/// Each hostile principal name is refused naming it, on every route that
/// takes one, and nothing changes; each odd accepted name is stored exactly
/// under itself (in Redis: exactly its own keys), never as another agent.
async fn principal_names(mut deployment: Deployment) {
    let gateway = &deployment.gateways[0];
    let alice = put(gateway, "alice", TASK).await;
    let bob = put(gateway, "bob", CONFIG).await;
    grant(gateway, "alice-token", "alice").await;
    grant(gateway, "bob-token", "bob").await;
    let keys = deployment.keys();
    if let Some(keys) = &keys {
        let mut expected = agent_keys("alice", &["alice-token"]);
        expected.extend(agent_keys("bob", &["bob-token"]));
        expected.extend(store_keys());
        assert_eq!(keys, &expected);
    }
    let change = json!({ "profile": profile(OFFICE) });
    let mut refused = 0;

    for name in refused_names() {
        for method in [Method::PUT, Method::GET, Method::DELETE] {
            let body = (method == Method::PUT).then_some(&change);
            let (status, answer) = agent_raw(gateway, &method, &encode(&name), body).await;
            if name.is_empty() {
                assert_eq!(status, 404, "{method} of an empty name: {answer}");
                assert!(error(&answer).starts_with("no route"), "{answer}");
            } else {
                assert_eq!(status, 400, "{method} {name:?}: {answer}");
                assert_names(&answer, &name);
            }
            refused += 1;
        }
        let body = json!({ "token": "mallory-token", "principal": name });
        let (status, answer) = call(gateway, Method::POST, "/api/v1/tokens", Some(body)).await;
        assert_eq!(status, 400, "grant to {name:?}: {answer}");
        assert_names(&answer, &name);
        refused += 1;
    }

    // Paths exactly as written: the gateway resolves no dot segment and
    // decodes percent-encoding once, so no path reaches another agent.
    let long = "x".repeat(70_000);
    let written = [
        ("..", 400, "principal `..`"),
        (".", 400, "principal `.`"),
        ("%2E%2E", 400, "principal `..`"),
        ("%2e.", 400, "principal `..`"),
        (".%2E", 400, "principal `..`"),
        ("%2E", 400, "principal `.`"),
        ("alice/..", 404, "no route"),
        ("alice/.", 404, "no route"),
        ("../alice", 404, "no route"),
        ("./alice", 404, "no route"),
        ("bob/../alice", 404, "no route"),
        ("/alice", 404, "no route"),
        ("alice/", 404, "no route"),
        ("", 404, "no route"),
        ("..%2Falice", 400, "principal `../alice`"),
        ("alice%2F..%2Fbob", 400, "principal `alice/../bob`"),
        ("%2F", 400, "principal `/`"),
        ("%252F", 400, "principal `%2F`"),
        ("%25252e%25252e", 400, "principal `%252e%252e`"),
        ("%00", 400, "principal `\\0`"),
        ("%FF", 400, "Invalid UTF-8 in `principal`"),
        ("%C0%AE%C0%AE", 400, "Invalid UTF-8 in `principal`"),
        ("%", 400, "principal `%`"),
        ("%ZZ", 400, "principal `%ZZ`"),
        ("*", 400, "principal `*`"),
        ("a*", 400, "principal `a*`"),
        ("[ab]lice", 400, "principal `[ab]lice`"),
        ("alice%3Fx", 400, "principal `alice?x`"),
        ("alice%23x", 400, "principal `alice#x`"),
        (long.as_str(), 414, ""),
    ];
    for (segment, expected, needle) in written {
        for method in [Method::PUT, Method::GET, Method::DELETE] {
            let body = (method == Method::PUT).then_some(&change);
            let (status, answer) = agent_raw(gateway, &method, segment, body).await;
            let shown: String = segment.chars().take(40).collect();
            assert_eq!(status, expected, "{method} {shown}: {answer}");
            if expected != 414 {
                assert!(
                    error(&answer).contains(needle),
                    "{method} {shown}: {answer}"
                );
            }
            refused += 1;
        }
    }
    // A query is not part of the name; percent-encoded unreserved
    // characters are those characters (RFC 3986, 6.2.2.2): both name alice.
    for segment in [
        "alice?principal=bob",
        "alice?*",
        "%61lice",
        "%61%6C%69%63%65",
    ] {
        let (status, answer) = agent_raw(gateway, &Method::GET, segment, None).await;
        assert_eq!(status, 200, "{segment}: {answer}");
        assert_eq!(answer["principal"], "alice", "{segment}");
    }

    // Nothing changed, anywhere.
    assert_agent(&deployment, "alice", &alice).await;
    assert_agent(&deployment, "bob", &bob).await;
    assert_eq!(deployment.keys(), keys, "a refused name left a key");
    for other in &deployment.gateways {
        assert_eq!(admitted(other, "mallory-token").await, 401);
        assert_eq!(admitted(other, "alice-token").await, 200);
    }

    // Odd names the gateway accepts are their own agents, stored exactly.
    let accepted = accepted_names();
    let tokens: Vec<String> = (0..accepted.len()).map(|i| format!("odd-{i}")).collect();
    for (name, token) in accepted.iter().zip(&tokens) {
        let (status, answer) = agent_raw(gateway, &Method::PUT, &encode(name), Some(&change)).await;
        assert_eq!(status, 200, "{name:?}: {answer}");
        assert_eq!(
            (&answer["principal"], &answer["version"]),
            (&json!(name), &json!(1)),
            "{name:?}"
        );
        assert_agent(&deployment, name, &answer).await;
        grant(gateway, token, name).await;
    }
    if let Some(keys) = &keys {
        let mut expected = keys.clone();
        for (name, token) in accepted.iter().zip(&tokens) {
            expected.extend(agent_keys(name, &[token]));
        }
        assert_eq!(deployment.keys().as_ref(), Some(&expected));
    }
    for other in &deployment.gateways {
        for token in &tokens {
            assert_eq!(admitted(other, token).await, 200, "{token}");
        }
    }
    assert_agent(&deployment, "alice", &alice).await;
    assert_agent(&deployment, "bob", &bob).await;
    // Removing them removes exactly them (Redis keeps each one's last
    // version, so versions never repeat) and their tokens.
    for name in &accepted {
        let (status, answer) = agent_raw(gateway, &Method::DELETE, &encode(name), None).await;
        assert_eq!(status, 200, "{name:?}: {answer}");
        assert_eq!(answer["principal"], json!(name));
    }
    if let Some(keys) = &keys {
        let mut expected = keys.clone();
        expected.extend(
            accepted
                .iter()
                .map(|name| format!("{PREFIX}:version:{name}")),
        );
        assert_eq!(deployment.keys().as_ref(), Some(&expected));
    }
    // (On Redis the other gateways learn of it through the change feed.)
    for other in &deployment.gateways {
        for token in &tokens {
            until_refused(other, token).await;
        }
    }
    assert_agent(&deployment, "alice", &alice).await;
    assert_agent(&deployment, "bob", &bob).await;
    for gateway in &mut deployment.gateways {
        gateway.assert_alive();
    }
    eprintln!("hostile principal names: {refused} refused requests, nothing changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_store_takes_a_principal_as_a_name_never_a_pattern() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = RedisStore::<Kandev>::connect(&redis.url(), RedisOptions::default())
        .await
        .expect("the store connects");
    let office = ProfileContext::new(Surface::OfficeTask);
    let config = ProfileContext::new(Surface::Configuration);
    for principal in ["alice", "bob"] {
        store.put_agent(principal, office, by()).await.unwrap();
        store
            .grant_token(&format!("{principal}-token"), principal, by())
            .await
            .unwrap();
    }
    let mut before = agent_keys("alice", &["alice-token"]);
    before.extend(agent_keys("bob", &["bob-token"]));
    before.extend(store_keys());
    let keys = || -> BTreeSet<String> { redis.query(&["KEYS", "*"]).into_iter().collect() };
    assert_eq!(keys(), before);

    // Glob patterns that match alice or bob as Redis patterns name nobody.
    let patterns = [
        "*", "a*", "?lice", "[ab]*", "al[i]ce", "\\alice", "*:alice", "alice*",
    ];
    for pattern in patterns {
        assert!(store.agent(pattern).await.unwrap().is_none(), "{pattern}");
        assert!(
            !store.delete_agent(pattern, by()).await.unwrap().value,
            "{pattern}"
        );
        match store.grant_token("mallory-token", pattern, by()).await {
            Err(StoreError::UnknownPrincipal(error)) => assert_eq!(error.principal(), pattern),
            other => panic!("{pattern}: {other:?}"),
        }
        assert!(
            !store.revoke_token(pattern, by()).await.unwrap().value,
            "{pattern}"
        );
    }
    assert_eq!(keys(), before, "a pattern changed a key");

    // A principal named like a pattern is stored under exactly that name,
    // and removing it removes only it.
    for pattern in patterns {
        let change = store.put_agent(pattern, config, by()).await.unwrap().value;
        assert_eq!(change.agent.principal, pattern);
        let got = store.agent(pattern).await.unwrap().expect("stored");
        assert_eq!((got.principal.as_str(), got.version), (pattern, 1));
        assert_eq!(got.profile.context(), &config);
    }
    let mut expected = before.clone();
    for pattern in patterns {
        expected.extend(agent_keys(pattern, &[]));
    }
    assert_eq!(keys(), expected);
    for pattern in patterns {
        assert!(
            store.delete_agent(pattern, by()).await.unwrap().value,
            "{pattern}"
        );
        expected.remove(&format!("{PREFIX}:agent:{pattern}"));
    }
    assert_eq!(keys(), expected);
    for principal in ["alice", "bob"] {
        let got = store.agent(principal).await.unwrap().expect("untouched");
        assert_eq!((got.version, got.profile.context()), (1, &office));
    }
}

on_both_stores!(versions, 2);

/// A version that is not a whole number from 0 to `u64::MAX` is refused
/// naming it, and changes nothing; a whole one that is not current is 409
/// naming the current one; `null` is not "no version".
async fn versions(deployment: Deployment) {
    let gateway = &deployment.gateways[0];
    let alice = put(gateway, "alice", TASK).await;
    let keys = deployment.keys();
    let office = OFFICE;
    let cases = [
        ("-1", 400, "-1"),
        ("-0", 400, "-0"),
        ("1.5", 400, "1.5"),
        ("1.0", 400, "1.0"),
        ("1e0", 400, "1.0"),
        ("0.99999999999999999", 400, "1.0"),
        ("18446744073709551616", 400, "1.8446744073709552e+19"),
        ("1e400", 400, "number out of range"),
        ("-9223372036854775809", 400, "-9.223372036854776e+18"),
        (r#""1""#, 400, r#""1""#),
        (r#""""#, 400, r#""""#),
        ("null", 400, "null"),
        ("true", 400, "true"),
        ("[1]", 400, "[1]"),
        (r#"{"$gt":0}"#, 400, r#"{"$gt":0}"#),
        ("0", 409, "at version 1,"),
        ("2", 409, "at version 1,"),
        ("9007199254740993", 409, "at version 1,"),
        ("18446744073709551615", 409, "at version 1,"),
    ];
    for (version, status, needle) in cases {
        let body = format!(r#"{{"profile":{office},"version":{version}}}"#);
        let (got, answer) = gateway
            .control(
                &reqwest::Client::new(),
                Method::PUT,
                "/api/v1/agents/alice",
                Some(BEARER),
                Some(body),
            )
            .await;
        assert_eq!(got, status, "version {version}: {answer}");
        let message = error(&answer);
        assert!(message.contains(needle), "version {version}: {message}");
        if status == 400 && !message.contains("out of range") {
            assert!(
                message.contains("`version`"),
                "version {version}: {message}"
            );
        }
    }
    assert_agent(&deployment, "alice", &alice).await;
    assert_eq!(deployment.keys(), keys);

    // The current version applies once; a new agent only at version 0.
    let office = profile(OFFICE);
    assert_eq!(put_at(gateway, "alice", &office, 1).await, Ok(json!(2)));
    assert_eq!(put_at(gateway, "alice", &office, 1).await, Err(2));
    assert_eq!(put_at(gateway, "carol", &office, 0).await, Ok(json!(1)));
    assert_eq!(put_at(gateway, "carol", &office, 0).await, Err(1));
}

/// A compare-and-set PUT of `profile` at `version`: the new version, or
/// the current one a 409 names; panics on anything else.
async fn put_at(
    gateway: &Server,
    principal: &str,
    profile: &Value,
    version: u64,
) -> Result<Value, u64> {
    let body = json!({ "profile": profile, "version": version });
    let path = format!("/api/v1/agents/{principal}");
    match call(gateway, Method::PUT, &path, Some(body)).await {
        (200, answer) => Ok(answer["version"].clone()),
        (409, answer) => Err(current_version(&answer)),
        (status, answer) => panic!("PUT {path} at version {version}: {status} {answer}"),
    }
}

on_both_stores!(versions_never_repeat_across_a_delete, 2);

/// A compare-and-set holding a version of a deleted agent never applies to
/// the agent made again under its name: versions go on, never repeat.
async fn versions_never_repeat_across_a_delete(deployment: Deployment) {
    let gateway = &deployment.gateways[0];
    put(gateway, "alice", TASK).await;
    let second = put(gateway, "alice", CONFIG).await;
    assert_eq!(second["version"], json!(2));
    let (status, _) = call(gateway, Method::DELETE, "/api/v1/agents/alice", None).await;
    assert_eq!(status, 200);
    let (office, task) = (profile(OFFICE), profile(TASK));
    assert_eq!(put_at(gateway, "alice", &office, 2).await, Err(0));
    // Made again: its versions go on from the removal (which counts as one).
    assert_eq!(put_at(gateway, "alice", &task, 0).await, Ok(json!(4)));
    for version in [1, 2] {
        assert_eq!(put_at(gateway, "alice", &office, version).await, Err(4));
    }
    let (_, again) = call(gateway, Method::GET, "/api/v1/agents/alice", None).await;
    assert_eq!(
        (&again["version"], &again["profile"]["surface"]),
        (&json!(4), &json!("kanban-task"))
    );
    assert_agent(&deployment, "alice", &again).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tokens_methods_paths_and_bodies_are_refused_and_change_nothing() {
    let deployment = Deployment::memory().await;
    let gateway = &deployment.gateways[0];
    let http = reqwest::Client::new();
    let alice = put(gateway, "alice", TASK).await;
    grant(gateway, "alice-token", "alice").await;
    let session = Session::connect(http_transport(&gateway.mcp, Some("alice-token"))).await;
    let tools = session.tool_names().await;
    assert_eq!(tools, names(&alice));
    let mut refused = 0;

    // Bad control tokens on every route: 401, before anything is read.
    let routes = routes("alice");
    refused += raw::refuse_bad_tokens(gateway, &http, &routes).await;
    raw::accept_token_in_whitespace(gateway, &http, "/api/v1/agents/alice").await;

    // Bodies past the cap, with a length or chunked: 413.
    for (method, path, body) in &routes {
        let Some(body) = body else { continue };
        let limit = if path.ends_with("/plugin-tools") {
            kandev_mcp::control::MAX_SNAPSHOT_BYTES
        } else {
            kandev_mcp::control::MAX_BODY_BYTES
        };
        // The route's own body, left open for padding.
        let text = String::from_utf8(body.clone()).unwrap();
        let head = format!("{},\"pad\":\"", text.strip_suffix('}').unwrap());
        refused += raw::refuse_oversize(gateway, method, path, &head, limit).await;
    }

    // Malformed bodies, duplicate keys, depth bombs: 400 naming the problem.
    let agent = "/api/v1/agents/alice";
    let tokens = "/api/v1/tokens";
    let revoke = "/api/v1/tokens/revoke";
    let kill = KILL_SWITCH;
    let office = OFFICE;
    let deep = |open: &str, n: usize| open.repeat(n);
    let bodies: Vec<(Method, &str, String, &str)> = vec![
        (Method::PUT, agent, String::new(), "EOF while parsing"),
        (Method::PUT, agent, "{}".into(), "missing field `profile`"),
        (Method::PUT, agent, "null".into(), "invalid type: null"),
        (Method::PUT, agent, "[]".into(), "invalid type: sequence"),
        (Method::PUT, agent, office.into(), "unknown field `surface`"),
        (
            Method::PUT,
            agent,
            format!("[{office}]"),
            "invalid type: sequence, expected a JSON object",
        ),
        (
            Method::POST,
            tokens,
            r#"["mallory-token","alice"]"#.into(),
            "invalid type: sequence, expected a JSON object",
        ),
        (
            Method::POST,
            revoke,
            r#"["alice-token"]"#.into(),
            "invalid type: sequence, expected a JSON object",
        ),
        (
            Method::PUT,
            agent,
            format!(r#"{{"profile":{office},"profile":{TASK}}}"#),
            "duplicate field `profile`",
        ),
        (
            Method::PUT,
            agent,
            format!(r#"{{"profile":{office},"version":1,"version":2}}"#),
            "duplicate field `version`",
        ),
        (
            Method::PUT,
            agent,
            r#"{"profile":{"surface":"office-task","surface":"external"}}"#.into(),
            "duplicate field `surface`",
        ),
        (
            Method::PUT,
            agent,
            format!(r#"{{"profile":{office},"principal":"bob"}}"#),
            "unknown field `principal`",
        ),
        (
            Method::PUT,
            agent,
            format!(r#"{{"Profile":{office}}}"#),
            "unknown field `Profile`",
        ),
        (
            Method::PUT,
            agent,
            format!(r#"{{"profile":{office}}} {{}}"#),
            "trailing characters",
        ),
        (
            Method::PUT,
            agent,
            format!("\u{feff}{{\"profile\":{office}}}"),
            "expected value",
        ),
        (
            Method::PUT,
            agent,
            format!(r#"{{"profile":{}"#, deep("[", 60_000)),
            "invalid type: sequence, expected a profile context object",
        ),
        (
            Method::PUT,
            agent,
            format!(
                r#"{{"profile":{{"surface":"kanban-task","capabilities":{}"#,
                deep("[", 60_000)
            ),
            // Each member of a profile is read whole before the context's
            // decoder sees it (Kandev's policies may ride along), so this
            // truncated nesting ends at the end of the body.
            "EOF while parsing a list",
        ),
        (
            Method::PUT,
            agent,
            format!(r#"{{"version":{}"#, deep(r#"{"a":"#, 10_000)),
            "recursion limit exceeded",
        ),
        (
            Method::PUT,
            agent,
            deep("[", 60_000),
            "invalid type: sequence, expected a JSON object",
        ),
        (
            Method::PUT,
            agent,
            format!(r#"{{"x":{}"#, deep(r#"{"x":"#, 10_000)),
            "unknown field `x`",
        ),
        (
            Method::POST,
            tokens,
            r#"{"token":"a-token","token":"b-token","principal":"alice"}"#.into(),
            "duplicate field `token`",
        ),
        (
            Method::POST,
            tokens,
            r#"{"token":"a-token","principal":"alice","principal":"bob"}"#.into(),
            "duplicate field `principal`",
        ),
        (
            Method::POST,
            tokens,
            r#"{"token":"a-token"}"#.into(),
            "missing field `principal`",
        ),
        (
            Method::POST,
            tokens,
            r#"{"token":7,"principal":"alice"}"#.into(),
            "invalid type: integer",
        ),
        (
            Method::POST,
            tokens,
            r#"{"token":["a-token"],"principal":"alice"}"#.into(),
            "invalid type: sequence",
        ),
        (
            Method::POST,
            tokens,
            r#"{"token":"a-token","principal":null}"#.into(),
            "invalid type: null",
        ),
        (
            Method::POST,
            tokens,
            r#"{"token":"a-token","principal":"ALICE"}"#.into(),
            "unknown principal `ALICE`",
        ),
        (
            Method::POST,
            tokens,
            format!(r#"{{"token":{}"#, deep("[", 60_000)),
            "invalid type: sequence, expected a string",
        ),
        (
            Method::POST,
            revoke,
            r#"{"token":"alice-token","token":"b-token"}"#.into(),
            "duplicate field `token`",
        ),
        (Method::POST, revoke, "{}".into(), "missing field `token`"),
        (
            Method::PUT,
            kill,
            r#"["kanban-task"]"#.into(),
            "invalid type: sequence, expected a JSON object",
        ),
        (
            Method::PUT,
            kill,
            r#"{"deny":[],"deny":["kanban-task"],"version":0}"#.into(),
            "duplicate field `deny`",
        ),
        (
            Method::PUT,
            kill,
            r#"{"deny":["kanban-task"],"version":0,"version":1}"#.into(),
            "duplicate field `version`",
        ),
        (
            Method::PUT,
            kill,
            r#"{"deny":["kanban_task"],"version":0}"#.into(),
            "unknown tool or tool group `kanban_task`; did you mean `kanban-task`?",
        ),
        (
            Method::PUT,
            kill,
            r#"{"deny":["kanban-task","kanban-task"],"version":0}"#.into(),
            "`kanban-task` is listed twice",
        ),
        (
            Method::PUT,
            kill,
            r#"{"deny":["KANBAN-TASK"],"version":0}"#.into(),
            "`KANBAN-TASK`",
        ),
        (
            Method::PUT,
            kill,
            r#"{"deny":["kanban-task\u0000"],"version":0}"#.into(),
            "unknown tool or tool group",
        ),
        (
            Method::PUT,
            kill,
            r#"{"deny":["kanban-task"],"version":0,"Deny":[]}"#.into(),
            "unknown field `Deny`",
        ),
        (
            Method::PUT,
            kill,
            format!(r#"{{"deny":{}"#, deep("[", 60_000)),
            "invalid type: sequence, expected a string",
        ),
        (
            Method::POST,
            revoke,
            r#"{"token":"alice-token","principal":"alice"}"#.into(),
            "unknown field `principal`",
        ),
        (
            Method::POST,
            revoke,
            format!(r#"{{"token":{}"#, deep(r#"{"a":"#, 10_000)),
            "invalid type: map, expected a string",
        ),
    ];
    for (method, path, body, needle) in &bodies {
        let (status, answer) = gateway
            .control(
                &http,
                method.clone(),
                path,
                Some(BEARER),
                Some(body.clone()),
            )
            .await;
        let shown: String = body.chars().take(80).collect();
        assert_eq!(status, 400, "{method} {path} {shown}: {answer}");
        assert!(
            error(&answer).contains(needle),
            "{method} {path} {shown}: expected {needle:?} in {answer}"
        );
        refused += 1;
    }

    // Tokens that no client could present, or that are too long: refused
    // without being shown.
    let long = "t".repeat(kandev_mcp::gateway::control::MAX_TOKEN_BYTES + 1);
    for (token, needle) in [
        ("", "1 to 1024 bytes"),
        (long.as_str(), "1 to 1024 bytes"),
        ("two words", "character 4"),
        ("tab\ttoken", "character 4"),
        ("nul\0token", "character 4"),
        ("\u{202e}token", "character 1"),
        ("tökén", "character 2"),
        ("token\u{a0}", "character 6"),
    ] {
        for (path, body) in [
            (tokens, json!({ "token": token, "principal": "alice" })),
            (revoke, json!({ "token": token })),
        ] {
            let (status, answer) = call(gateway, Method::POST, path, Some(body)).await;
            assert_eq!(status, 400, "{path} {token:?}: {answer}");
            let message = error(&answer);
            assert!(message.contains(needle), "{path} {token:?}: {message}");
            if !token.is_empty() {
                assert!(
                    !message.contains(token),
                    "{path} showed the token: {message}"
                );
            }
            refused += 1;
        }
    }

    // Bodies not declared as JSON: 415.
    for (method, path, body) in &routes {
        let Some(body) = body else { continue };
        for content_type in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/jsonx",
        ] {
            let status = http
                .request(method.clone(), format!("{}{path}", gateway.control))
                .header("Authorization", BEARER)
                .header("Content-Type", content_type)
                .body(body.clone())
                .send()
                .await
                .expect("the control API answers")
                .status();
            assert_eq!(status.as_u16(), 415, "{method} {path} as {content_type}");
            refused += 1;
        }
    }

    // Wrong methods (405) and unknown paths (404), with the right token.
    for (method, path) in [
        (Method::POST, agent),
        (Method::PATCH, agent),
        (Method::GET, tokens),
        (Method::PUT, tokens),
        (Method::DELETE, tokens),
        (Method::GET, revoke),
        (Method::DELETE, revoke),
        (Method::POST, kill),
        (Method::DELETE, kill),
        (Method::PATCH, kill),
    ] {
        let (status, answer) = gateway
            .control(&http, method.clone(), path, Some(BEARER), Some("{}".into()))
            .await;
        assert_eq!(status, 405, "{method} {path}: {answer}");
        refused += 1;
    }
    for path in [
        "/api/v1/agents",
        "/api/v1/agent/alice",
        "/api/v1/Agents/alice",
        "/API/V1/AGENTS/alice",
        "/api/v1/agents//alice",
        "/api/v1/agents/alice/tokens",
        "/api/v1/tokens/",
        "/api/v1/tokens/revoke/alice-token",
        "/api/v1/kill-switch/",
        "/api/v1/kill_switch",
        "/api/v1/kill-switch/review",
        "/api/v2/agents/alice",
        "/api/v1/mcp/profile",
        "/mcp",
    ] {
        for method in [Method::GET, Method::PUT, Method::POST] {
            let body = format!(r#"{{"profile":{office}}}"#);
            let (status, answer) = gateway
                .control(&http, method.clone(), path, Some(BEARER), Some(body))
                .await;
            assert_eq!(status, 404, "{method} {path}: {answer}");
            refused += 1;
        }
    }

    // Nothing changed: the agent, its tokens, its session, the kill switch.
    assert_agent(&deployment, "alice", &alice).await;
    let (status, switch) = call(gateway, Method::GET, kill, None).await;
    assert_eq!((status, switch), (200, json!({"deny": [], "version": 0})));
    assert_eq!(admitted(gateway, "alice-token").await, 200);
    for token in ["mallory-token", "a-token", "b-token"] {
        assert_eq!(admitted(gateway, token).await, 401, "{token}");
    }
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 0, "a refused request notified");
    assert_eq!(session.tool_names().await, tools);
    eprintln!("hostile gateway control: {refused} refused requests, nothing changed");
}

/// A way to one gateway's control API for many requests at once: a client
/// whose connections are kept for the whole test, and at most [`SLOTS`]
/// requests in flight. The control listener takes 32 connections and
/// answers 503 past them, and a pool lets its idle connections pile up (a
/// request may open a new one while another is on its way back): so at
/// most `SLOTS` idle ones are kept, and a lane holds at most `2 * SLOTS`.
#[derive(Clone)]
struct Lane {
    http: reqwest::Client,
    slots: Arc<Semaphore>,
    control: String,
}

/// How many requests a lane has in flight at once.
const SLOTS: usize = 12;

fn lanes(gateways: &[Server]) -> Vec<Lane> {
    gateways
        .iter()
        .map(|gateway| Lane {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(SLOTS)
                .build()
                .expect("a client"),
            slots: Arc::new(Semaphore::new(SLOTS)),
            control: gateway.control.clone(),
        })
        .collect()
}

impl Lane {
    /// `PUT /api/v1/agents/{principal}` of `body`: the status and answer.
    async fn put(&self, principal: &str, body: &Value) -> (u16, Value) {
        let _slot = self.slots.acquire().await.expect("the lane stays open");
        let response = self
            .http
            .put(format!("{}/api/v1/agents/{principal}", self.control))
            .header("Authorization", BEARER)
            .json(body)
            .send()
            .await
            .expect("the control API answers");
        let status = response.status().as_u16();
        (status, response.json().await.expect("a JSON answer"))
    }
}

/// Sends each body as `PUT /api/v1/agents/{principal}`, all released at
/// once, spread over `lanes` in turn; every status and answer, in the
/// bodies' order.
async fn race(lanes: &[Lane], principal: &str, bodies: Vec<Value>) -> Vec<(u16, Value)> {
    let start = Arc::new(Barrier::new(bodies.len()));
    let tasks: Vec<_> = bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| {
            let lane = lanes[i % lanes.len()].clone();
            let (start, principal) = (Arc::clone(&start), principal.to_owned());
            tokio::spawn(async move {
                start.wait().await;
                lane.put(&principal, &body).await
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.expect("a racer finished"));
    }
    answers
}

/// The version a 409's message says is current.
fn current_version(answer: &Value) -> u64 {
    let message = error(answer);
    message
        .split_once("at version ")
        .and_then(|(_, rest)| rest.split(',').next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no current version in {message:?}"))
}

on_both_stores!(racing_compare_and_set, 3);

/// 100 compare-and-set PUTs of one version race on one principal: exactly
/// one applies, 99 get 409 naming the version it made, and what is stored
/// is what the winner sent, heard once by every session. Then 100 writers
/// each retry until their own change is in: every one gets exactly one
/// version, none is lost.
async fn racing_compare_and_set(deployment: Deployment) {
    let gateways = &deployment.gateways;
    let contexts: Vec<Value> = ProfileContext::<Kandev>::all()
        .map(|context| profile(&context.to_json()))
        .collect();
    let first = put(&gateways[0], "alice", TASK).await;
    grant(&gateways[0], "alice-token", "alice").await;
    let mut sessions = Vec::new();
    for gateway in gateways {
        sessions.push(Session::connect(http_transport(&gateway.mcp, Some("alice-token"))).await);
    }
    let lanes = lanes(gateways);
    let mut version = first["version"].as_u64().unwrap();
    let mut heard = 0;
    for round in 0..5 {
        let bodies = (0..100)
            .map(|i| json!({ "profile": contexts[(round * 100 + i) % contexts.len()], "version": version }))
            .collect();
        let answers = race(&lanes, "alice", bodies).await;
        let winners: Vec<&Value> = answers
            .iter()
            .filter(|(status, _)| *status == 200)
            .map(|(_, answer)| answer)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {} won", winners.len());
        let winner = winners[0];
        assert_eq!(winner["version"], json!(version + 1), "{winner}");
        for (status, answer) in &answers {
            if *status != 200 {
                assert_eq!(*status, 409, "round {round}: {answer}");
                assert_eq!(current_version(answer), version + 1, "{answer}");
            }
        }
        version += 1;
        assert_agent(&deployment, "alice", winner).await;
        if winner["changed"] == json!(true) {
            heard += 1;
        }
        for session in &sessions {
            assert_eq!(session.wait_for_notifications(heard, LIMIT).await, heard);
        }
        tokio::time::sleep(QUIET).await;
        for session in &sessions {
            assert_eq!(
                session.notifications(),
                heard,
                "round {round}: a second list_changed"
            );
            assert_eq!(session.tool_names().await, names(winner));
        }
    }

    // 100 writers, each retrying with the version its 409 names until its
    // own change is in.
    let start = Arc::new(Barrier::new(100));
    let tasks: Vec<_> = (0..100)
        .map(|i| {
            let lane = lanes[i % lanes.len()].clone();
            let context = contexts[i % contexts.len()].clone();
            let start = Arc::clone(&start);
            let mut expected = version;
            tokio::spawn(async move {
                start.wait().await;
                let mut attempts = 0;
                loop {
                    attempts += 1;
                    let body = json!({ "profile": context, "version": expected });
                    match lane.put("alice", &body).await {
                        (200, answer) => return (answer, attempts),
                        (409, answer) => expected = current_version(&answer),
                        (status, answer) => panic!("writer {i}: {status} {answer}"),
                    }
                }
            })
        })
        .collect();
    let mut won = Vec::new();
    let mut attempts = 0;
    for task in tasks {
        let (answer, tries) = task.await.expect("a writer finished");
        won.push(answer);
        attempts += tries;
    }
    let versions: BTreeSet<u64> = won
        .iter()
        .map(|answer| answer["version"].as_u64().unwrap())
        .collect();
    assert_eq!(
        versions,
        (version + 1..=version + 100).collect(),
        "every writer got its own version, and no version was skipped"
    );
    let last = won
        .iter()
        .max_by_key(|answer| answer["version"].as_u64())
        .unwrap();
    assert_agent(&deployment, "alice", last).await;
    // Every session ends up listing what is stored (how many notifications
    // it took depends on how the changes fell).
    let expected = names(last);
    let deadline = tokio::time::Instant::now() + LIMIT;
    for session in &sessions {
        while session.tool_names().await != expected {
            assert!(
                tokio::time::Instant::now() < deadline,
                "a session still lists an older profile"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    eprintln!(
        "racing compare-and-set on {} gateway(s): 5 rounds of 100 with one winner each; \
         100 writers in {attempts} attempts, versions {}..={}",
        gateways.len(),
        version + 1,
        version + 100
    );
}

on_both_stores!(tokens_serve_only_their_principal, 2);

/// A token serves only the principal it was granted for, whatever other
/// tokens exist; a session answers only the token that opened it; moving a
/// token to another principal ends what it opened, and never lets that
/// session see the other principal's tools.
async fn tokens_serve_only_their_principal(deployment: Deployment) {
    let gateways = &deployment.gateways;
    let alice = put(&gateways[0], "alice", TASK).await;
    let bob = put(&gateways[0], "bob", OFFICE).await;
    grant(&gateways[0], "alice-token", "alice").await;
    grant(&gateways[0], "alice-phone", "alice").await;
    grant(&gateways[0], "bob-token", "bob").await;
    let bob_only: Vec<String> = names(&bob)
        .into_iter()
        .filter(|tool| !names(&alice).contains(tool))
        .collect();
    assert!(!bob_only.is_empty());
    let digest = sha256("alice-token");
    let key = format!("{PREFIX}:token:{digest}");
    let near = [
        "alice",
        "bob",
        "alice-toke",
        "alice-token-",
        "alice-token2",
        "Alice-token",
        "ALICE-TOKEN",
        "alice_token",
        "alice-token,bob-token",
        "*",
        "alice-*",
        "mcp-profiles:token:*",
        digest.as_str(),
        key.as_str(),
    ];

    for gateway in gateways {
        for token in near {
            assert_eq!(admitted(gateway, token).await, 401, "{token}");
        }
        for (token, answer) in [
            ("alice-token", &alice),
            ("alice-phone", &alice),
            ("bob-token", &bob),
        ] {
            let session = Session::connect(http_transport(&gateway.mcp, Some(token))).await;
            assert_eq!(session.tool_names().await, names(answer), "{token}");
            if answer == &alice {
                for tool in &bob_only {
                    assert_eq!(
                        session.call(tool, None).await,
                        refused(tool),
                        "{token}: {tool}"
                    );
                }
            }
        }
        // A session answers only the token that opened it: another
        // principal's token, or another token of the same principal, is
        // refused as if the session did not exist.
        let opened = RawSession::open(&gateway.mcp, "alice-token").await;
        assert_eq!(opened.list_status("bob-token").await, 404);
        assert_eq!(opened.list_status("alice-phone").await, 404);
        assert_eq!(opened.list_status("mallory-token").await, 401);
        assert_eq!(opened.list_status("alice-token").await, 200);
        let bobs = RawSession::open(&gateway.mcp, "bob-token").await;
        assert_eq!(bobs.list_status("alice-token").await, 404);
        assert_eq!(bobs.list_status("bob-token").await, 200);
    }

    // Granting alice's token to bob ends what it opened as alice, on every
    // gateway; new sessions with it are bob's.
    let mut opened = Vec::new();
    let mut sessions = Vec::new();
    for gateway in gateways {
        opened.push(RawSession::open(&gateway.mcp, "alice-token").await);
        sessions.push(Session::connect(http_transport(&gateway.mcp, Some("alice-token"))).await);
    }
    grant(&gateways[gateways.len() - 1], "alice-token", "bob").await;
    for (raw, session) in opened.iter_mut().zip(&sessions) {
        raw.expect_stream_end().await;
        assert_eq!(raw.list_status("alice-token").await, 404);
        // rmcp's client answers the 404 by initialising a new session with
        // its token, which is bob's now: whatever it lists is never alice's.
        if let Ok(tools) = session.service.list_all_tools().await {
            let mut tools: Vec<String> = tools.into_iter().map(|t| t.name.into()).collect();
            tools.sort();
            assert_eq!(tools, names(&bob), "after the move");
        }
    }
    for gateway in gateways {
        let session = Session::connect(http_transport(&gateway.mcp, Some("alice-token"))).await;
        assert_eq!(session.tool_names().await, names(&bob));
        let tool = &bob_only[0];
        assert_ne!(session.call(tool, None).await, refused(tool));
        // alice's other token still serves alice.
        let phone = Session::connect(http_transport(&gateway.mcp, Some("alice-phone"))).await;
        assert_eq!(phone.tool_names().await, names(&alice));
    }
    assert_agent(&deployment, "alice", &alice).await;
    assert_agent(&deployment, "bob", &bob).await;
}
