//! Handlers doing the real, small thing, called by a real rmcp client over an
//! in-process connection: parent questions and their answers, titles, a
//! configuration chat's prompts, settings, steps and automations, and bad
//! arguments reported as tool errors naming the field (the kanban side of
//! the September 2026 catalog is in `tools_kanban.rs`).

use std::sync::Arc;

use kandev_mcp::resolver::{Purpose, SessionFacts, resolve};
use kandev_mcp::store::Store;
use kandev_mcp::{Kandev, legacy};
use mcp_profiles::{ProfileContext, ProfileController};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

pub(crate) async fn connect(
    context: ProfileContext<Kandev>,
    handler: Kandev,
) -> RunningService<RoleClient, ()> {
    let controller = ProfileController::new(context);
    let (server_io, client_io) = tokio::io::duplex(256 * 1024);
    let server = controller.server(handler);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("client handshake")
}

pub(crate) async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    client
        .call_tool(
            CallToolRequestParams::new(tool).with_arguments(JsonObject::from_iter(arguments)),
        )
        .await
        .unwrap_or_else(|err| panic!("{tool}: {err}"))
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn json_of(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{}", text(result));
    serde_json::from_str(&text(result)).expect("handlers answer JSON")
}

pub(crate) fn error_of(result: &CallToolResult) -> String {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected a tool error, got {}",
        text(result)
    );
    text(result)
}

#[tokio::test]
async fn a_child_asks_its_parent_and_the_parent_answers() {
    let store = Arc::new(Store::demo());
    let child_context = resolve(&SessionFacts {
        purpose: Purpose::Task,
        autopilot: true,
        has_direct_parent: true,
        ..SessionFacts::default()
    });
    let child = connect(child_context, Kandev::new(Arc::clone(&store), "task-2")).await;
    let asked = json_of(
        &call(
            &child,
            "ask_parent_question_kandev",
            json!({ "questions": [{ "question": "Which branch?" }] }),
        )
        .await,
    );
    assert_eq!(asked["parent_task_id"], "task-1");
    assert_eq!(asked["status"], "waiting_for_parent");
    let question_id = asked["question_id"].as_str().unwrap().to_owned();

    let parent_context = legacy::context_for_mode("task", false).unwrap();
    let parent = connect(parent_context, Kandev::new(Arc::clone(&store), "task-1")).await;
    let reply = call(
        &parent,
        "message_task_kandev",
        json!({ "task_id": "task-2", "prompt": "Use main.", "reply_to_question_id": question_id }),
    )
    .await;
    json_of(&reply);
    let board = store.lock();
    let question = &board.questions[&question_id];
    assert_eq!(question.status, "answered");
    assert_eq!(question.answers, [json!("Use main.")]);
}

#[tokio::test]
async fn the_title_owner_sets_the_title() {
    let store = Arc::new(Store::demo());
    let context = legacy::context_for_mode("task-title-pending", false).unwrap();
    let client = connect(context, Kandev::new(Arc::clone(&store), "task-3")).await;
    json_of(
        &call(
            &client,
            "set_task_title_kandev",
            json!({ "title": "Runtime on rmcp" }),
        )
        .await,
    );
    assert_eq!(store.lock().tasks["task-3"].title, "Runtime on rmcp");
    assert_eq!(
        error_of(&call(&client, "set_task_title_kandev", json!({ "title": "  " })).await),
        "invalid `title`: the title is empty"
    );
}

