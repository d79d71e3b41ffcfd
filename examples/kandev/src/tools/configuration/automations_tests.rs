//! create_automation over a demo board: what it stores, and each refusal
//! naming its field and changing nothing.

use serde_json::{from_value, json};

use super::*;
use crate::tools::configuration::with_arguments;

fn automation(arguments: Value) -> CreateAutomation {
    let base = json!({ "workspace_id": "ws-1", "name": "Nightly triage" });
    from_value(with_arguments(base, arguments)).expect("valid arguments")
}

/// The field `arguments` are refused for; the board is left as it was.
fn refused(arguments: Value) -> &'static str {
    let mut board = Board::demo();
    let before = board.clone();
    let error = create_automation(&mut board, automation(arguments)).unwrap_err();
    assert!(board == before, "a refused automation changed the board");
    error.field
}

#[test]
fn the_defaults_make_an_enabled_hidden_run_without_repositories() {
    let mut board = Board::demo();
    let answer = create_automation(&mut board, automation(json!({}))).unwrap();
    let id = answer["automation"]["id"].as_str().unwrap();
    let stored = &board.automations[id];
    assert!(stored.enabled);
    assert_eq!(stored.task_mode, TaskMode::AutomationRun);
    assert_eq!(stored.continuation_policy, ContinuationPolicy::NewTask);
    assert_eq!(stored.repository_mode, RepositoryMode::None);
    assert_eq!(stored.max_concurrent_runs, 1);
    // Not idempotent: the same call again makes a second automation.
    create_automation(&mut board, automation(json!({}))).unwrap();
    assert_eq!(board.automations.len(), 2);
}

#[test]
fn repositories_and_triggers_are_kept_in_order() {
    let mut board = Board::demo();
    let answer = create_automation(
        &mut board,
        automation(json!({
            "task_mode": "normal_task",
            "workflow_id": "wf-1",
            "workflow_step_id": "step-doing",
            "repository_ids": ["repo-1"],
            "triggers": [
                { "type": "scheduled", "enabled": true,
                  "config": { "cron_expression": "0 3 * * 1-5", "timezone": "UTC" } },
                { "type": "webhook", "config": {} },
            ],
        })),
    )
    .unwrap();
    let stored = &answer["automation"];
    assert_eq!(stored["repository_mode"], "selected");
    assert_eq!(stored["repositories"][0]["repository_id"], "repo-1");
    assert_eq!(stored["triggers"][0]["type"], "scheduled");
    assert_eq!(stored["triggers"][0]["enabled"], true);
    assert_eq!(stored["triggers"][1]["enabled"], false);
}

#[test]
fn bad_arguments_name_their_field() {
    let cases = [
        (json!({ "workspace_id": "ws-9" }), "workspace_id"),
        (json!({ "name": " " }), "name"),
        (json!({ "task_mode": "normal_task" }), "workflow_id"),
        (
            json!({ "workflow_step_id": "step-doing" }),
            "workflow_step_id",
        ),
        (
            json!({ "agent_profile_id": "profile-9" }),
            "agent_profile_id",
        ),
        (json!({ "executor_profile_id": "x" }), "executor_profile_id"),
        (
            json!({ "repositories": [{ "repository_id": "repo-9" }] }),
            "repositories",
        ),
        (
            json!({ "repositories": [{ "repository_id": "repo-1" }], "repository_ids": ["repo-2"] }),
            "repository_ids",
        ),
        (json!({ "repository_mode": "selected" }), "repository_mode"),
        (
            json!({ "continuation_policy": "reuse_thread", "max_concurrent_runs": 2 }),
            "continuation_policy",
        ),
        (
            json!({ "triggers": [{ "type": "scheduled", "config": { "cron_expression": "daily" } }] }),
            "triggers",
        ),
        (
            json!({ "triggers": [{ "type": "plugin_event", "config": {} }] }),
            "triggers",
        ),
    ];
    for (arguments, field) in cases {
        assert_eq!(refused(arguments.clone()), field, "{arguments}");
    }
}

#[test]
fn unknown_enum_values_and_fields_do_not_parse() {
    for arguments in [
        json!({ "workspace_id": "ws-1", "name": "x", "task_mode": "hidden" }),
        json!({ "workspace_id": "ws-1", "name": "x", "continuation_policy": "fork" }),
        json!({ "workspace_id": "ws-1", "name": "x", "triggers": [{ "type": "cron", "config": {} }] }),
        json!({ "workspace_id": "ws-1", "name": "x", "repositories": [{ "repository_id": "repo-1", "branch": "main" }] }),
    ] {
        assert!(
            from_value::<CreateAutomation>(arguments.clone()).is_err(),
            "{arguments}"
        );
    }
}
