//! Authorization and hostile input against a running `kandev-mcp serve --http
//! --control` process: the control API refuses bad tokens, oversize and
//! malformed bodies, wrong methods and unknown paths with the right status,
//! and afterwards nothing changed and nothing was sent; no MCP request of any
//! kind, from an rmcp client or as raw JSON-RPC over HTTP, changes the
//! profile, sends a list_changed, or runs a tool hidden from the profile.

use crate::common;

use std::time::Duration;

use crate::common::raw::{self, Route};
use crate::common::{BEARER, LIMIT, QUIET, Server};
use mcp_profiles::Vocabulary;
use mcp_profiles_tests::client::{Recorder, Session};
use rmcp::model::{
    CallToolRequestParams, ClientNotification, ClientRequest, ErrorCode, JsonObject,
    ProtocolVersion, ServerNotification, SubscriptionFilter,
};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

use kandev_mcp::Kandev;
use reqwest::Method;

const PROFILE: &str = "/api/v1/mcp/profile";
const MODE: &str = "/api/v1/mcp/mode";
const PROVIDERS: &str = "/api/v1/mcp/providers";
const PLUGINS: &str = "/api/v1/mcp/plugin-tools";
const POLICY: &str = "/api/v1/mcp/policy";
const KILL_SWITCH: &str = "/api/v1/mcp/kill-switch";

/// A body for each PUT route that would change the tool set if accepted.
fn changing_body(path: &str) -> String {
    match path {
        PROFILE => r#"{"surface":"office-task"}"#,
        MODE => r#"{"mode":"office"}"#,
        PROVIDERS => r#"{"mcp_providers":["github"]}"#,
        POLICY => r#"{"read_only":true}"#,
        KILL_SWITCH => r#"{"deny":["kanban-task"]}"#,
        PLUGINS => {
            r#"{"generation":"g","revision":1,"tools":[{"plugin_id":"acme","local_name":"echo",
            "exposed_name":"kandev_acme_echo","description":"Echo","surfaces":["kanban-task"]}]}"#
        }
        _ => unreachable!("{path}"),
    }
    .to_owned()
}

