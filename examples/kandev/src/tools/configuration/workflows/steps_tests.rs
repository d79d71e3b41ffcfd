//! Step settings over a demo board: a step's own agent profile, its session
//! policies and target, and refusals that name the field and change nothing.

use serde_json::from_value;

use super::*;
use crate::tools::configuration::with_arguments;

fn create(arguments: Value) -> CreateWorkflowStep {
    let base = json!({ "workflow_id": "wf-1", "name": "Deploy" });
    from_value(with_arguments(base, arguments)).expect("valid arguments")
}

fn update(arguments: Value) -> UpdateWorkflowStep {
    from_value(arguments).expect("valid arguments")
}

/// The demo board with `step-doing` running its own agent profile.
fn board_with_profile_step() -> Board {
    let mut board = Board::demo();
    update_workflow_step(
        &mut board,
        update(json!({ "step_id": "step-doing", "agent_profile_id": "profile-1" })),
    )
    .unwrap();
    board
}

#[test]
fn a_step_keeps_its_profile_session_rules_and_target() {
    let mut board = board_with_profile_step();
    let answer = create_workflow_step(
        &mut board,
        create(json!({
            "agent_profile_id": "profile-1",
            "profile_session_start_policy": "new",
            "profile_session_end_policy": "park",
            "complete_task_on_enter": true,
            "session_target": { "kind": "step", "step_id": "step-doing" },
        })),
    )
    .unwrap();
    let settings = &answer["step"]["settings"];
    assert_eq!(settings["agent_profile_id"], "profile-1");
    assert_eq!(settings["profile_session_start_policy"], "new");
    assert_eq!(settings["profile_session_end_policy"], "park");
    assert_eq!(settings["complete_task_on_enter"], true);
    assert_eq!(
        settings["session_target"],
        json!({ "kind": "step", "step_id": "step-doing" })
    );
}

#[test]
fn null_clears_a_session_target_and_absence_keeps_it() {
    let mut board = Board::demo();
    let set = json!({ "step_id": "step-review", "session_target": { "kind": "initial" } });
    update_workflow_step(&mut board, update(set)).unwrap();
    let settings = |board: &Board| board.steps["step-review"].settings.clone();
    assert_eq!(
        settings(&board)["session_target"],
        json!({ "kind": "initial" })
    );
    update_workflow_step(&mut board, update(json!({ "step_id": "step-review" }))).unwrap();
    assert!(settings(&board).contains_key("session_target"));
    let clear = json!({ "step_id": "step-review", "session_target": null });
    update_workflow_step(&mut board, update(clear)).unwrap();
    assert!(!settings(&board).contains_key("session_target"));
}

#[test]
fn a_bad_setting_names_its_field_and_changes_nothing() {
    let target = |value: Value| json!({ "step_id": "step-review", "session_target": value });
    let cases = [
        (
            json!({ "step_id": "step-review", "agent_profile_id": "profile-9" }),
            "agent_profile_id",
        ),
        (target(json!({ "kind": "step" })), "session_target"),
        (
            target(json!({ "kind": "initial", "step_id": "step-doing" })),
            "session_target",
        ),
        // step-backlog comes first but has no agent profile of its own.
        (
            target(json!({ "kind": "step", "step_id": "step-backlog" })),
            "session_target",
        ),
        // step-done has a profile below, but comes after step-review.
        (
            target(json!({ "kind": "step", "step_id": "step-done" })),
            "session_target",
        ),
        (
            target(json!({ "kind": "step", "step_id": "step-review" })),
            "session_target",
        ),
        (
            target(json!({ "kind": "step", "step_id": "step-nowhere" })),
            "session_target",
        ),
    ];
    let mut board = board_with_profile_step();
    update_workflow_step(
        &mut board,
        update(json!({ "step_id": "step-done", "agent_profile_id": "profile-1" })),
    )
    .unwrap();
    for (arguments, field) in cases {
        let before = board.clone();
        let error = update_workflow_step(&mut board, update(arguments.clone())).unwrap_err();
        assert_eq!(error.field, field, "{arguments}: {error}");
        assert!(board == before, "{arguments} changed the board");
    }
}

#[test]
fn unknown_policies_and_target_kinds_do_not_parse() {
    for arguments in [
        json!({ "step_id": "s", "profile_session_start_policy": "fork" }),
        json!({ "step_id": "s", "profile_session_end_policy": "delete" }),
        json!({ "step_id": "s", "session_target": { "kind": "parent" } }),
        json!({ "step_id": "s", "session_target": { "kind": "initial", "extra": 1 } }),
        json!({ "step_id": "s", "session_target": "initial" }),
    ] {
        assert!(
            from_value::<UpdateWorkflowStep>(arguments.clone()).is_err(),
            "{arguments}"
        );
    }
}

#[test]
fn deleting_a_step_clears_the_targets_that_name_it() {
    let mut board = board_with_profile_step();
    let target = json!({ "kind": "step", "step_id": "step-doing" });
    update_workflow_step(
        &mut board,
        update(json!({ "step_id": "step-review", "session_target": target })),
    )
    .unwrap();
    board
        .tasks
        .retain(|_, task| task.workflow_step_id != "step-doing");
    delete_workflow_step(
        &mut board,
        from_value(json!({ "step_id": "step-doing" })).unwrap(),
    )
    .unwrap();
    assert!(
        !board.steps["step-review"]
            .settings
            .contains_key("session_target")
    );
}

#[test]
fn an_empty_profile_id_clears_it() {
    let mut board = board_with_profile_step();
    let clear = json!({ "step_id": "step-doing", "agent_profile_id": "" });
    update_workflow_step(&mut board, update(clear)).unwrap();
    assert!(
        !board.steps["step-doing"]
            .settings
            .contains_key("agent_profile_id")
    );
}
