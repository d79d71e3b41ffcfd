//! Plugin tools on the wire: `PUT /api/v1/mcp/plugin-tools` installs
//! Kandev's snapshot into a running `kandev-mcp serve`, real rmcp clients of
//! both protocol eras see it with exactly one `tools/list_changed`, and
//! calls are validated and forwarded to a plugin backend on loopback.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{BEARER, LIMIT, QUIET, Server};
use axum::Json;
use axum::response::IntoResponse;
use axum::routing::post;
use kandev_mcp::plugins::exposed_name;
use mcp_profiles_tests::client::Session;
use mcp_profiles_tests::modern::{ModernSession, expect_one_list_changed, expect_silence};
use reqwest::Method;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{ServiceError, Subscription};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

const PATH: &str = "/api/v1/mcp/plugin-tools";

/// The exposed name of plugin `acme`'s tool `local`.
pub(crate) fn acme(local: &str) -> String {
    exposed_name("acme", local)
}

/// A plugin tool of plugin `acme`, taking `{"text": string}`.
pub(crate) fn tool(local: &str, surfaces: &[&str]) -> Value {
    json!({
        "plugin_id": "acme",
        "local_name": local,
        "exposed_name": acme(local),
        "description": format!("Acme's {local}"),
        "surfaces": surfaces,
        "input_schema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": false
        },
        "read_only_hint": true,
        "destructive_hint": false,
        "idempotent_hint": true,
        "open_world_hint": false
    })
}

pub(crate) fn snapshot(revision: u64, tools: Vec<Value>) -> String {
    json!({"generation": "gen-1", "revision": revision, "tools": tools}).to_string()
}

/// A plugin backend on loopback that records each call and answers by the
/// tool's local name: `echo` echoes, `fails` reports an error, `slow`
/// never answers in time, `garbage` answers something else than JSON.
pub(crate) struct PluginBackend {
    pub(crate) url: String,
    calls: Arc<Mutex<Vec<Value>>>,
}

