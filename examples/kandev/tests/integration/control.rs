//! The control API against a running `kandev-mcp serve --http --control`
//! process, with a real rmcp client connected over streamable HTTP.

use std::time::Duration;

use crate::common::{BEARER, LIMIT, Server};
use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

/// Sends `body` to the control API; status and JSON answer.
async fn send(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    body: Option<String>,
) -> (u16, Value) {
    let http = reqwest::Client::new();
    server.control(&http, method, path, token, body).await
}

fn bearer() -> Option<&'static str> {
    Some(BEARER)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorised_put_notifies_once_and_errors_change_nothing() {
    let server = Server::start().await;
    let session = server.connect().await;
    let before = session.tool_names().await;
    assert!(before.contains(&"ask_user_question_kandev".to_owned()));

    let (status, current) = send(
        &server,
        reqwest::Method::GET,
        "/api/v1/mcp/profile",
        bearer(),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        current["profile"],
        json!({"surface": "kanban-task", "capabilities": ["user-question"], "providers": []})
    );
    assert_eq!(current["tools"].as_array().unwrap().len(), before.len());

    // Every refusal: nothing changes, nothing is sent.
    let profile = r#"{"surface":"kanban-task","capabilities":["parent-question"]}"#.to_owned();
    let refusals = [
        (
            "/api/v1/mcp/profile",
            None,
            Some(profile.clone()),
            401,
            "missing `Authorization: Bearer <token>` header",
        ),
        (
            "/api/v1/mcp/profile",
            Some("Bearer wrong"),
            Some(profile.clone()),
            401,
            "wrong bearer token",
        ),
        (
            "/api/v1/mcp/profile",
            Some("Basic dGVzdA=="),
            Some(profile.clone()),
            401,
            "missing `Authorization: Bearer <token>` header",
        ),
        (
            "/api/v1/mcp/profile",
            bearer(),
            Some("{not json".into()),
            400,
            "key must be a string at line 1 column 2",
        ),
        (
            "/api/v1/mcp/profile",
            bearer(),
            Some(r#"{"surface":"kanban-task","capabilities":["parent-quesiton"]}"#.into()),
            400,
            "unknown capability `parent-quesiton`; expected one of: user-question, parent-question, task-title, canvas-authoring at line 1 column 58",
        ),
        (
            "/api/v1/mcp/profile",
            bearer(),
            Some(r#"{"surface":"kanban-task","mode":"task"}"#.into()),
            400,
            "unknown field `mode`, expected one of `surface`, `capabilities`, `providers`, `policy`, `allow`, `runtime_allow` at line 1 column 31",
        ),
        (
            "/api/v1/mcp/mode",
            bearer(),
            Some(r#"{"mode":"planning"}"#.into()),
            400,
            "unknown mode `planning`; expected one of: task, task-title-pending, config, office, external, automation, coordinator",
        ),
        (
            "/api/v1/mcp/mode",
            bearer(),
            Some(r#"{"mode":"task","disable":true}"#.into()),
            400,
            "unknown field `disable`, expected `mode` or `disable_ask_question` at line 1 column 24",
        ),
        (
            "/api/v1/mcp/providers",
            bearer(),
            Some(r#"{"mcp_providers":["bitbucket"]}"#.into()),
            400,
            "unknown provider `bitbucket`; expected one of: github, gitlab",
        ),
        (
            "/api/v1/mcp/profile",
            bearer(),
            Some(format!(
                r#"{{"surface":"kanban-task","pad":"{}"}}"#,
                "x".repeat(70 * 1024)
            )),
            413,
            "body larger than 65536 bytes",
        ),
    ];
    for (path, token, body, status, message) in refusals {
        let (got, answer) = send(&server, reqwest::Method::PUT, path, token, body).await;
        assert_eq!(
            (got, answer["error"].as_str().unwrap_or_default()),
            (status, message),
            "{path}"
        );
    }
    let (status, _) = send(
        &server,
        reqwest::Method::POST,
        "/api/v1/mcp/profile",
        bearer(),
        Some(profile.clone()),
    )
    .await;
    assert_eq!(status, 405);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        session.notifications(),
        0,
        "a refused request sent a notification"
    );
    assert_eq!(session.tool_names().await, before);

    // The authorised update: one notification and the new set.
    let (status, answer) = send(
        &server,
        reqwest::Method::PUT,
        "/api/v1/mcp/profile",
        bearer(),
        Some(profile),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(answer["changed"], json!(true));
    let heard = session.wait_for_notifications(1, LIMIT).await;
    assert!(heard >= 1, "a list_changed arrives");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(session.notifications(), 1);
    let after = session.tool_names().await;
    assert!(after.contains(&"ask_parent_question_kandev".to_owned()));
    assert!(!after.contains(&"ask_user_question_kandev".to_owned()));
    let tools: Vec<String> = serde_json::from_value(answer["tools"].clone()).unwrap();
    assert_eq!(tools, after);

    // Mode and providers routes; an unchanged set reports changed: false.
    let (status, answer) = send(
        &server,
        reqwest::Method::PUT,
        "/api/v1/mcp/providers",
        bearer(),
        Some(r#"{"mcp_providers":["GitHub"]}"#.into()),
    )
    .await;
    assert_eq!((status, answer["changed"].clone()), (200, json!(true)));
    assert_eq!(answer["profile"]["providers"], json!(["github"]));
    let (status, answer) = send(
        &server,
        reqwest::Method::PUT,
        "/api/v1/mcp/mode",
        bearer(),
        Some(r#"{"mode":"task","disable_ask_question":true}"#.into()),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        answer["profile"]["capabilities"],
        json!(["parent-question"])
    );
    assert_eq!(answer["changed"], json!(false));
    session.service.cancel().await.unwrap();
}

/// A 2026-07-28 client in the Discover lifecycle and a 2025-era client on the
/// same `serve --http` process: the subscriber hears of the change on its
/// `subscriptions/listen` stream, the 2025 session unsolicited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_http_speaks_both_protocol_eras() {
    let server = Server::start().await;
    let legacy = server.connect().await;
    let modern = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.mcp.clone()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover lifecycle");
    let mut subscription = modern
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("subscriptions/listen");

    let profile = r#"{"surface":"office-task"}"#.to_owned();
    let (status, _) = send(
        &server,
        reqwest::Method::PUT,
        "/api/v1/mcp/profile",
        bearer(),
        Some(profile),
    )
    .await;
    assert_eq!(status, 200);
    let notification = tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .expect("the subscriber is notified")
        .unwrap()
        .unwrap();
    assert!(matches!(
        notification,
        ServerNotification::ToolListChangedNotification(_)
    ));
    let heard = legacy.wait_for_notifications(1, LIMIT).await;
    assert!(heard >= 1, "the 2025 session is notified");
    let modern_tools = modern.list_all_tools().await.unwrap();
    assert_eq!(modern_tools.len(), legacy.tool_names().await.len());
    assert!(
        modern_tools
            .iter()
            .any(|tool| tool.name == "write_task_document_kandev")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_routes_and_non_json_bodies_are_refused_with_an_error_body() {
    let server = Server::start().await;
    let session = server.connect().await;
    let tools = session.tool_names().await;
    let http = reqwest::Client::new();
    let profile = format!("{}/api/v1/mcp/profile", server.control);

    // Unknown routes name themselves, with or without a token; a long path
    // is cut short.
    for (method, path) in [
        (reqwest::Method::GET, "/api/v1/mcp/nothing".to_owned()),
        (reqwest::Method::PUT, "/".to_owned()),
        (reqwest::Method::DELETE, "/x".repeat(5000)),
    ] {
        for token in [None, bearer()] {
            let (status, answer) = send(&server, method.clone(), &path, token, None).await;
            assert_eq!(status, 404, "{method} {path}");
            let message = answer["error"].as_str().expect("an error message");
            let shown: String = path.chars().take(256).collect();
            assert!(
                message.starts_with(&format!("no route {method} {shown}")),
                "{message}"
            );
            assert!(message.len() < 300, "{} bytes echoed", message.len());
        }
    }

    // PUT bodies must be declared JSON; parameters are fine.
    let body = r#"{"surface":"office-task"}"#;
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("application/jsonx"),
        Some("multipart/form-data; boundary=x"),
    ] {
        let mut request = http
            .put(&profile)
            .header("Authorization", bearer().unwrap())
            .body(body);
        if let Some(value) = content_type {
            request = request.header("Content-Type", value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 415, "{content_type:?}");
        let answer: Value = response.json().await.expect("a JSON answer");
        let message = answer["error"].as_str().expect("an error message");
        assert!(message.contains("application/json"), "{message}");
    }
    // Nothing changed, nothing was sent.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(session.notifications(), 0);
    assert_eq!(session.tool_names().await, tools);

    for content_type in ["application/json", "Application/JSON; charset=utf-8"] {
        let response = http
            .put(&profile)
            .header("Authorization", bearer().unwrap())
            .header("Content-Type", content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{content_type}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_has_one_shape_a_code_and_where_in_the_body() {
    let server = Server::start().await;
    let put = reqwest::Method::PUT;
    let cases = [
        (
            "/api/v1/mcp/mode",
            bearer(),
            r#"{"mode":3}"#,
            400,
            "invalid-body",
            Some("/mode"),
        ),
        (
            "/api/v1/mcp/mode",
            bearer(),
            r#"{"mode":"task","disable":true}"#,
            400,
            "invalid-body",
            Some("/disable"),
        ),
        (
            "/api/v1/mcp/mode",
            bearer(),
            r#"[]"#,
            400,
            "invalid-body",
            Some(""),
        ),
        (
            "/api/v1/mcp/mode",
            bearer(),
            r#"{}"#,
            400,
            "invalid-body",
            Some(""),
        ),
        (
            "/api/v1/mcp/providers",
            bearer(),
            r#"{"mcp_providers":["github",7]}"#,
            400,
            "invalid-body",
            Some("/mcp_providers/1"),
        ),
        (
            "/api/v1/mcp/kill-switch",
            bearer(),
            r#"{"deny":[true]}"#,
            400,
            "invalid-body",
            Some("/deny/0"),
        ),
        (
            "/api/v1/mcp/mode",
            bearer(),
            r#"{"mode":"planning"}"#,
            400,
            "invalid-request",
            None,
        ),
        (
            "/api/v1/mcp/mode",
            None,
            r#"{"mode":"task"}"#,
            401,
            "unauthorized",
            None,
        ),
        ("/api/v1/nothing", bearer(), r#"{}"#, 404, "no-route", None),
    ];
    for (path, token, body, status, code, pointer) in cases {
        let (got, answer) = send(&server, put.clone(), path, token, Some(body.into())).await;
        assert_eq!(got, status, "{path} {body}: {answer}");
        assert_eq!(answer["status"], status, "{answer}");
        assert_eq!(answer["code"], code, "{path} {body}: {answer}");
        assert_eq!(
            answer["pointer"].as_str(),
            pointer,
            "{path} {body}: {answer}"
        );
        let message = answer["error"].as_str().unwrap();
        for rust in ["struct ", "enum ", "Body", "::"] {
            assert!(
                !message.contains(rust),
                "a message names a Rust type: {message}"
            );
        }
    }
    let (status, answer) = send(
        &server,
        reqwest::Method::DELETE,
        "/api/v1/mcp/mode",
        bearer(),
        None,
    )
    .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (405, Some("method-not-allowed"))
    );
}
