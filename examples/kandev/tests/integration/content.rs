//! Kandev's prompt and resource over streamable HTTP against a running
//! `kandev-mcp serve`: the task-plan template is there on `kanban-task`, the
//! review prompt only with GitHub attached, and each appears and disappears
//! with the profile the control API puts, with one list_changed per list.

use mcp_profiles_tests::client::{List, Session};
use rmcp::model::{
    ErrorCode, GetPromptRequestParams, JsonObject, ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::ServiceError;

use crate::common::{LIMIT, Server};

const PLAN: &str = "kandev://task/task-1/plan";
const REVIEW: &str = "review_pull_request_kandev";

async fn prompts(session: &Session) -> Vec<String> {
    let listed = session
        .service
        .list_all_prompts()
        .await
        .expect("prompts/list");
    listed.into_iter().map(|prompt| prompt.name).collect()
}

async fn templates(session: &Session) -> Vec<String> {
    let listed = session
        .service
        .list_all_resource_templates()
        .await
        .expect("resources/templates/list");
    listed.into_iter().map(|t| t.uri_template).collect()
}

/// The plan's text, or the error's code.
async fn read_plan(session: &Session) -> Result<String, ErrorCode> {
    match session
        .service
        .read_resource(ReadResourceRequestParams::new(PLAN))
        .await
    {
        Ok(result) => match &result.contents[..] {
            [ResourceContents::TextResourceContents { text, .. }] => Ok(text.clone()),
            other => panic!("unexpected contents {other:?}"),
        },
        Err(ServiceError::McpError(error)) => Err(error.code),
        Err(other) => panic!("resources/read failed outside MCP: {other}"),
    }
}

/// The review prompt's text, or the error's code.
async fn review(session: &Session) -> Result<String, ErrorCode> {
    let arguments = JsonObject::from_iter([("pr_number".to_owned(), "#12".into())]);
    match session
        .service
        .get_prompt(GetPromptRequestParams::new(REVIEW).with_arguments(arguments))
        .await
    {
        Ok(result) => Ok(result
            .messages
            .iter()
            .filter_map(|message| message.content.as_text().map(|t| t.text.clone()))
            .collect()),
        Err(ServiceError::McpError(error)) => Err(error.code),
        Err(other) => panic!("prompts/get failed outside MCP: {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_and_the_review_prompt_follow_the_profile() {
    let server = Server::start().await;
    let http = reqwest::Client::new();
    let session = server.connect().await;

    // kanban-task without GitHub: the plan, no review prompt.
    assert_eq!(templates(&session).await, ["kandev://task/{task_id}/plan"]);
    let plan = read_plan(&session).await.expect("the plan reads");
    assert!(plan.starts_with("# Plan\n\n1. Registry"), "{plan}");
    assert!(prompts(&session).await.is_empty());
    assert_eq!(review(&session).await, Err(ErrorCode::INVALID_PARAMS));

    // GitHub attached: the prompt appears, one prompts/list_changed, and the
    // resources are as they were.
    server
        .replace(
            &http,
            r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":["github"]}"#,
        )
        .await;
    assert_eq!(
        session
            .wait_for_notifications_of(List::Prompts, 1, LIMIT)
            .await,
        1
    );
    assert_eq!(prompts(&session).await, [REVIEW]);
    let text = review(&session).await.expect("the prompt runs");
    assert!(
        text.starts_with("Review pull request #12 for task `task-2`"),
        "{text}"
    );

    // The configuration surface: both go, one list_changed each.
    server
        .replace(&http, r#"{"surface":"configuration"}"#)
        .await;
    session
        .expect_exactly(&[(List::Prompts, 2), (List::Resources, 1)])
        .await;
    assert!(templates(&session).await.is_empty());
    assert_eq!(
        read_plan(&session).await,
        Err(ErrorCode::RESOURCE_NOT_FOUND)
    );
    assert_eq!(review(&session).await, Err(ErrorCode::INVALID_PARAMS));
}
