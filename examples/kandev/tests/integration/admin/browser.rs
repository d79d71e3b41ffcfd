//! The admin page in headless Chromium: log in with the control token,
//! replace a profile through the form (preview, then apply), see the new
//! tool set, while a connected MCP client gets exactly one
//! `tools/list_changed`; `serve` and the gateway (a profile, then the kill
//! switch). Each test saves screenshots under `target/tmp/admin-screenshots`
//! (the README's come from there).

use std::path::PathBuf;

use mcp_profiles_tests::browser::Browser;
use mcp_profiles_tests::client::{List, Session, http_transport};

use crate::common::gateway::{grant, put};
use crate::common::{Server, TOKEN};

/// Where the screenshots go.
fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("admin-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn save(browser: &Browser, name: &str) {
    std::fs::write(screenshot_dir().join(name), browser.screenshot().await).unwrap();
}

/// Logs in at `server`'s admin page, first with a wrong token.
async fn log_in(browser: &Browser, server: &Server) {
    browser.goto(&format!("{}/admin", server.control)).await;
    browser.expect_path("/admin/login").await;
    browser.fill("#token", "not-the-token").await;
    browser.click("form.login button").await;
    assert_eq!(browser.text("p.problem").await, "wrong token");
    browser.fill("#token", TOKEN).await;
    browser.click("form.login button").await;
    browser.expect_path("/admin").await;
}

/// The tool names the page lists under "Visible tools".
async fn listed_tools(browser: &Browser) -> Vec<String> {
    let mut names: Vec<String> = browser
        .text("#tools")
        .await
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn serve_replaces_the_profile_from_the_page_and_the_client_hears_once() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let server = Server::start().await;
    let session = server.connect().await;
    log_in(&browser, &server).await;
    // Its one agent, the task it serves, on the library's page.
    assert!(browser.text("#principals").await.contains("task-2"));
    save(&browser, "serve-overview.png").await;
    browser.click(r#"a[href="/admin/agents/task-2"]"#).await;
    browser.expect_path("/admin/agents/task-2").await;
    let mut before = session.tool_names().await;
    before.sort();
    assert_eq!(listed_tools(&browser).await, before);
    assert_eq!(browser.text("#sessions").await, "1");

    browser
        .fill("#profile", r#"{"surface":"configuration"}"#)
        .await;
    browser.click("#profile-form button").await;
    browser.expect_path("/admin/agents/task-2/profile").await;
    let added = browser.text("ul.added").await;
    assert!(added.contains("create_workflow_kandev"), "{added}");
    save(&browser, "serve-preview.png").await;
    // Nothing changed yet.
    assert_eq!(session.notifications_of(List::Tools), 0);

    browser.click("#apply button").await;
    browser.expect_path("/admin/agents/task-2").await;
    assert_eq!(browser.text("#tool-count").await, "43");
    session.expect_exactly(&[(List::Tools, 1)]).await;
    let mut after = session.tool_names().await;
    after.sort();
    assert_eq!(listed_tools(&browser).await, after);
    let audit = browser.text("#audit tbody tr").await;
    assert!(
        audit.contains("profile-put") && audit.contains("control"),
        "{audit}"
    );

    browser.click("header form.logout button").await;
    browser.expect_path("/admin/login").await;
    browser.goto(&format!("{}/admin", server.control)).await;
    browser.expect_path("/admin/login").await;
    browser.close().await;
}

#[tokio::test]
async fn the_gateway_page_replaces_an_agent_and_sets_the_kill_switch() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let gateway = Server::start_gateway(&[]).await;
    put(&gateway, "alice", r#"{"surface":"kanban-task"}"#).await;
    put(&gateway, "bob", r#"{"surface":"configuration"}"#).await;
    grant(&gateway, "alice-token", "alice").await;
    let alice = Session::connect(http_transport(&gateway.mcp, Some("alice-token"))).await;
    log_in(&browser, &gateway).await;
    let principals = browser.text("#principals").await;
    assert!(
        principals.contains("alice") && principals.contains("bob"),
        "{principals}"
    );
    save(&browser, "gateway-overview.png").await;

    browser.click(r#"a[href="/admin/agents/alice"]"#).await;
    browser.expect_path("/admin/agents/alice").await;
    assert_eq!(browser.text("#sessions").await, "1");
    browser
        .fill("#profile", r#"{"surface":"configuration"}"#)
        .await;
    browser.click("#profile-form button").await;
    assert!(
        browser
            .text("ul.added")
            .await
            .contains("create_workflow_kandev")
    );
    browser.click("#apply button").await;
    browser.expect_path("/admin/agents/alice").await;
    assert_eq!(browser.text("#tool-count").await, "43");
    alice.expect_exactly(&[(List::Tools, 1)]).await;
    save(&browser, "gateway-agent.png").await;

    browser.click("a.home").await;
    browser.fill("#deny", "delete_task_kandev").await;
    browser.click("#kill-switch-form button").await;
    assert_eq!(browser.text("ul.removed").await, "delete_task_kandev");
    browser.click("#apply button").await;
    browser.expect_path("/admin").await;
    assert!(
        browser
            .text("#kill-switch")
            .await
            .contains("delete_task_kandev")
    );
    alice.expect_exactly(&[(List::Tools, 2)]).await;
    assert!(
        !alice
            .tool_names()
            .await
            .contains(&"delete_task_kandev".to_owned())
    );
    browser.close().await;
}
