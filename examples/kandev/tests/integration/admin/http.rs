//! The admin page over plain HTTP: what a browser relies on without
//! seeing it (redirects, cookie attributes, headers, CSRF refusals,
//! escaping), for `serve` and the gateway.

use reqwest::header;

use super::{Login, hidden, no_redirects};
use crate::common::gateway::put;
use crate::common::{Server, TOKEN};

/// `serve`'s agent on the library's admin page: the demo board's task.
const SERVED: &str = "/admin/agents/task-2";

#[tokio::test]
async fn a_page_without_a_login_sends_the_browser_to_the_login_form() {
    let server = Server::start().await;
    let http = no_redirects();
    let answer = http
        .get(format!("{}/admin", server.control))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 303);
    assert_eq!(answer.headers()[header::LOCATION], "/admin/login");
    // The control API's bearer token is not a login.
    let answer = http
        .get(format!("{}/admin", server.control))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 303);
    // A form post without a login changes nothing.
    let answer = http
        .post(format!("{}{SERVED}/profile/apply", server.control))
        .form(&[
            ("profile", r#"{"surface":"configuration"}"#),
            ("version", "1"),
            ("csrf", "x"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 403);
    let form = http
        .get(format!("{}/admin/login", server.control))
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), 200);
    let csp = form.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.contains("default-src 'none'") && csp.contains("form-action 'self'"),
        "{csp}"
    );
    assert_eq!(form.headers()[header::X_FRAME_OPTIONS], "DENY");
    assert_eq!(form.headers()[header::CACHE_CONTROL], "no-store");
    assert!(form.text().await.unwrap().contains(r#"name="token""#));
}

#[tokio::test]
async fn only_the_control_token_logs_in_and_the_cookie_never_carries_it() {
    let server = Server::start().await;
    let wrong = no_redirects()
        .post(format!("{}/admin/login", server.control))
        .form(&[("token", "not-the-token")])
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(wrong.headers().get(header::SET_COOKIE).is_none());
    assert!(wrong.text().await.unwrap().contains("wrong token"));

    let right = no_redirects()
        .post(format!("{}/admin/login", server.control))
        .form(&[("token", TOKEN)])
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 303);
    let cookie = right.headers()[header::SET_COOKIE].to_str().unwrap();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/admin"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains(TOKEN), "{cookie}");
}

#[tokio::test]
async fn a_form_without_the_login_csrf_token_changes_nothing() {
    let server = Server::start().await;
    let session = server.connect().await;
    let before = session.tool_names().await;
    let login = Login::with_token(&server).await;
    let (status, page) = login
        .post(
            &server,
            &format!("{SERVED}/profile/apply"),
            &[
                ("profile", r#"{"surface":"configuration"}"#),
                ("version", "1"),
                ("csrf", "forged"),
            ],
        )
        .await;
    assert_eq!(status, 403, "{page}");
    assert!(page.contains("CSRF"), "{page}");
    // The right CSRF token, but the agent changed since `version`: 409.
    let csrf = login.csrf(&server).await;
    let (status, page) = login
        .post(
            &server,
            &format!("{SERVED}/profile/apply"),
            &[
                ("profile", r#"{"surface":"configuration"}"#),
                ("version", "7"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("not the one expected"), "{page}");
    session
        .expect_exactly(&[(mcp_profiles_tests::client::List::Tools, 0)])
        .await;
    assert_eq!(session.tool_names().await, before);
}

#[tokio::test]
async fn bad_input_is_named_and_escaped() {
    let server = Server::start().await;
    let login = Login::with_token(&server).await;
    let csrf = login.csrf(&server).await;
    let (status, page) = login
        .post(
            &server,
            &format!("{SERVED}/profile"),
            &[
                ("profile", r#"{"surface":"<script>alert(1)</script>"}"#),
                ("version", "1"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(status, 400, "{page}");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    assert!(!page.contains("<script>"), "{page}");
    let (status, page) = login
        .post(
            &server,
            "/admin/kill-switch",
            &[("deny", "no_such_tool"), ("version", "0"), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("no_such_tool"), "{page}");
    // Not a form.
    let answer = no_redirects()
        .post(format!("{}{SERVED}/profile", server.control))
        .header(header::COOKIE, &login.cookie)
        .header(header::CONTENT_TYPE, "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 415);
}

#[tokio::test]
async fn the_preview_shows_the_diff_and_the_apply_makes_it() {
    let server = Server::start().await;
    let login = Login::with_token(&server).await;
    let csrf = login.csrf(&server).await;
    let (status, preview) = login
        .post(
            &server,
            &format!("{SERVED}/profile"),
            &[
                ("profile", r#"{"surface":"configuration"}"#),
                ("version", "1"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(status, 200, "{preview}");
    assert!(preview.contains("create_workflow_kandev"), "{preview}");
    let http = reqwest::Client::new();
    let unchanged = server.profile(&http).await;
    assert_eq!(unchanged["profile"]["surface"], "kanban-task");
    let (status, _) = login
        .post(
            &server,
            &format!("{SERVED}/profile/apply"),
            &[
                ("profile", &hidden(&preview, "profile")),
                ("version", &hidden(&preview, "version")),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(status, 303);
    let changed = server.profile(&http).await;
    assert_eq!(changed["profile"]["surface"], "configuration");
    let (_, page) = login.get(&server, SERVED).await;
    assert!(
        page.contains("profile-put"),
        "the audit trail shows the change"
    );
}

#[tokio::test]
async fn the_gateway_page_lists_principals_and_refuses_unknown_ones() {
    let gateway = Server::start_gateway(&[]).await;
    put(&gateway, "alice", r#"{"surface":"kanban-task"}"#).await;
    put(&gateway, "bob", r#"{"surface":"configuration"}"#).await;
    let login = Login::with_token(&gateway).await;
    let (status, page) = login.get(&gateway, "/admin").await;
    assert_eq!(status, 200, "{page}");
    for expected in [
        r#"href="/admin/agents/alice""#,
        r#"href="/admin/agents/bob""#,
        "profile-put",
    ] {
        assert!(page.contains(expected), "{expected}: {page}");
    }
    let (status, page) = login.get(&gateway, "/admin/agents/carol").await;
    assert_eq!(status, 404, "{page}");
    assert!(page.contains("no agent `carol`"), "{page}");
    let (status, page) = login.get(&gateway, "/admin/agents/a%3Cb").await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("a&lt;b"), "{page}");
    // A stale version: the store's compare-and-set refuses it.
    let csrf = hidden(&page_of(&login, &gateway).await, "csrf");
    let (status, page) = login
        .post(
            &gateway,
            "/admin/agents/alice/profile/apply",
            &[
                ("profile", r#"{"surface":"configuration"}"#),
                ("version", "7"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(status, 409, "{page}");
}

async fn page_of(login: &Login, server: &Server) -> String {
    login.get(server, "/admin").await.1
}
