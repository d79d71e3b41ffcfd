//! The resource server end to end with the official TypeScript MCP SDK's
//! OAuth client: an authorization server built on the SDK's `mcpAuthRouter`
//! (`tests/node/oauth/authorization-server.mjs`) and the SDK's `Client`
//! with an `authProvider` (`tests/node/oauth/client.mjs`), against
//! `oauth_router` on 127.0.0.1. The client discovers the issuer through our
//! resource metadata, registers, authorizes with PKCE, connects, and steps
//! up on our 403 `insufficient_scope`.
//!
//! Node and the SDK come from `scripts/oauth-sdk.sh install` (under
//! `target/oauth-sdk`). Without them the test says it was skipped and
//! passes; with `MCP_PROFILES_REQUIRE_OAUTH_SDK=1` (set by CI) it fails.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_profiles_serve::ProfileStore;
use mcp_profiles_serve::oauth::{ClaimMapping, OAuth, OAuthConfig, TokenValidator};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::contexts::Context;
use mcp_profiles_tests::node_sdk::Sdk;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Child;

/// The variable that turns a missing SDK into a failure.
/// The subject of the authorization server's tokens: an agent here.
const SUBJECT: &str = "alice";
/// `tasks:title` is asked for only when a call needs it.
const MAPPING: &str = r#"{
    "scopes": {"tasks:ask": ["user-question"], "tasks:title": ["task-title"]},
    "step_up": ["tasks:title"]
}"#;
const AGENT: &str = r#"{"surface":"kanban-task","capabilities":["user-question","task-title"]}"#;
/// Bounds a hung process, never a measure: the flow takes about a second.
const LIMIT: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_client_authorizes_and_steps_up() {
    let Some(sdk) = Sdk::find(
        "the OAuth test with the TypeScript MCP SDK",
        "cargo test -p mcp-profiles-tests --test integration oauth::sdk",
    ) else {
        return;
    };
    let scripts = sdk.scripts("oauth", &["authorization-server.mjs", "client.mjs"]);

    let mut issuer = sdk.node(&scripts.join("authorization-server.mjs"));
    issuer.arg(SUBJECT);
    let mut issuer = issuer.spawn().expect("the authorization server starts");
    let issuer_log = collect(issuer.stderr.take().expect("piped stderr"));
    let issuer_url = first_line(&mut issuer, &issuer_log).await["issuer"]
        .as_str()
        .expect("the authorization server names its issuer")
        .to_owned();

    // Bound first: the resource URI names the port.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let resource = format!("http://{addr}/mcp");
    let config = OAuthConfig::new(&issuer_url, &resource).expect("a valid config");
    let mapping = ClaimMapping::<TaskServer>::from_json(MAPPING).expect("a valid mapping");
    let oauth = Arc::new(OAuth::new(TokenValidator::new(config), mapping));
    let store = Arc::new(ProfileStore::<TaskServer>::default());
    store.add_agent(SUBJECT, Context::from_json(AGENT).expect("a valid context"));
    let handler = TaskServer::default();
    let app =
        mcp_profiles_serve::http::oauth_router(&store, handler.clone(), oauth, Default::default());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let client = sdk
        .node(&scripts.join("client.mjs"))
        .arg(&resource)
        .output();
    let output = tokio::time::timeout(LIMIT, client)
        .await
        .expect("the client finishes")
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = || {
        format!(
            "client stdout:\n{stdout}\nclient stderr:\n{}\nauthorization server log:\n{}",
            String::from_utf8_lossy(&output.stderr),
            issuer_log.lock().unwrap()
        )
    };
    assert!(output.status.success(), "the client failed\n{}", report());
    let steps: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let names: Vec<&str> = steps
        .iter()
        .map(|step| step["step"].as_str().expect("a step name"))
        .collect();
    assert_eq!(
        names,
        [
            // 401, discovery through our metadata, registration, PKCE.
            "challenge",
            "registered",
            "authorize",
            "unauthorized",
            "token",
            "connected",
            "tools/list",
            // 403 insufficient_scope, authorization with its scope.
            "challenge",
            "authorize",
            "unauthorized",
            "token",
            "call",
            "tools/list",
            "done",
        ],
        "{}",
        report()
    );
    let [unauthorized, insufficient] = [0, 7].map(|at| &steps[at]);
    let metadata_url = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
    assert_eq!(unauthorized["status"], 401);
    assert_eq!(
        unauthorized["www_authenticate"],
        format!(r#"Bearer resource_metadata="{metadata_url}", scope="tasks:ask""#)
    );
    assert_eq!(insufficient["status"], 403);
    let challenge = insufficient["www_authenticate"].as_str().unwrap();
    assert!(
        challenge.contains(r#"error="insufficient_scope""#)
            && challenge.contains(r#"scope="tasks:ask tasks:title""#),
        "{challenge}"
    );

    // Each authorization asks for the challenge's scopes, for our resource,
    // with PKCE; each token has them.
    let [first, second] = [2, 8].map(|at| &steps[at]);
    for (authorize, scope) in [(first, "tasks:ask"), (second, "tasks:ask tasks:title")] {
        assert_eq!(authorize["scope"], scope, "{}", report());
        assert_eq!(authorize["resource"], resource.as_str());
        assert_eq!(authorize["code_challenge_method"], "S256");
    }
    assert_eq!(steps[4]["scope"], "tasks:ask");
    assert_eq!(steps[10]["scope"], "tasks:ask tasks:title");

    // The first token's profile hides `set_task_title`; the stepped-up one
    // shows it, in the same session, and the call ran once.
    let tools = |at: usize| -> Vec<&str> {
        steps[at]["tools"]
            .as_array()
            .expect("tool names")
            .iter()
            .map(|name| name.as_str().expect("a tool name"))
            .collect()
    };
    let (before, after) = (tools(6), tools(12));
    assert!(before.contains(&"ask_user_question"), "{before:?}");
    assert!(!before.contains(&"set_task_title"), "{before:?}");
    assert!(after.contains(&"set_task_title"), "{after:?}");
    assert!(after.contains(&"ask_user_question"), "{after:?}");
    let call = &steps[11];
    assert_eq!(call["stepped_up"], true);
    assert_eq!(call["is_error"], false);
    assert_eq!(call["session"], steps[5]["session"]);
    assert_eq!(handler.calls("set_task_title"), 1);

    // The authorization server saw one registration, two authorizations,
    // two token grants.
    let counts: Value = reqwest::get(format!("{issuer_url}/counts"))
        .await
        .expect("the authorization server answers")
        .json()
        .await
        .expect("JSON counts");
    assert_eq!(
        counts,
        serde_json::json!({"registrations": 1, "authorizations": 2, "token_grants": 2}),
        "{}",
        report()
    );
    server.abort();
}

/// Everything `stderr` says, as it says it.
fn collect(stderr: tokio::process::ChildStderr) -> Arc<Mutex<String>> {
    let log = Arc::new(Mutex::new(String::new()));
    let into = Arc::clone(&log);
    tokio::spawn(async move {
        let mut stderr = stderr;
        let mut chunk = [0u8; 4096];
        while let Ok(read @ 1..) = stderr.read(&mut chunk).await {
            into.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&chunk[..read]));
        }
    });
    log
}

/// The child's first stdout line, as JSON.
async fn first_line(child: &mut Child, log: &Mutex<String>) -> Value {
    let stdout = child.stdout.take().expect("piped stdout");
    let line = tokio::time::timeout(LIMIT, BufReader::new(stdout).lines().next_line())
        .await
        .expect("the authorization server starts")
        .expect("its stdout reads");
    let Some(line) = line else {
        panic!(
            "the authorization server exited without its URL:\n{}",
            log.lock().unwrap()
        );
    };
    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"))
}
