//! Resource groups under the profile: `resources/list`,
//! `resources/templates/list`, `resources/read` and `resources/subscribe`
//! answer from the session's profile only, a hidden resource is refused with
//! -32002 (resource not found) before any handler runs, templates match by
//! pattern, and a replacement that changes the visible resources sends
//! exactly one `notifications/resources/list_changed` (2025 era) or one
//! event on a 2026-07-28 stream that asked for it.

use mcp_profiles::{ProfileController, Registry, RegistryError};
use mcp_profiles_tests::client::{List, Session, serve_duplex};
use mcp_profiles_tests::library::clash::Clash;
use mcp_profiles_tests::library::{Library, desk, lending, shelf};
use mcp_profiles_tests::modern::{
    LIMIT, ModernSession, expect_list_changed, expect_silence, listen,
};
use rmcp::model::{
    ErrorCode, ReadResourceRequestParams, ResourceContents, SubscribeRequestParams,
    SubscriptionFilter,
};
use rmcp::service::ServiceError;

async fn read(session: &Session, uri: &str) -> Result<String, (ErrorCode, String)> {
    match session
        .service
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
    {
        Ok(result) => match &result.contents[..] {
            [ResourceContents::TextResourceContents { text, .. }] => Ok(text.clone()),
            other => panic!("unexpected contents {other:?}"),
        },
        Err(ServiceError::McpError(error)) => Err((error.code, error.message.into_owned())),
        Err(other) => panic!("resources/read failed outside MCP: {other}"),
    }
}

fn not_found(uri: &str) -> Result<String, (ErrorCode, String)> {
    Err((
        ErrorCode::RESOURCE_NOT_FOUND,
        format!("resource `{uri}` is not available in the current profile"),
    ))
}

async fn listed(session: &Session) -> (Vec<String>, Vec<String>) {
    let resources = session.service.list_all_resources().await.expect("list");
    let templates = session
        .service
        .list_all_resource_templates()
        .await
        .expect("templates/list");
    (
        resources.into_iter().map(|r| r.uri).collect(),
        templates.into_iter().map(|t| t.uri_template).collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_follow_the_profile_with_one_notification_per_change() {
    let library = Library::default();
    let controller = ProfileController::<Library>::new(shelf());
    let session = Session::connect(serve_duplex(controller.server(library.clone()))).await;
    let info = session.service.peer_info().expect("initialized");
    let resources = info.capabilities.resources.as_ref().expect("advertised");
    assert_eq!(resources.list_changed, Some(true));

    assert_eq!(
        listed(&session).await,
        (vec!["library://catalogue".to_owned()], vec![])
    );
    assert_eq!(
        read(&session, "library://catalogue").await,
        Ok("Dune".into())
    );
    assert_eq!(
        read(&session, "library://loan/7").await,
        not_found("library://loan/7")
    );
    #[allow(deprecated)] // 2025-era clients still send it.
    let subscribed = session
        .service
        .subscribe(SubscribeRequestParams::new("library://loan/7"))
        .await;
    match subscribed {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND)
        }
        other => panic!("expected -32002, got {other:?}"),
    }
    assert_eq!(library.calls("library://loan/{id}"), 0);

    // The desk changes prompts only: no resources/list_changed.
    assert!(!controller.replace(desk()).resources_changed);
    // Lending adds the loan template: exactly one.
    assert!(controller.replace(lending()).resources_changed);
    assert_eq!(
        session
            .wait_for_notifications_of(List::Resources, 1, LIMIT)
            .await,
        1
    );
    assert_eq!(
        listed(&session).await,
        (
            vec!["library://catalogue".to_owned()],
            vec!["library://loan/{id}".to_owned()]
        )
    );
    assert_eq!(
        read(&session, "library://loan/7").await,
        Ok("loan 7".into())
    );
    // Not an expansion of the template: not found, and no handler runs.
    assert_eq!(
        read(&session, "library://loan/7/extra").await,
        not_found("library://loan/7/extra")
    );
    assert_eq!(library.calls("library://loan/{id}"), 1);

    // Back to the shelf: the template goes, one more notification.
    assert!(controller.replace(shelf()).resources_changed);
    session
        .expect_exactly(&[(List::Resources, 2), (List::Tools, 0)])
        .await;
    assert_eq!(
        read(&session, "library://loan/7").await,
        not_found("library://loan/7")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_stream_hears_of_each_kind_it_asked_for_once() {
    let controller = ProfileController::<Library>::new(shelf());
    let modern = ModernSession::connect(serve_duplex(controller.server(Library::default()))).await;
    let filter = SubscriptionFilter::builder()
        .prompts_list_changed()
        .resources_list_changed()
        .build();
    let mut both = listen(&modern, filter).await;
    assert_eq!(both.acknowledged().resources_list_changed, Some(true));
    let mut resources = listen(
        &modern,
        SubscriptionFilter::builder()
            .resources_list_changed()
            .build(),
    )
    .await;

    // Shelf to lending changes both lists: one event of each, in order.
    let change = controller.replace(lending());
    assert!(change.prompts_changed && change.resources_changed);
    expect_list_changed(&mut both, &[List::Prompts, List::Resources]).await;
    expect_list_changed(&mut resources, &[List::Resources]).await;

    // Lending to desk drops the loans and the lending prompt.
    assert!(controller.replace(desk()).resources_changed);
    expect_list_changed(&mut resources, &[List::Resources]).await;
    expect_list_changed(&mut both, &[List::Prompts, List::Resources]).await;

    assert!(!controller.replace(desk()).resources_changed);
    expect_silence(&mut resources).await;
    assert_eq!(modern.unsolicited(), 0);
}

#[test]
fn co_enabled_resource_groups_may_not_share_a_uri() {
    let errors = Registry::<Clash>::linked().expect_err("the groups collide");
    assert!(errors.iter().any(|error| matches!(
        error,
        RegistryError::ResourceCollision { uri, groups, .. }
            if uri == "clash://page/{n}" && groups == &["first-pages", "second-pages"]
    )));
}