impl PluginBackend {
    pub(crate) async fn start() -> Self {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&calls);
        let app = axum::Router::new().route(
            "/invoke",
            post(move |Json(call): Json<Value>| {
                let recorded = Arc::clone(&recorded);
                async move {
                    recorded.lock().unwrap().push(call.clone());
                    let text = call["arguments"]["text"].as_str().unwrap_or_default();
                    match call["local_name"].as_str() {
                        Some("echo") => Json(json!({
                            "text": format!("{} says {text}", call["surface"].as_str().unwrap()),
                            "structured_content": {"echoed": text},
                            "is_error": false
                        }))
                        .into_response(),
                        Some("fails") => Json(json!({"text": "quota exceeded", "is_error": true}))
                            .into_response(),
                        Some("slow") => {
                            tokio::time::sleep(Duration::from_secs(30)).await;
                            Json(json!({"text": "late", "is_error": false})).into_response()
                        }
                        _ => "<html>not json</html>".into_response(),
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/invoke", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        PluginBackend { url, calls }
    }

    pub(crate) fn calls(&self) -> Vec<Value> {
        self.calls.lock().unwrap().clone()
    }
}

/// A server with one 2025-era session and one subscribed 2026-07-28 session.
struct Served {
    server: Server,
    http: reqwest::Client,
    legacy: Session,
    modern: ModernSession,
    events: Subscription,
}

impl Served {
    async fn start(args: &[&str]) -> Self {
        let server = Server::start_with_args(args).await;
        let legacy = server.connect().await;
        let modern =
            ModernSession::connect(StreamableHttpClientTransport::from_uri(server.mcp.clone()))
                .await;
        let events = modern.subscribe().await;
        Served {
            server,
            http: reqwest::Client::new(),
            legacy,
            modern,
            events,
        }
    }

    async fn put(&self, body: String) -> (u16, Value) {
        self.server
            .control(&self.http, Method::PUT, PATH, Some(BEARER), Some(body))
            .await
    }

    async fn installed(&self) -> Value {
        let (status, answer) = self
            .server
            .control(&self.http, Method::GET, PATH, Some(BEARER), None)
            .await;
        assert_eq!(status, 200, "{answer}");
        answer
    }

    /// Both sessions heard `legacy_total` list_changed in all, the
    /// subscriber exactly one more if `one_more`, and nothing else follows.
    async fn expect_notified(&mut self, legacy_total: usize, one_more: bool) {
        if one_more {
            expect_one_list_changed(&mut self.events).await;
        } else {
            expect_silence(&mut self.events).await;
        }
        assert_eq!(
            self.legacy
                .wait_for_notifications(legacy_total, LIMIT)
                .await,
            legacy_total
        );
        tokio::time::sleep(QUIET).await;
        assert_eq!(self.legacy.notifications(), legacy_total);
        assert_eq!(self.modern.unsolicited(), 0);
    }

    /// Both sessions list `names` (and the control API agrees).
    async fn expect_lists(&self, names: &[String]) {
        assert_eq!(&self.legacy.tool_names().await, names);
        assert_eq!(&self.modern.tool_names().await, names);
    }

    /// Calls `name` on the 2025-era session: the result's error flag and
    /// text, or the JSON-RPC error's code and message.
    async fn call(&self, name: &str, arguments: Value) -> Result<(bool, String), (i32, String)> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        match self.legacy.service.call_tool(params).await {
            Ok(result) => Ok((
                result.is_error == Some(true),
                result
                    .content
                    .iter()
                    .filter_map(|content| content.as_text().map(|text| text.text.clone()))
                    .collect(),
            )),
            Err(ServiceError::McpError(error)) => Err((error.code.0, error.message.into_owned())),
            Err(other) => panic!("{name}: {other}"),
        }
    }
}

fn names(answer: &Value) -> Vec<String> {
    answer["tools"]
        .as_array()
        .expect("a tools list")
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalog_is_announced_once_and_an_equal_or_stale_one_not_at_all() {
    let mut served = Served::start(&[]).await;
    let before = served.legacy.tool_names().await;
    assert_eq!(
        served.installed().await,
        json!({"generation": null, "revision": null, "tools": []})
    );

    let (status, answer) = served
        .put(snapshot(1, vec![tool("echo", &["kanban-task"])]))
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["generation"], "gen-1");
    assert_eq!(answer["revision"], 1);
    assert_eq!(answer["changed"], true);
    let mut with_echo = before.clone();
    with_echo.push(acme("echo"));
    with_echo.sort();
    assert_eq!(names(&answer), with_echo);
    served.expect_notified(1, true).await;
    served.expect_lists(&with_echo).await;
    let listed = served.legacy.service.list_all_tools().await.unwrap();
    let echo = listed.iter().find(|t| t.name == acme("echo")).unwrap();
    let hints = echo.annotations.as_ref().expect("annotations");
    assert_eq!(
        (hints.read_only_hint, hints.idempotent_hint),
        (Some(true), Some(true))
    );

    // The same revision again, and an older one with other tools: ignored.
    let (status, answer) = served
        .put(snapshot(1, vec![tool("echo", &["kanban-task"])]))
        .await;
    assert_eq!(
        (status, &answer["changed"]),
        (200, &json!(false)),
        "{answer}"
    );
    let (status, answer) = served.put(snapshot(0, vec![])).await;
    assert_eq!(
        (status, &answer["changed"]),
        (200, &json!(false)),
        "{answer}"
    );
    assert_eq!(answer["revision"], 1);
    // A newer revision with equal tools: recorded, nothing announced.
    let (status, answer) = served
        .put(snapshot(2, vec![tool("echo", &["kanban-task"])]))
        .await;
    assert_eq!(
        (status, &answer["changed"]),
        (200, &json!(false)),
        "{answer}"
    );
    assert_eq!(answer["revision"], 2);
    served.expect_notified(1, false).await;
    assert_eq!(served.installed().await["revision"], 2);

    // A new generation replaces the catalog whatever its revision.
    let body = json!({"generation": "gen-2", "revision": 0, "tools": []}).to_string();
    let (status, answer) = served.put(body).await;
    assert_eq!(
        (status, &answer["changed"]),
        (200, &json!(true)),
        "{answer}"
    );
    served.expect_notified(2, true).await;
    served.expect_lists(&before).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_snapshot_names_the_problem_and_changes_nothing() {
    let mut served = Served::start(&[]).await;
    let (status, _) = served
        .put(snapshot(1, vec![tool("echo", &["kanban-task"])]))
        .await;
    assert_eq!(status, 200);
    served.expect_notified(1, true).await;
    let installed = served.installed().await;
    let listed = served.legacy.tool_names().await;

    let mut bad_schema = tool("schema", &["kanban-task"]);
    bad_schema["input_schema"] = json!({"type": "object", "properties": {"n": {"minimum": "0"}}});
    let mut bad_name = tool("named", &["kanban-task"]);
    bad_name["exposed_name"] = json!("kandev_named");
    let cases: Vec<(String, &str)> = vec![
        (
            snapshot(2, vec![bad_schema]),
            "input schema of runtime tool `kandev_acme_schema`",
        ),
        (
            snapshot(2, vec![bad_name]),
            "`exposed_name` must be `kandev_acme_named`",
        ),
        (
            snapshot(2, vec![tool("x", &["configuration"])]),
            "unknown surface `configuration` (expected kanban-task, office-task or managed-conversation)",
        ),
        (
            snapshot(2, vec![tool("x", &["kanban-task", "kanban-task"])]),
            "surface `kanban-task` listed twice",
        ),
        (
            snapshot(2, vec![tool("x", &[])]),
            "`surfaces` must name at least one",
        ),
        (
            snapshot(
                2,
                vec![
                    tool("twice", &["kanban-task"]),
                    tool("twice", &["office-task"]),
                ],
            ),
            "runtime tool `kandev_acme_twice` is listed twice",
        ),
        (
            json!({"revision": 2, "tools": []}).to_string(),
            "`generation` is required",
        ),
        (
            json!({"generation": "g", "revision": 2, "tools": [], "extra": 1}).to_string(),
            "unknown field `extra`",
        ),
        (
            json!({"generation": "g", "revision": -1}).to_string(),
            "invalid value: integer `-1`",
        ),
    ];
    for (body, expected) in cases {
        let (status, answer) = served.put(body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        let error = answer["error"].as_str().expect("an error");
        assert!(error.contains(expected), "{body}: {error}");
    }
    served.expect_notified(1, false).await;
    assert_eq!(served.installed().await, installed);
    assert_eq!(served.legacy.tool_names().await, listed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_validated_then_forwarded_and_a_failing_backend_gives_a_tool_error() {
    let backend = PluginBackend::start().await;
    let served = Served::start(&[
        "--plugin-backend",
        &backend.url,
        "--plugin-timeout-ms",
        "300",
    ])
    .await;
    let tools = ["echo", "fails", "slow", "garbage"]
        .map(|local| tool(local, &["kanban-task", "office-task"]))
        .to_vec();
    let (status, answer) = served.put(snapshot(1, tools)).await;
    assert_eq!(status, 200, "{answer}");

    let echoed = served.call(&acme("echo"), json!({"text": "hi"})).await;
    assert_eq!(echoed, Ok((false, "kanban-task says hi".to_owned())));
    let calls = backend.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["plugin_id"], "acme");
    assert_eq!(calls[0]["local_name"], "echo");
    assert_eq!(calls[0]["surface"], "kanban-task");
    assert_eq!(calls[0]["arguments"], json!({"text": "hi"}));
    assert!(!calls[0]["invocation_id"].as_str().unwrap().is_empty());

    // Arguments outside the schema never reach the backend.
    for arguments in [
        json!({}),
        json!({"text": 7}),
        json!({"text": "a", "more": 1}),
    ] {
        let refused = served.call(&acme("echo"), arguments.clone()).await;
        let Err((code, message)) = refused else {
            panic!("{arguments} ran: {refused:?}");
        };
        assert_eq!(code, -32602, "{message}");
        assert!(message.contains("input schema"), "{message}");
    }
    assert_eq!(backend.calls().len(), 1);

    // The backend's own error, a timeout and garbage are tool errors.
    let failed = served.call(&acme("fails"), json!({"text": "x"})).await;
    assert_eq!(failed, Ok((true, "quota exceeded".to_owned())));
    let slow = tokio::time::timeout(LIMIT, served.call(&acme("slow"), json!({"text": "x"})))
        .await
        .expect("a slow backend does not hang the call");
    assert_eq!(
        slow,
        Ok((
            true,
            "plugin tool acme/slow: the plugin backend did not answer within 300 ms".to_owned()
        ))
    );
    let garbage = served.call(&acme("garbage"), json!({"text": "x"})).await;
    let Ok((true, message)) = garbage else {
        panic!("{garbage:?}");
    };
    assert!(message.contains("answer is not"), "{message}");
    assert_eq!(backend.calls().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_that_is_down_or_missing_gives_a_tool_error() {
    // A port that was just free: nothing listens there.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/invoke", closed.local_addr().unwrap());
    drop(closed);
    for args in [vec!["--plugin-backend", url.as_str()], vec![]] {
        let served = Served::start(&args).await;
        let (status, _) = served
            .put(snapshot(1, vec![tool("echo", &["kanban-task"])]))
            .await;
        assert_eq!(status, 200);
        let outcome = served.call(&acme("echo"), json!({"text": "x"})).await;
        let Ok((true, message)) = outcome else {
            panic!("{args:?}: {outcome:?}");
        };
        let expected = if args.is_empty() {
            "no plugin backend is configured"
        } else {
            "the plugin backend is unreachable"
        };
        assert!(message.contains(expected), "{message}");
        served.server.profile(&served.http).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_change_hiding_a_plugin_surface_removes_its_tools_with_one_notification() {
    let backend = PluginBackend::start().await;
    let mut served = Served::start(&["--plugin-backend", &backend.url]).await;
    let (status, _) = served
        .put(snapshot(1, vec![tool("echo", &["kanban-task"])]))
        .await;
    assert_eq!(status, 200);
    served.expect_notified(1, true).await;

    let office = r#"{"surface":"office-task","capabilities":["user-question"]}"#;
    let answer = served.server.replace(&served.http, office).await;
    assert_eq!(answer["changed"], true);
    assert!(!names(&answer).contains(&acme("echo")), "{answer}");
    served.expect_notified(2, true).await;
    let hidden = served.call(&acme("echo"), json!({"text": "x"})).await;
    let Err((code, message)) = hidden else {
        panic!("{hidden:?}");
    };
    assert_eq!(code, -32602);
    assert!(
        message.contains("not available in the current profile"),
        "{message}"
    );
    assert!(backend.calls().is_empty());

    // Back on kanban-task, it returns with one notification.
    let kanban = r#"{"surface":"kanban-task","capabilities":["user-question"]}"#;
    let answer = served.server.replace(&served.http, kanban).await;
    assert!(names(&answer).contains(&acme("echo")), "{answer}");
    served.expect_notified(3, true).await;
}

/// A plugin tool of `plugin_id` named as Kandev names it.
fn plugin_tool(plugin_id: &str, local: &str, exposed: &str) -> Value {
    let mut tool = tool(local, &["kanban-task"]);
    tool["plugin_id"] = json!(plugin_id);
    tool["exposed_name"] = json!(exposed);
    tool
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kandevs_own_names_for_long_and_non_ascii_plugin_ids_install_and_are_callable() {
    // Names written out from Kandev's formula (see `plugins::names`): the
    // slug cut to 64 - 8 - len(local) - 1 - 8 characters, the hash last.
    const UNICODE_ID: &str =
        "İstanbul-Ünïcode Plugin/Tools.v2 (Beta) für Açme Corporation™ — \u{212A}elvin";
    let long_id = "a".repeat(80);
    // (plugin id, local name, Kandev's name, the name our earlier formula
    // made: hash before the local name).
    let cases = [
        (
            UNICODE_ID,
            "echo",
            "kandev_istanbul__n_code_plugin_tools_v2__beta__f_r_echo_922b1fe2",
            "kandev_istanbul__n_code_plugin_tools_v2__beta__f_r_922b1fe2_echo",
        ),
        (
            long_id.as_str(),
            "echo",
            "kandev_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_echo_0f45e858",
            "kandev_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_0f45e858_echo",
        ),
    ];
    let backend = PluginBackend::start().await;
    let mut served = Served::start(&["--plugin-backend", &backend.url]).await;
    let before = served.legacy.tool_names().await;

    // The old names are refused, naming Kandev's.
    for (plugin_id, local, exposed, old) in cases {
        let body = snapshot(1, vec![plugin_tool(plugin_id, local, old)]);
        let (status, answer) = served.put(body).await;
        assert_eq!(status, 400, "{answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(
            error.contains(&format!("`exposed_name` must be `{exposed}`")),
            "{error}"
        );
    }

    let tools = cases
        .iter()
        .map(|(plugin_id, local, exposed, _)| plugin_tool(plugin_id, local, exposed))
        .collect();
    let (status, answer) = served.put(snapshot(1, tools)).await;
    assert_eq!(status, 200, "{answer}");
    let mut expected = before.clone();
    expected.extend(cases.iter().map(|(_, _, exposed, _)| exposed.to_string()));
    expected.sort();
    served.expect_notified(1, true).await;
    served.expect_lists(&expected).await;
    for (plugin_id, _, exposed, _) in cases {
        let answer = served.call(exposed, json!({"text": "hi"})).await;
        assert_eq!(answer, Ok((false, "kanban-task says hi".to_owned())));
        let calls = backend.calls();
        assert_eq!(calls.last().unwrap()["plugin_id"], plugin_id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_past_mcps_128_characters_is_refused_naming_the_tool() {
    let served = Served::start(&[]).await;
    let local = "y".repeat(130);
    let exposed = exposed_name("ab", &local);
    assert_eq!(exposed.len(), 148);
    let (status, answer) = served
        .put(snapshot(1, vec![plugin_tool("ab", &local, &exposed)]))
        .await;
    assert_eq!(status, 400, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains("kandev_a_yyyy"), "{error}");
    assert!(error.contains("128"), "{error}");
}

#[test]
fn no_plugin_name_can_collide_with_a_compiled_kandev_tool() {
    // Plugin tools are exposed as `kandev_<slug>_<local_name>` and every
    // compiled Kandev tool ends in `_kandev` without that prefix, so the
    // catalog's collision check (tested in the library) never fires here.
    use mcp_profiles::Vocabulary;
    let registry = kandev_mcp::Kandev::registry();
    for group in registry.groups() {
        for tool in group.tools() {
            assert!(!tool.starts_with("kandev_"), "{tool} of {}", group.name());
        }
    }
}