/// Panics unless the profile is `before`, the session heard nothing for
/// [`QUIET`] and still lists `tools`.
async fn assert_untouched(
    server: &Server,
    http: &reqwest::Client,
    before: &Value,
    session: &Session,
    tools: &[String],
) {
    assert_eq!(&server.profile(http).await, before, "the profile changed");
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 0, "a list_changed was sent");
    assert_eq!(session.tool_names().await, tools);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_control_api_refuses_hostile_requests_and_changes_nothing() {
    let mut server = Server::start().await;
    let http = reqwest::Client::new();
    let session = server.connect().await;
    let before = server.profile(&http).await;
    let tools = session.tool_names().await;
    let mut refused = 0;

    // Bad tokens, on every route, each with a body that would change the
    // tool set: 401; the right one with whitespace around it is the right
    // one (shown on GET, which changes nothing).
    let routes: Vec<Route> = [
        (Method::GET, PROFILE),
        (Method::PUT, PROFILE),
        (Method::PUT, MODE),
        (Method::PUT, PROVIDERS),
        (Method::GET, PLUGINS),
        (Method::PUT, PLUGINS),
        (Method::GET, POLICY),
        (Method::PUT, POLICY),
        (Method::GET, KILL_SWITCH),
        (Method::PUT, KILL_SWITCH),
    ]
    .into_iter()
    .map(|(method, path)| {
        let body = (method == Method::PUT).then(|| changing_body(path).into_bytes());
        (method, path.to_owned(), body)
    })
    .collect();
    refused += raw::refuse_bad_tokens(&server, &http, &routes).await;
    raw::accept_token_in_whitespace(&server, &http, PROFILE).await;

    // Oversize bodies: 413, at the limit exactly not, and never before the
    // token is checked. A plugin-tool snapshot may be larger (a catalog of
    // many tools).
    let limit = kandev_mcp::control::MAX_BODY_BYTES;
    assert_eq!(limit, 64 * 1024);
    let head = r#"{"surface":"office-task","pad":""#;
    for path in [PROFILE, MODE, PROVIDERS, POLICY, KILL_SWITCH] {
        refused += raw::refuse_oversize(&server, &Method::PUT, path, head, limit).await;
    }
    refused += raw::refuse_oversize(&server, &Method::PUT, PLUGINS, head, 1024 * 1024).await;

    // Malformed bodies, unknown fields and names: 400 naming the problem.
    let deep = "[".repeat(10_000);
    let bodies: Vec<(&str, &[u8], &str)> = vec![
        (PROFILE, b"", "EOF while parsing"),
        (PROFILE, b"{not json", "key must be a string"),
        (PROFILE, b"null", "invalid type: null"),
        (PROFILE, b"[]", "invalid type: sequence"),
        (PROFILE, br#""office-task""#, "invalid type: string"),
        (PROFILE, b"{}", "missing field `surface`"),
        (PROFILE, deep.as_bytes(), "invalid type: sequence"),
        (
            PROFILE,
            b"\xef\xbb\xbf{\"surface\":\"office-task\"}",
            "expected value",
        ),
        (
            PROFILE,
            b"{\"surface\":\"office-task\xff\"}",
            "invalid unicode code point",
        ),
        (
            PROFILE,
            br#"{"surface":"office-task"} x"#,
            "trailing characters",
        ),
        (
            PROFILE,
            br#"{"surface":"office-task","mode":"task"}"#,
            "unknown field `mode`",
        ),
        (
            PROFILE,
            br#"{"surface":"office-task","Surface":"x"}"#,
            "unknown field `Surface`",
        ),
        (
            PROFILE,
            br#"{"surface":"office-task","__proto__":{}}"#,
            "unknown field `__proto__`",
        ),
        (
            PROFILE,
            br#"{"surface":"Office-Task"}"#,
            "unknown surface `Office-Task`",
        ),
        (
            PROFILE,
            br#"{"surface":"office_task"}"#,
            "unknown surface `office_task`",
        ),
        (PROFILE, br#"{"surface":null}"#, "invalid type: null"),
        (
            PROFILE,
            br#"{"surface":"kanban-task","surface":"office-task"}"#,
            "duplicate field `surface`",
        ),
        (
            PROFILE,
            br#"{"surface":"kanban-task","capabilities":["parent-quesiton"]}"#,
            "unknown capability `parent-quesiton`",
        ),
        (
            PROFILE,
            br#"{"surface":"kanban-task","capabilities":["user-question","parent-question"]}"#,
            "mutually exclusive",
        ),
        (
            PROFILE,
            br#"{"surface":"kanban-task","capabilities":"task-title"}"#,
            "expected a sequence",
        ),
        (
            PROFILE,
            br#"{"surface":"kanban-task","providers":["GitHub"]}"#,
            "unknown provider `GitHub`",
        ),
        (
            PROFILE,
            br#"{"surface":"kanban-task","providers":[null]}"#,
            "invalid type: null",
        ),
        (MODE, b"{}", "missing field `mode`"),
        (
            MODE,
            br#"["office"]"#,
            "invalid type: sequence, expected a JSON object",
        ),
        (
            PROVIDERS,
            br#"[["github"]]"#,
            "invalid type: sequence, expected a JSON object",
        ),
        (MODE, br#"{"mode":"planning"}"#, "unknown mode `planning`"),
        (MODE, br#"{"mode":"Office"}"#, "unknown mode `Office`"),
        (MODE, br#"{"mode":""}"#, "unknown mode ``"),
        (MODE, br#"{"mode":null}"#, "invalid type: null"),
        (MODE, br#"{"mode":"office","x":1}"#, "unknown field `x`"),
        (
            MODE,
            br#"{"mode":"task","mode":"office"}"#,
            "duplicate field `mode`",
        ),
        (
            MODE,
            br#"{"mode":"task","disable_ask_question":"yes"}"#,
            "expected a boolean",
        ),
        (PROVIDERS, b"{}", "missing field `mcp_providers`"),
        (
            PROVIDERS,
            br#"{"mcp_providers":["bitbucket"]}"#,
            "unknown provider `bitbucket`",
        ),
        (
            PROVIDERS,
            br#"{"mcp_providers":[""]}"#,
            "unknown provider ``",
        ),
        (
            PROVIDERS,
            br#"{"mcp_providers":"github"}"#,
            "expected a sequence",
        ),
        (
            PROVIDERS,
            br#"{"mcp_providers":[1]}"#,
            "invalid type: integer",
        ),
        (
            PROVIDERS,
            br#"{"providers":["github"]}"#,
            "unknown field `providers`",
        ),
        (
            PROVIDERS,
            br#"{"mcp_providers":["github"],"x":1}"#,
            "unknown field `x`",
        ),
        (POLICY, b"", "EOF while parsing"),
        (POLICY, b"null", "invalid type: null"),
        (POLICY, br#"[true]"#, "expected a JSON object"),
        (POLICY, br#"{"read_only":true,"x":1}"#, "unknown field `x`"),
        (
            POLICY,
            br#"{"Read_Only":true}"#,
            "unknown field `Read_Only`",
        ),
        (
            POLICY,
            br#"{"read_only":true,"read_only":false}"#,
            "duplicate field `read_only`",
        ),
        (POLICY, br#"{"read_only":1}"#, "expected a boolean"),
        (
            POLICY,
            br#"{"deny":["delete_task_kandevv"]}"#,
            "unknown tool or tool group `delete_task_kandevv`; did you mean `delete_task_kandev`?",
        ),
        (
            POLICY,
            br#"{"deny":["Delete_Task_Kandev"]}"#,
            "unknown tool or tool group `Delete_Task_Kandev`",
        ),
        (POLICY, br#"{"deny":[""]}"#, "unknown tool or tool group ``"),
        (
            POLICY,
            br#"{"deny":["plan","plan"]}"#,
            "`plan` is listed twice",
        ),
        (POLICY, br#"{"deny":"plan"}"#, "invalid type: string"),
        (POLICY, br#"{"deny":[null]}"#, "invalid type: null"),
        (KILL_SWITCH, b"{}", "missing field `deny`"),
        (KILL_SWITCH, br#"["plan"]"#, "expected a JSON object"),
        (KILL_SWITCH, br#"{"deny":[],"x":1}"#, "unknown field `x`"),
        (
            KILL_SWITCH,
            br#"{"deny":[],"deny":["plan"]}"#,
            "duplicate field `deny`",
        ),
        (
            KILL_SWITCH,
            br#"{"deny":["kanban_task"]}"#,
            "unknown tool or tool group `kanban_task`; did you mean `kanban-task`?",
        ),
        (
            KILL_SWITCH,
            br#"{"deny":["plan","plan"]}"#,
            "`plan` is listed twice",
        ),
        (
            KILL_SWITCH,
            br#"{"deny":{"plan":true}}"#,
            "invalid type: map",
        ),
        (KILL_SWITCH, br#"{"deny":null}"#, "invalid type: null"),
    ];
    for (path, body, expected) in bodies {
        let response = http
            .put(format!("{}{path}", server.control))
            .header("Authorization", BEARER)
            .header("Content-Type", "application/json")
            .body(body.to_vec())
            .send()
            .await
            .expect("the control API answers");
        let status = response.status().as_u16();
        let answer: Value = response.json().await.expect("a JSON error");
        let message = answer["error"].as_str().unwrap_or_default();
        assert_eq!(
            status,
            400,
            "{path} {:?}: {answer}",
            String::from_utf8_lossy(body)
        );
        assert!(
            message.contains(expected),
            "{path} {:?}: expected {expected:?} in {message:?}",
            String::from_utf8_lossy(body)
        );
        refused += 1;
    }

    // Wrong methods: 405, with or without the token (routing comes first).
    let mut wrong_methods = Vec::new();
    for path in [PROFILE, MODE, PROVIDERS, POLICY, KILL_SWITCH] {
        for method in ["POST", "DELETE", "PATCH", "OPTIONS", "TRACE"] {
            wrong_methods.push((Method::from_bytes(method.as_bytes()).unwrap(), path));
        }
    }
    wrong_methods.push((Method::GET, MODE));
    wrong_methods.push((Method::GET, PROVIDERS));
    for (method, path) in &wrong_methods {
        let body = (*method != Method::TRACE).then(|| changing_body(path).into_bytes());
        for authorization in [&[BEARER.as_bytes()][..], &[]] {
            let status = raw::control_raw(
                &server,
                &http,
                method.clone(),
                path,
                authorization,
                body.clone(),
            )
            .await;
            assert_eq!(status, 405, "{method} {path}");
            refused += 1;
        }
    }

    // Unknown paths: 404, for PUT with a changing body and for GET.
    for path in [
        "/",
        "/api",
        "/api/v1/mcp",
        "/api/v1/mcp/",
        "/api/v1/mcp/profile/",
        "/api/v1/mcp/profile/x",
        "/api/v1/mcp/Profile",
        "/API/V1/MCP/PROFILE",
        "/api/v1/mcp/profiles",
        "/api/v1/mcp/policy/",
        "/api/v1/mcp/kill_switch",
        "/api/v1/mcp/killswitch",
        "/api/v1/mcp//profile",
        "/api/v1/mcp/%70rofile",
        "/api/v2/mcp/profile",
        "/mcp",
    ] {
        for method in [Method::PUT, Method::GET] {
            let body = (method == Method::PUT).then(|| changing_body(PROFILE).into_bytes());
            let status = raw::control_raw(
                &server,
                &http,
                method.clone(),
                path,
                &[BEARER.as_bytes()],
                body,
            )
            .await;
            assert_eq!(status, 404, "{method} {path}");
            refused += 1;
        }
    }
    // Dot segments sent as they are, not normalised by a client.
    let dotted = format!(
        "PUT /api/v1/mcp/./profile HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {BEARER}\r\n\
         Content-Length: 25\r\nConnection: close\r\n\r\n"
    );
    let (status, _) =
        raw::raw_http(&server, dotted, br#"{"surface":"office-task"}"#.to_vec()).await;
    assert_eq!(status, 404);
    refused += 1;

    // Nothing changed, nothing was sent.
    assert_untouched(&server, &http, &before, &session, &tools).await;
    server.assert_alive();

    // The session was listening all along: an authorised change reaches it once.
    let answer = server
        .replace(
            &http,
            r#"{"surface":"kanban-task","capabilities":["parent-question"]}"#,
        )
        .await;
    assert_eq!(answer["changed"], json!(true));
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 1);
    eprintln!("hostile control: {refused} refused requests, profile unchanged, 0 notifications");
}

/// Every tool name of the registry, sorted, without repeats.
fn every_tool() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Kandev::registry()
        .groups()
        .iter()
        .flat_map(|group| group.tools().iter().copied())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Arguments that would leave a visible mark on the board if the tool ran.
fn arguments_for(tool: &str) -> Value {
    match tool {
        "set_task_title_kandev" => json!({ "title": "pwned" }),
        "create_workflow_kandev" => json!({ "workspace_id": "ws-1", "name": "pwned" }),
        "update_task_state_kandev" => json!({ "task_id": "task-1", "state": "pwned" }),
        "delete_workflow_step_kandev" => json!({ "step_id": "step-done" }),
        _ => json!({ "questions": [{}], "task_id": "task-1", "title": "pwned" }),
    }
}

/// What the visible read-only tools say about the board.
async fn board(session: &Session) -> Vec<String> {
    let mut seen = Vec::new();
    for (tool, arguments) in [
        ("list_workspaces_kandev", json!({})),
        ("list_workflows_kandev", json!({ "workspace_id": "ws-1" })),
        (
            "list_workflow_steps_kandev",
            json!({ "workflow_id": "wf-1" }),
        ),
        ("list_tasks_kandev", json!({ "workflow_id": "wf-1" })),
        ("get_task_plan_kandev", json!({ "task_id": "task-1" })),
    ] {
        let result = session
            .service
            .call_tool(CallToolRequestParams::new(tool).with_arguments(object(arguments)))
            .await
            .unwrap_or_else(|err| panic!("{tool}: {err}"));
        assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
        seen.push(format!("{tool}: {:?}", result.content));
    }
    seen
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

/// Sends one request built from JSON `{"method", "params"}`, with a limit;
/// `Ok` or the error.
async fn request(
    client: &RunningService<RoleClient, Recorder>,
    message: Value,
) -> Result<(), String> {
    let request: ClientRequest = serde_json::from_value(message.clone())
        .unwrap_or_else(|err| panic!("{message} is not a client request: {err}"));
    assert_eq!(Some(request.method()), message["method"].as_str());
    match tokio::time::timeout(Duration::from_secs(5), client.send_request(request)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(ServiceError::McpError(error))) => Err(format!("{}", error.code.0)),
        Ok(Err(other)) => Err(format!("{other}")),
        Err(_) => Err("no answer within 5 s".into()),
    }
}

/// Posts one raw JSON-RPC body to `/mcp`; the status, session ID and body.
async fn post_mcp(
    server: &Server,
    http: &reqwest::Client,
    session: Option<&str>,
    body: &str,
) -> (u16, Option<String>, String) {
    let mut post = http
        .post(&server.mcp)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header(
            "MCP-Protocol-Version",
            ProtocolVersion::LATEST_WITH_INITIALIZE.to_string(),
        )
        .timeout(Duration::from_secs(5))
        .body(body.to_owned());
    if let Some(session) = session {
        post = post.header("Mcp-Session-Id", session);
    }
    let response = post.send().await.expect("the MCP endpoint answers");
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let text = response
        .text()
        .await
        .unwrap_or_else(|err| format!("<{err}>"));
    (status, session, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_mcp_request_changes_the_profile_or_runs_a_hidden_tool() {
    let mut server = Server::start().await;
    let http = reqwest::Client::new();
    let victim = server.connect().await;
    let attacker = server.connect().await;
    let before = server.profile(&http).await;
    let tools = victim.tool_names().await;
    let board_before = board(&victim).await;

    // A 2026-07-28 client (Discover lifecycle) opening subscriptions with
    // ordinary and odd filters.
    let modern = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.mcp.clone()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover lifecycle");
    let mut listening = modern
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("subscriptions/listen for toolsListChanged");
    // Filters without toolsListChanged: refused (nothing in them is
    // served) or, if opened, never told of a tool change.
    let odd_filters: Vec<SubscriptionFilter> = [
        json!({}),
        json!({ "toolsListChanged": false }),
        json!({
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["kandev://profile", "file:///etc/passwd", ""],
        }),
    ]
    .into_iter()
    .map(|filter| serde_json::from_value(filter).expect("a subscription filter"))
    .collect();
    let mut odd = Vec::new();
    let mut odd_refused = Vec::new();
    for filter in odd_filters {
        match modern.listen(filter).await {
            Ok(subscription) => odd.push(subscription),
            Err(err) => odd_refused.push(err.to_string()),
        }
    }
    // toolsListChanged among odd requests: only the tools part is accepted.
    let mixed: SubscriptionFilter = serde_json::from_value(json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourceSubscriptions": ["file:///etc/passwd"],
    }))
    .expect("a subscription filter");
    let mut mixed = modern
        .listen(mixed)
        .await
        .expect("subscriptions/listen with toolsListChanged among others");
    assert_eq!(mixed.acknowledged().tools_list_changed, Some(true));

    // Invented methods: refused, whatever they claim to do.
    let invented = [
        ("profile/set", json!({ "surface": "office-task" })),
        ("profile/replace", json!({ "surface": "external" })),
        (
            "profiles/put",
            json!({ "profile": { "surface": "configuration" } }),
        ),
        (
            "tools/enable",
            json!({ "name": "ask_parent_question_kandev" }),
        ),
        ("tools/register", json!({ "name": "set_task_title_kandev" })),
        ("tools/list_changed", json!({})),
        ("notifications/tools/list_changed", json!({})),
        (
            "mode/set",
            json!({ "mode": "office", "disable_ask_question": true }),
        ),
        (
            "providers/set",
            json!({ "mcp_providers": ["github", "gitlab"] }),
        ),
        ("api/v1/mcp/profile", json!({ "surface": "office-task" })),
        (
            "kandev/replace",
            json!({ "context": { "surface": "external" } }),
        ),
        ("$/setProfile", json!({ "surface": "office-task" })),
        ("", json!({})),
        (
            "tools/call/admin",
            json!({ "name": "set_task_title_kandev" }),
        ),
    ];
    let mut sent = 0;
    for (method, params) in &invented {
        let outcome = request(
            &attacker.service,
            json!({ "method": method, "params": params }),
        )
        .await;
        assert!(outcome.is_err(), "{method:?} succeeded: {outcome:?}");
        sent += 1;
    }

    // Invented tool names and every tool hidden from the profile: refused
    // with -32602, whatever the arguments.
    let hidden: Vec<&str> = every_tool()
        .into_iter()
        .filter(|tool| !tools.iter().any(|visible| visible == tool))
        .collect();
    assert!(hidden.contains(&"ask_parent_question_kandev"));
    assert!(hidden.contains(&"set_task_title_kandev"));
    let long = "x".repeat(10_000);
    let mut names: Vec<&str> = vec![
        "set_profile",
        "replace_profile",
        "enable_tool",
        "",
        " ",
        "ask_parent_question_kandev ",
        " set_task_title_kandev",
        "ASK_PARENT_QUESTION_KANDEV",
        "Set_Task_Title_Kandev",
        "../ask_parent_question_kandev",
        "ask_parent_question_kandev\0",
        "ask_parent_question_kandev\n",
        "ask_parent_question",
        "kandev.set_task_title",
        "*",
        "%",
        &long,
    ];
    names.extend(&hidden);
    for name in &names {
        for arguments in [None, Some(arguments_for(name))] {
            let mut params = CallToolRequestParams::new(name.to_string());
            if let Some(arguments) = arguments {
                params = params.with_arguments(object(arguments));
            }
            let error = match attacker.service.call_tool(params).await {
                Err(ServiceError::McpError(error)) => error,
                other => panic!("tools/call {name:?}: {other:?}"),
            };
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{name:?}");
            // The name is echoed, clipped: a huge one cannot inflate the error.
            let echoed = if name.chars().count() > 64 {
                let head: String = name.chars().take(64).collect();
                format!("{head}… ({} bytes)", name.len())
            } else {
                name.to_string()
            };
            assert_eq!(
                error.message,
                format!("tool `{echoed}` is not available in the current profile")
            );
            sent += 1;
        }
    }

    // Every other request a client can send: none changes the profile,
    // whatever it answers.
    let version = ProtocolVersion::LATEST_WITH_INITIALIZE.to_string();
    let client_info = json!({ "name": "hostile", "version": "0.0.0" });
    let others = [
        json!({ "method": "initialize", "params": { "protocolVersion": version, "capabilities": {}, "clientInfo": client_info } }),
        json!({ "method": "initialize", "params": { "protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": client_info } }),
        json!({ "method": "initialize", "params": { "protocolVersion": "1999-01-01", "capabilities": { "tools": { "listChanged": true } }, "clientInfo": client_info } }),
        json!({ "method": "ping" }),
        json!({ "method": "tools/list" }),
        json!({ "method": "tools/list", "params": { "cursor": "999" } }),
        json!({ "method": "logging/setLevel", "params": { "level": "debug" } }),
        json!({ "method": "logging/setLevel", "params": { "level": "emergency" } }),
        json!({ "method": "resources/list" }),
        json!({ "method": "resources/templates/list" }),
        json!({ "method": "resources/read", "params": { "uri": "file:///etc/passwd" } }),
        json!({ "method": "resources/read", "params": { "uri": "kandev://profile" } }),
        json!({ "method": "resources/subscribe", "params": { "uri": "kandev://profile" } }),
        json!({ "method": "resources/unsubscribe", "params": { "uri": "kandev://profile" } }),
        json!({ "method": "prompts/list" }),
        json!({ "method": "prompts/get", "params": { "name": "set_profile" } }),
        json!({ "method": "completion/complete", "params": { "ref": { "type": "ref/prompt", "name": "x" }, "argument": { "name": "surface", "value": "office" } } }),
        json!({ "method": "completion/complete", "params": { "ref": { "type": "ref/resource", "uri": "kandev://profile" }, "argument": { "name": "mode", "value": "" } } }),
        json!({ "method": "tasks/get", "params": { "taskId": "task-1" } }),
        json!({ "method": "tasks/cancel", "params": { "taskId": "task-1" } }),
        json!({ "method": "skills/list" }),
    ];
    let mut answers = Vec::new();
    for message in &others {
        let outcome = request(&attacker.service, message.clone()).await;
        let method = message["method"].as_str().unwrap_or_default();
        answers.push(match outcome {
            Ok(()) => format!("{method} ok"),
            Err(error) => format!("{method} {error}"),
        });
        sent += 1;
    }
    // Notifications a client can send, including ones only a server should.
    let notifications = [
        json!({ "method": "notifications/initialized" }),
        json!({ "method": "notifications/initialized", "params": { "surface": "office-task" } }),
        json!({ "method": "notifications/tools/list_changed" }),
        json!({ "method": "notifications/roots/list_changed" }),
        json!({ "method": "notifications/cancelled", "params": { "requestId": 0 } }),
        json!({ "method": "notifications/cancelled", "params": { "requestId": "replace" } }),
        json!({ "method": "notifications/progress", "params": { "progressToken": "x", "progress": 1 } }),
        json!({ "method": "notifications/profile/changed", "params": { "surface": "office-task" } }),
    ];
    for message in &notifications {
        let notification: ClientNotification = serde_json::from_value(message.clone())
            .unwrap_or_else(|err| panic!("{message} is not a client notification: {err}"));
        // A refused notification is as good as an ignored one.
        let _ = attacker.service.send_notification(notification).await;
        sent += 1;
    }

    // Raw JSON-RPC on a session of its own: batches, responses nobody asked
    // for, garbage, wrong versions, an unknown session.
    let (status, raw_session, _) = post_mcp(
        &server,
        &http,
        None,
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": version, "capabilities": {}, "clientInfo": client_info } }).to_string(),
    )
    .await;
    assert_eq!(status, 200);
    let raw_session = raw_session.expect("a session ID");
    let hidden_call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "set_task_title_kandev", "arguments": { "title": "pwned" } } });
    let invented_call = json!({ "jsonrpc": "2.0", "id": 3, "method": "profile/set", "params": { "surface": "office-task" } });
    let (status, _, text) =
        post_mcp(&server, &http, Some(&raw_session), &hidden_call.to_string()).await;
    assert_eq!(status, 200);
    assert!(
        text.contains(r#""code":-32602"#)
            && text
                .contains("tool `set_task_title_kandev` is not available in the current profile"),
        "{text}"
    );
    let (status, _, text) = post_mcp(
        &server,
        &http,
        Some(&raw_session),
        &invented_call.to_string(),
    )
    .await;
    assert_eq!(status, 200);
    assert!(text.contains(r#""code":-32601"#), "{text}");
    let mut raw_statuses = Vec::new();
    sent += 2;
    let raw_bodies = [
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string(),
        json!([
            { "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "name": "create_workflow_kandev", "arguments": { "workspace_id": "ws-1", "name": "pwned" } } },
            { "jsonrpc": "2.0", "id": 5, "method": "mode/set", "params": { "mode": "office" } },
        ])
        .to_string(),
        json!({ "jsonrpc": "2.0", "id": 6, "result": { "profile": { "surface": "office-task" } } }).to_string(),
        json!({ "jsonrpc": "2.0", "id": 7, "error": { "code": -32603, "message": "x" } }).to_string(),
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }).to_string(),
        json!({ "jsonrpc": "1.0", "id": 8, "method": "tools/call", "params": { "name": "set_task_title_kandev" } }).to_string(),
        json!({ "jsonrpc": "2.0", "id": { "nested": true }, "method": "ping" }).to_string(),
        json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": "set_task_title_kandev" }).to_string(),
        json!({ "jsonrpc": "2.0", "id": 10 }).to_string(),
        "{not json".to_owned(),
        String::new(),
        "[]".to_owned(),
    ];
    for body in &raw_bodies {
        let (status, _, text) = post_mcp(&server, &http, Some(&raw_session), body).await;
        assert!(status < 500, "{body}: {status} {text}");
        assert!(!text.contains("pwned"), "{body}: a hidden tool ran: {text}");
        raw_statuses.push(status);
        sent += 1;
    }
    for session in ["not-a-session", "", "../../etc/passwd"] {
        let body = json!({ "jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": { "name": "set_task_title_kandev", "arguments": { "title": "pwned" } } });
        let (status, _, _) = post_mcp(&server, &http, Some(session), &body.to_string()).await;
        raw_statuses.push(status);
        assert!(
            (400..500).contains(&status),
            "session {session:?}: {status}"
        );
        sent += 1;
    }

    // Nothing changed: the profile, the board, and nobody was notified.
    assert_eq!(
        server.profile(&http).await,
        before,
        "an MCP request changed the profile"
    );
    tokio::time::sleep(QUIET).await;
    assert_eq!(victim.notifications(), 0, "the victim heard a list_changed");
    assert_eq!(
        attacker.notifications(),
        0,
        "the attacker heard a list_changed"
    );
    for subscription in [&mut listening, &mut mixed] {
        assert!(
            tokio::time::timeout(QUIET, subscription.next())
                .await
                .is_err(),
            "a subscriber heard something"
        );
    }
    assert_eq!(victim.tool_names().await, tools);
    assert_eq!(
        board(&victim).await,
        board_before,
        "a hidden tool changed the board"
    );
    server.assert_alive();

    // Everyone was listening: one authorised change reaches each once, the
    // twice-initialised attacker included, and the odd filters hear nothing.
    let answer = server
        .replace(
            &http,
            r#"{"surface":"kanban-task","capabilities":["parent-question"]}"#,
        )
        .await;
    assert_eq!(answer["changed"], json!(true));
    assert_eq!(victim.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(attacker.wait_for_notifications(1, LIMIT).await, 1);
    for subscription in [&mut listening, &mut mixed] {
        let notified = tokio::time::timeout(LIMIT, subscription.next())
            .await
            .expect("the subscriber is notified")
            .expect("the subscription is open")
            .expect("a notification");
        assert!(matches!(
            notified,
            ServerNotification::ToolListChangedNotification(_)
        ));
    }
    tokio::time::sleep(QUIET).await;
    assert_eq!(victim.notifications(), 1);
    assert_eq!(
        attacker.notifications(),
        1,
        "initialising twice must not register the session twice"
    );
    for subscription in [&mut listening, &mut mixed] {
        assert!(
            tokio::time::timeout(QUIET, subscription.next())
                .await
                .is_err()
        );
    }
    for subscription in &mut odd {
        assert!(
            tokio::time::timeout(QUIET, subscription.next())
                .await
                .is_err(),
            "an odd filter heard of the change"
        );
    }
    server.assert_alive();
    eprintln!(
        "hostile MCP: {sent} requests and notifications ({} hidden tool names and {} invented \
         ones, each with and without arguments; {} invented methods); other requests: \
         {answers:?}; odd subscriptions: {} open, refused: {odd_refused:?}; raw JSON-RPC \
         statuses: {raw_statuses:?}",
        hidden.len(),
        names.len() - hidden.len(),
        invented.len(),
        odd.len()
    );
}

/// Calls `tool` with `arguments`: the result's text, or the JSON-RPC error
/// code and message.
async fn call(
    session: &Session,
    tool: &str,
    arguments: Value,
) -> Result<(bool, String), (i32, String)> {
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(object(arguments));
    match session.service.call_tool(params).await {
        Ok(result) => {
            let text = result
                .content
                .iter()
                .filter_map(|content| content.as_text().map(|text| text.text.clone()))
                .collect();
            Ok((result.is_error == Some(true), text))
        }
        Err(ServiceError::McpError(error)) => Err((error.code.0, error.message.into_owned())),
        Err(other) => panic!("{tool}: {other}"),
    }
}

/// Panics unless `outcome` is rmcp's refusal of unparsable arguments (an
/// error result, as the server reports invalid params to the model) naming
/// `field` and the accepted range.
fn assert_invalid_params(outcome: &Result<(bool, String), (i32, String)>, field: &str, what: &str) {
    let Ok((true, message)) = outcome else {
        panic!("{what}: not refused as invalid params: {outcome:?}");
    };
    assert!(
        message.starts_with(&format!(
            "failed to deserialize parameters: invalid `{field}`: expected a whole number from"
        )),
        "{what}: {message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_number_arguments_are_exact_and_in_range() {
    let server = Server::start().await;
    let http = reqwest::Client::new();
    server
        .replace(
            &http,
            r#"{"surface":"kanban-task","providers":["github","gitlab"]}"#,
        )
        .await;
    let session = server.connect().await;

    // The schema says what is accepted.
    const MANAGE: &str = "manage_task_change_request_kandev";
    let tools = session.service.list_all_tools().await.unwrap();
    let manage = tools.iter().find(|tool| tool.name == MANAGE).unwrap();
    for field in ["number", "old_number"] {
        let number = &manage.input_schema["properties"][field];
        assert_eq!(number["minimum"], json!(1), "{field}: {number}");
        assert_eq!(number["maximum"], json!(i64::MAX), "{field}: {number}");
        assert!(number.to_string().contains("integer"), "{field}: {number}");
    }

    let link = |number: Value| {
        json!({ "operation": "link", "task_id": "task-4", "provider": "github",
                "repository_id": "repo-1", "number": number })
    };
    let replace = |old_number: Value| {
        json!({ "operation": "replace", "task_id": "task-4", "provider": "github",
                "repository_id": "repo-1", "number": 1, "old_provider": "github",
                "old_repository_id": "repo-1", "old_number": old_number })
    };
    // Exact, even past 2^53, and up to i64::MAX; 3.0 is the integer 3.
    for (sent, stored) in [
        (json!(9_007_199_254_740_993u64), "9007199254740993"),
        (json!(i64::MAX), "9223372036854775807"),
        (json!(3.0), "3"),
    ] {
        let (refused, text) = call(&session, MANAGE, link(sent.clone())).await.unwrap();
        assert!(!refused, "number={sent}: {text}");
        assert!(text.contains(&format!(r#""number":{stored}"#)), "{text}");
    }
    for bad in [
        json!(0),
        json!(-1),
        json!(1.5),
        json!(i64::MAX as u64 + 1),
        json!(u64::MAX),
        json!(18_446_744_073_709_551_616.0),
        json!(1e300),
        json!(9_007_199_254_740_994.0),
        json!("7"),
        json!(true),
        json!([1]),
    ] {
        for (field, arguments) in [
            ("number", link(bad.clone())),
            ("old_number", replace(bad.clone())),
        ] {
            let refusal = call(&session, MANAGE, arguments).await;
            assert_invalid_params(&refusal, field, &format!("{field}={bad}"));
        }
    }

    // The other whole-number arguments refuse the same way instead of
    // saturating (2^64 used to become position u32::MAX).
    for (tool, arguments, field) in [
        (
            "move_task_kandev",
            json!({ "task_id": "task-3", "workflow_id": "wf-1", "workflow_step_id": "step-done", "position": 1e10 }),
            "position",
        ),
        (
            "get_task_conversation_kandev",
            json!({ "task_id": "task-2", "limit": 0.5 }),
            "limit",
        ),
    ] {
        let refusal = call(&session, tool, arguments).await;
        assert_invalid_params(&refusal, field, tool);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_and_text_refuse_control_characters_bidi_overrides_and_excess() {
    let server = Server::start().await;
    let session = server.connect().await;
    let client = &session.service;
    let before = board(&session).await;

    let hostile = [
        ('\0', "U+0000"),
        ('\u{7}', "U+0007"),
        ('\u{1b}', "U+001B"),
        ('\u{7f}', "U+007F"),
        ('\u{85}', "U+0085"),
        ('\u{202A}', "U+202A"),
        ('\u{202E}', "U+202E"),
        ('\u{2066}', "U+2066"),
        ('\u{2069}', "U+2069"),
    ];
    for (c, code) in hostile {
        for (tool, field, arguments) in [
            (
                "create_task_kandev",
                "title",
                json!({ "title": format!("Fix{c}it") }),
            ),
            (
                "create_task_kandev",
                "prompt",
                json!({ "title": "ok", "prompt": format!("do{c}it") }),
            ),
            (
                "update_task_kandev",
                "title",
                json!({ "task_id": "task-3", "title": format!("x{c}y") }),
            ),
            (
                "update_task_kandev",
                "description",
                json!({ "task_id": "task-3", "description": format!("x{c}y") }),
            ),
            (
                "message_task_kandev",
                "prompt",
                json!({ "task_id": "task-2", "prompt": format!("hi{c}") }),
            ),
            (
                "spawn_session_kandev",
                "name",
                json!({ "task_id": "task-3", "prompt": "go", "name": format!("ta{c}b") }),
            ),
        ] {
            let (refused, text) = common::call(client, tool, arguments).await;
            assert!(refused, "{tool} {field} with {code}: {text}");
            assert!(
                text.starts_with(&format!("invalid `{field}`: character ")) && text.contains(code),
                "{tool} {field}: {text}"
            );
        }
    }
    // Lines and tabs are text, not a name.
    let (refused, text) = common::call(
        client,
        "update_task_kandev",
        json!({ "task_id": "task-3", "title": "two\nlines" }),
    )
    .await;
    assert!(refused && text.contains("U+000A"), "{text}");

    // Lengths are capped, and the cap is named.
    let long_title = "t".repeat(kandev_mcp::store::MAX_NAME_CHARS + 1);
    let long_text = "d".repeat(kandev_mcp::store::MAX_TEXT_CHARS + 1);
    for (field, arguments, limit) in [
        (
            "title",
            json!({ "title": long_title }),
            kandev_mcp::store::MAX_NAME_CHARS,
        ),
        (
            "prompt",
            json!({ "title": "ok", "prompt": long_text }),
            kandev_mcp::store::MAX_TEXT_CHARS,
        ),
    ] {
        let (refused, text) = common::call(client, "create_task_kandev", arguments).await;
        assert!(refused, "{field}: {text}");
        assert_eq!(
            text,
            format!("invalid `{field}`: longer than {limit} characters")
        );
    }
    // One call adds a bounded number of items.
    let blockers = vec!["task-1"; kandev_mcp::store::MAX_ITEMS_PER_CALL + 1];
    let (refused, text) = common::call(
        client,
        "create_task_kandev",
        json!({ "title": "ok", "blocked_by": blockers }),
    )
    .await;
    assert!(
        refused && text.starts_with("invalid `blocked_by`: 101 items"),
        "{text}"
    );

    // Nothing was written.
    assert_eq!(board(&session).await, before);

    // Plain multi-line text and names at the cap are fine.
    let (refused, text) = common::call(
        client,
        "create_task_kandev",
        json!({
            "title": "n".repeat(kandev_mcp::store::MAX_NAME_CHARS),
            "prompt": "line one\n\tline two\r\n",
        }),
    )
    .await;
    assert!(!refused, "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_board_refuses_additions_until_something_is_deleted() {
    use kandev_mcp::store::{MAX_RECORDS, Store};
    let store = std::sync::Arc::new(Store::demo());
    {
        // Filler records up to the bound, on the board directly.
        let mut board = store.lock();
        let free = MAX_RECORDS - board.records();
        board
            .diagnostics
            .extend((0..free).map(|n| format!("filler-{n}")));
        assert_eq!(board.records(), MAX_RECORDS);
    }
    let (client, _) = common::in_process(store.clone(), "task-2").await;
    for (tool, arguments, field) in [
        (
            "create_task_kandev",
            json!({ "title": "one more" }),
            "title",
        ),
        (
            "message_task_kandev",
            json!({ "task_id": "task-2", "prompt": "hi" }),
            "prompt",
        ),
        (
            "add_task_dependency_kandev",
            json!({ "task_id": "task-3", "depends_on_task_id": "task-2" }),
            "depends_on_task_id",
        ),
    ] {
        let (refused, text) = common::call(&client, tool, arguments).await;
        assert!(refused, "{tool}: {text}");
        assert_eq!(
            text,
            format!(
                "invalid `{field}`: the board is full: it holds {MAX_RECORDS} records and \
                 takes at most {MAX_RECORDS}; delete something first"
            )
        );
    }
    assert_eq!(store.lock().records(), MAX_RECORDS);
    // Changing what exists still works; deleting makes room.
    let (refused, text) = common::call(
        &client,
        "update_task_kandev",
        json!({ "task_id": "task-3", "title": "Renamed" }),
    )
    .await;
    assert!(!refused, "{text}");
    let (refused, text) = common::call(
        &client,
        "delete_task_kandev",
        json!({ "task_id": "task-3" }),
    )
    .await;
    assert!(!refused, "{text}");
    let (refused, text) = common::call(
        &client,
        "create_task_kandev",
        json!({ "title": "one more" }),
    )
    .await;
    assert!(!refused, "{text}");
    assert_eq!(store.lock().records(), MAX_RECORDS);
}
