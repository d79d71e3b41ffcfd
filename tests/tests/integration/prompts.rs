//! Prompt groups under the profile: `prompts/list` and `prompts/get` answer
//! from the session's profile only, a hidden prompt is refused with -32602
//! before any handler runs, and a replacement that changes the visible
//! prompts sends exactly one `notifications/prompts/list_changed` (2025
//! era) or one event on a 2026-07-28 stream that asked for it; none when
//! they are unchanged.

use mcp_profiles::{ProfileController, Registry, RegistryError};
use mcp_profiles_tests::client::{List, Session, serve_duplex};
use mcp_profiles_tests::library::clash::Clash;
use mcp_profiles_tests::library::{Library, desk, lending, shelf};
use mcp_profiles_tests::modern::{
    LIMIT, ModernSession, expect_list_changed, expect_silence, listen,
};
use rmcp::model::{ErrorCode, GetPromptRequestParams, JsonObject, SubscriptionFilter};
use rmcp::service::ServiceError;

async fn prompt_names(session: &Session) -> Vec<String> {
    let prompts = session
        .service
        .list_all_prompts()
        .await
        .expect("prompts/list");
    prompts.into_iter().map(|prompt| prompt.name).collect()
}

fn summarise() -> GetPromptRequestParams {
    let arguments = JsonObject::from_iter([("title".to_owned(), "Dune".into())]);
    GetPromptRequestParams::new("summarise_book").with_arguments(arguments)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_follow_the_profile_with_one_notification_per_change() {
    let library = Library::default();
    let controller = ProfileController::<Library>::new(shelf());
    let session = Session::connect(serve_duplex(controller.server(library.clone()))).await;
    let info = session.service.peer_info().expect("initialized");
    let prompts = info
        .capabilities
        .prompts
        .as_ref()
        .expect("prompts advertised");
    assert_eq!(prompts.list_changed, Some(true));

    // Off the desk: no prompt, and asking for one runs nothing.
    assert!(prompt_names(&session).await.is_empty());
    match session.service.get_prompt(summarise()).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(
                error.message,
                "prompt `summarise_book` is not available in the current profile"
            );
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    assert_eq!(library.calls("summarise_book"), 0);

    // At the desk: one prompts/list_changed, no tools/list_changed (no tool
    // changed), and the prompt runs.
    let change = controller.replace(desk());
    assert!(change.prompts_changed && !change.resources_changed);
    assert_eq!(
        session
            .wait_for_notifications_of(List::Prompts, 1, LIMIT)
            .await,
        1
    );
    assert_eq!(prompt_names(&session).await, ["summarise_book"]);
    let got = session.service.get_prompt(summarise()).await.expect("runs");
    assert_eq!(got.messages.len(), 1);
    assert_eq!(library.calls("summarise_book"), 1);

    // The same prompts again: nothing is sent.
    assert!(!controller.replace(desk()).prompts_changed);
    // Lending adds a prompt and a resource template: one of each.
    let change = controller.replace(lending());
    assert!(change.prompts_changed && change.resources_changed);
    session
        .expect_exactly(&[(List::Prompts, 2), (List::Resources, 1), (List::Tools, 0)])
        .await;
    assert_eq!(
        prompt_names(&session).await,
        ["lend_book", "summarise_book"]
    );
    // The controller sees what its sessions list.
    let listed: Vec<_> = controller.prompts().into_iter().map(|p| p.name).collect();
    assert_eq!(listed, ["lend_book", "summarise_book"]);
    assert_eq!(controller.resources().len(), 1);
    assert_eq!(controller.resource_templates().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_stream_hears_of_prompts_only_when_it_asked() {
    let controller = ProfileController::<Library>::new(shelf());
    let modern = ModernSession::connect(serve_duplex(controller.server(Library::default()))).await;
    let mut prompts = listen(
        &modern,
        SubscriptionFilter::builder().prompts_list_changed().build(),
    )
    .await;
    assert_eq!(prompts.acknowledged().prompts_list_changed, Some(true));
    let mut tools = listen(
        &modern,
        SubscriptionFilter::builder().tools_list_changed().build(),
    )
    .await;

    assert!(controller.replace(desk()).prompts_changed);
    expect_list_changed(&mut prompts, &[List::Prompts]).await;
    expect_silence(&mut tools).await;

    // Unchanged prompts: silence on both.
    assert!(!controller.replace(desk()).prompts_changed);
    expect_silence(&mut prompts).await;
    assert_eq!(modern.unsolicited(), 0);
}

#[test]
fn co_enabled_prompt_groups_may_not_share_a_prompt() {
    let errors = Registry::<Clash>::linked().expect_err("the groups collide");
    let collision = errors
        .iter()
        .find(|error| matches!(error, RegistryError::PromptCollision { .. }))
        .expect("a prompt collision");
    assert_eq!(
        collision.to_string(),
        "prompt `greet` is exposed by both `first-prompts` and `second-prompts`, which the \
         context {\"surface\":\"desk\",\"capabilities\":[\"lend\"],\"providers\":[]} enables \
         together"
    );
}
