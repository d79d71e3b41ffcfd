//! Every row of "Expected tool counts" in `kandev-catalog-2026-09.md`, one
//! test each: the built-in tools a profile exposes (plugin tools excluded;
//! the coordinator with its phase-1 default). Where ours deliberately
//! differs from Kandev's, the row says so and asserts ours.

use kandev_mcp::Kandev;
use kandev_mcp::legacy;
use mcp_profiles::{ProfileContext, Vocabulary};

/// The number of tools the context written as JSON exposes.
fn count(json: &str) -> usize {
    let context =
        ProfileContext::<Kandev>::from_json(json).unwrap_or_else(|error| panic!("{json}: {error}"));
    Kandev::registry().assemble(&context).tool_names().len()
}

/// The number of tools a legacy mode gives (asking not disabled).
fn count_mode(mode: &str) -> usize {
    let context = legacy::context_for_mode(mode, false).unwrap();
    Kandev::registry().assemble(&context).tool_names().len()
}

macro_rules! counts {
    ($($test:ident: $json:literal => $expected:literal;)*) => {
        $(
            #[test]
            fn $test() {
                assert_eq!(count($json), $expected, "{}", $json);
            }
        )*
    };
}

counts! {
    kanban_task: r#"{"surface":"kanban-task"}"# => 37;
    kanban_task_user_question: r#"{"surface":"kanban-task","capabilities":["user-question"]}"# => 38;
    kanban_task_parent_question: r#"{"surface":"kanban-task","capabilities":["parent-question"]}"# => 38;
    kanban_task_task_title: r#"{"surface":"kanban-task","capabilities":["task-title"]}"# => 38;
    kanban_task_user_question_task_title: r#"{"surface":"kanban-task","capabilities":["user-question","task-title"]}"# => 39;
    kanban_task_canvas_authoring: r#"{"surface":"kanban-task","capabilities":["canvas-authoring"]}"# => 44;
    kanban_task_github: r#"{"surface":"kanban-task","providers":["github"]}"# => 41;
    kanban_task_gitlab: r#"{"surface":"kanban-task","providers":["gitlab"]}"# => 40;
    kanban_task_github_gitlab: r#"{"surface":"kanban-task","providers":["github","gitlab"]}"# => 41;
    kanban_task_user_question_github_gitlab: r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":["github","gitlab"]}"# => 42;
    kanban_task_user_question_gitlab: r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":["gitlab"]}"# => 41;
    kanban_task_user_question_canvas_github_gitlab: r#"{"surface":"kanban-task","capabilities":["user-question","canvas-authoring"],"providers":["github","gitlab"]}"# => 49;
    office_task: r#"{"surface":"office-task"}"# => 14;
    office_task_user_question: r#"{"surface":"office-task","capabilities":["user-question"]}"# => 15;
    office_task_canvas_authoring: r#"{"surface":"office-task","capabilities":["canvas-authoring"]}"# => 14;
    office_task_providers: r#"{"surface":"office-task","providers":["github","gitlab"]}"# => 14;
    configuration: r#"{"surface":"configuration"}"# => 43;
    configuration_user_question: r#"{"surface":"configuration","capabilities":["user-question"]}"# => 44;
    external: r#"{"surface":"external"}"# => 49;
    external_providers_ignored: r#"{"surface":"external","providers":["github","gitlab"]}"# => 49;
    automation: r#"{"surface":"automation"}"# => 24;
    coordinator_phase_one: r#"{"surface":"coordinator"}"# => 7;
    managed_conversation: r#"{"surface":"managed-conversation"}"# => 0;
}

// Kandev's user-question group has no surface guard, so a hand-built
// automation or coordinator profile with user-question gets 25 and 8 tools.
// Ours limits user-question to the live-session surfaces (see
// `catalog.rs`), so those hand-built profiles keep 24 and 7.
counts! {
    automation_user_question_ours: r#"{"surface":"automation","capabilities":["user-question"]}"# => 24;
    coordinator_user_question_ours: r#"{"surface":"coordinator","capabilities":["user-question"]}"# => 7;
}

#[test]
fn coordinator_with_every_tool_bound() {
    let json = r#"{"surface":"coordinator","allow":{"coordinator":[
        "list_tasks_kandev","get_task_conversation_kandev","list_workflows_kandev",
        "list_workflow_steps_kandev","list_repositories_kandev","get_coordinator_item_kandev",
        "list_coordinator_activity_kandev","propose_task_kandev","propose_message_kandev",
        "propose_move_kandev","propose_resume_kandev","propose_improvement_kandev",
        "list_coordinator_turns_kandev"]}}"#;
    assert_eq!(count(json), 13);
}

#[test]
fn managed_task_is_not_a_surface_here() {
    // Kandev declares `managed-task` but no group enables it and its server
    // never references it; ours does not declare it, so it is an error.
    let error = ProfileContext::<Kandev>::from_json(r#"{"surface":"managed-task"}"#).unwrap_err();
    assert!(error.to_string().contains("managed-task"), "{error}");
}

#[test]
fn legacy_modes_give_the_catalog_counts() {
    assert_eq!(count_mode("task"), 38);
    assert_eq!(count_mode("task-title-pending"), 39);
    assert_eq!(count_mode("office"), 15);
    assert_eq!(count_mode("config"), 44);
    assert_eq!(count_mode("external"), 49);
    assert_eq!(count_mode("automation"), 24);
    assert_eq!(count_mode("coordinator"), 7);
}