#[tokio::test]
async fn tasks_are_created_moved_and_archived() {
    let store = Arc::new(Store::demo());
    let context = legacy::context_for_mode("task", false).unwrap();
    let client = connect(context, Kandev::new(Arc::clone(&store), "task-1")).await;
    let created = json_of(
        &call(
            &client,
            "create_task_kandev",
            json!({ "title": "Benchmarks", "parent_id": "task-1" }),
        )
        .await,
    );
    let id = created["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(created["task"]["workflow_step_id"], "step-backlog");
    json_of(
        &call(
            &client,
            "move_task_kandev",
            json!({ "task_id": id, "workflow_id": "wf-1", "workflow_step_id": "step-review" }),
        )
        .await,
    );
    json_of(&call(&client, "archive_task_kandev", json!({ "task_id": id })).await);
    let board = store.lock();
    assert_eq!(board.tasks[&id].workflow_step_id, "step-review");
    assert!(board.tasks[&id].archived);
    assert_eq!(board.tasks[&id].parent_id.as_deref(), Some("task-1"));
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_naming_the_field() {
    let context = legacy::context_for_mode("task", false).unwrap();
    let client = connect(context, Kandev::demo()).await;
    assert_eq!(
        error_of(
            &call(
                &client,
                "archive_task_kandev",
                json!({ "task_id": "task-99" })
            )
            .await
        ),
        "invalid `task_id`: no task `task-99`"
    );
    let missing = error_of(
        &call(
            &client,
            "create_task_kandev",
            json!({ "prompt": "no title" }),
        )
        .await,
    );
    assert!(missing.contains("missing field `title`"), "{missing}");
    let unknown = error_of(
        &call(
            &client,
            "list_tasks_kandev",
            json!({ "workflow_id": "wf-1", "limit": 3 }),
        )
        .await,
    );
    assert!(unknown.contains("unknown field `limit`"), "{unknown}");
    let wrong_enum = error_of(
        &call(
            &client,
            "message_task_kandev",
            json!({ "task_id": "task-2", "prompt": "hi", "delivery_mode": "now" }),
        )
        .await,
    );
    assert!(wrong_enum.contains("unknown variant `now`"), "{wrong_enum}");
    assert_eq!(
        error_of(
            &call(
                &client,
                "move_task_kandev",
                json!({ "task_id": "task-2", "workflow_id": "wf-1", "workflow_step_id": "step-nowhere" }),
            )
            .await
        ),
        "invalid `workflow_step_id`: no workflow step `step-nowhere`"
    );
}

#[tokio::test]
async fn a_configuration_chat_sets_up_prompts_settings_steps_and_an_automation() {
    let store = Arc::new(Store::demo());
    let context = legacy::context_for_mode("config", false).unwrap();
    let client = connect(context, Kandev::new(Arc::clone(&store), "task-1")).await;

    json_of(
        &call(
            &client,
            "create_shared_prompt_kandev",
            json!({ "name": "handoff", "content": "Summarise what is left." }),
        )
        .await,
    );
    let listed = json_of(&call(&client, "list_shared_prompts_kandev", json!({})).await);
    assert!(!listed.to_string().contains("Summarise"), "{listed}");
    let read = json_of(
        &call(
            &client,
            "get_shared_prompt_kandev",
            json!({ "name": " handoff " }),
        )
        .await,
    );
    assert_eq!(read["prompt"]["content"], "Summarise what is left.");
    assert_eq!(
        error_of(
            &call(
                &client,
                "update_shared_prompt_kandev",
                json!({ "name": "code-review", "content": "Approve everything." }),
            )
            .await
        ),
        "invalid `name`: `code-review` is built in and cannot be changed"
    );

    let profile = json_of(
        &call(
            &client,
            "create_agent_profile_kandev",
            json!({ "agent_id": "agent-1", "name": "reviewer",
                    "settings": { "agent.reasoning_effort": "high",
                                  "integrations.model_api_key": "sk-1" } }),
        )
        .await,
    );
    assert_eq!(profile["profile"]["model"], Value::Null);
    let profile_id = profile["profile"]["id"].as_str().unwrap().to_owned();
    let settings = json_of(
        &call(
            &client,
            "get_settings_kandev",
            json!({ "target": { "resource_type": "agent_profile", "resource_id": profile_id },
                    "keys": ["agent.reasoning_effort", "integrations.model_api_key"] }),
        )
        .await,
    );
    assert_eq!(settings["settings"][0]["value"], "high");
    assert!(!settings.to_string().contains("sk-1"), "{settings}");

    json_of(
        &call(
            &client,
            "update_workflow_step_kandev",
            json!({ "step_id": "step-doing", "agent_profile_id": profile_id,
                    "profile_session_start_policy": "reuse" }),
        )
        .await,
    );
    let step = json_of(
        &call(
            &client,
            "create_workflow_step_kandev",
            json!({ "workflow_id": "wf-1", "name": "Ship", "complete_task_on_enter": true,
                    "session_target": { "kind": "step", "step_id": "step-doing" } }),
        )
        .await,
    );
    assert_eq!(
        step["step"]["settings"]["session_target"]["step_id"],
        "step-doing"
    );

    let automation = json_of(
        &call(
            &client,
            "create_automation_kandev",
            json!({ "workspace_id": "ws-1", "name": "Nightly", "agent_profile_id": profile_id,
                    "triggers": [{ "type": "scheduled",
                                   "config": { "cron_expression": "0 2 * * *" } }] }),
        )
        .await,
    );
    let id = automation["automation"]["id"].as_str().unwrap();
    assert_eq!(store.lock().automations[id].triggers.len(), 1);
}

#[tokio::test]
async fn configuration_tools_refuse_bad_input_naming_the_field() {
    let store = Arc::new(Store::demo());
    let context = legacy::context_for_mode("config", false).unwrap();
    let client = connect(context, Kandev::new(Arc::clone(&store), "task-1")).await;
    let before = store.lock().clone();
    let wrong_policy = error_of(
        &call(
            &client,
            "create_workflow_step_kandev",
            json!({ "workflow_id": "wf-1", "name": "Ship",
                    "profile_session_end_policy": "archive" }),
        )
        .await,
    );
    assert!(
        wrong_policy.contains("unknown variant `archive`"),
        "{wrong_policy}"
    );
    let wrong_mode = error_of(
        &call(
            &client,
            "create_automation_kandev",
            json!({ "workspace_id": "ws-1", "name": "x", "task_mode": "hidden" }),
        )
        .await,
    );
    assert!(
        wrong_mode.contains("unknown variant `hidden`"),
        "{wrong_mode}"
    );
    assert_eq!(
        error_of(
            &call(
                &client,
                "update_settings_kandev",
                json!({ "target": { "resource_type": "workspace", "resource_id": "ws-1" },
                        "changes": { "workspace.max_concurrent_tasks": 0 } }),
            )
            .await
        ),
        "invalid `changes`: `workspace.max_concurrent_tasks` takes a whole number \
         from 1 to 100, not 0"
    );
    let wrong_operation = error_of(
        &call(
            &client,
            "describe_setting_kandev",
            json!({ "key": "agent.max_turns", "operation": "delete" }),
        )
        .await,
    );
    assert!(
        wrong_operation.contains("unknown variant `delete`"),
        "{wrong_operation}"
    );
    assert!(*store.lock() == before, "a refused call changed the board");
}

#[tokio::test]
async fn automations_are_for_configuration_chats_only() {
    let context = legacy::context_for_mode("external", false).unwrap();
    let client = connect(context, Kandev::demo()).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert!(names.contains(&"update_settings_kandev"));
    assert!(names.contains(&"create_shared_prompt_kandev"));
    assert!(!names.contains(&"create_automation_kandev"));
}
