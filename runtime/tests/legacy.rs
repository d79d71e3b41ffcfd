//! Legacy aliases: Kandev's mode strings, the ask-question switch and
//! provider lists, mapped onto contexts.

mod common;

use common::*;
use mcp_profiles::{ContextError, LegacyAliases, LegacyError, ProfileContext};

use Capability::*;

type Context = ProfileContext<Server>;

fn kandev() -> LegacyAliases<Server> {
    LegacyAliases::new()
        .question_capability(UserQuestion)
        .mode("task", Surface::KanbanTask, [])
        .mode("task-title-pending", Surface::KanbanTask, [TaskTitle])
        .mode("config", Surface::Configuration, [])
        .mode("office", Surface::OfficeTask, [])
        .mode_without_question("external", Surface::External, [])
}

fn json(context: Result<Context, LegacyError>) -> String {
    context.unwrap().to_json()
}

#[test]
fn every_mode_maps_to_its_surface_and_question_capability() {
    let legacy = kandev();
    let cases = [
        (
            "task",
            false,
            r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":[]}"#,
        ),
        (
            "task",
            true,
            r#"{"surface":"kanban-task","capabilities":[],"providers":[]}"#,
        ),
        (
            "task-title-pending",
            false,
            r#"{"surface":"kanban-task","capabilities":["user-question","task-title"],"providers":[]}"#,
        ),
        (
            "task-title-pending",
            true,
            r#"{"surface":"kanban-task","capabilities":["task-title"],"providers":[]}"#,
        ),
        (
            "config",
            false,
            r#"{"surface":"configuration","capabilities":["user-question"],"providers":[]}"#,
        ),
        (
            "config",
            true,
            r#"{"surface":"configuration","capabilities":[],"providers":[]}"#,
        ),
        (
            "office",
            false,
            r#"{"surface":"office-task","capabilities":["user-question"],"providers":[]}"#,
        ),
        (
            "office",
            true,
            r#"{"surface":"office-task","capabilities":[],"providers":[]}"#,
        ),
        (
            "external",
            false,
            r#"{"surface":"external","capabilities":[],"providers":[]}"#,
        ),
        (
            "external",
            true,
            r#"{"surface":"external","capabilities":[],"providers":[]}"#,
        ),
    ];
    for (mode, disable, expected) in cases {
        assert_eq!(
            json(legacy.context_for_mode(mode, disable)),
            expected,
            "{mode} {disable}"
        );
    }
}

#[test]
fn a_mode_change_keeps_providers_and_capabilities_the_mode_does_not_decide() {
    let legacy = kandev();
    let child = Context::new(Surface::KanbanTask)
        .with_capability(ParentQuestion)
        .unwrap()
        .with_provider(Provider::Github);
    assert_eq!(
        json(legacy.apply_mode(&child, "task-title-pending", true)),
        r#"{"surface":"kanban-task","capabilities":["parent-question","task-title"],"providers":["github"]}"#
    );
    // Leaving the title mode drops task-title, which the mode decided.
    let titled = legacy
        .context_for_mode("task-title-pending", false)
        .unwrap();
    assert_eq!(
        json(legacy.apply_mode(&titled, "task", false)),
        r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":[]}"#
    );
}

#[test]
fn a_mode_that_would_grant_an_excluded_question_is_an_error() {
    let child = Context::new(Surface::KanbanTask)
        .with_capability(ParentQuestion)
        .unwrap();
    assert_eq!(
        kandev().apply_mode(&child, "task", false),
        Err(LegacyError::Context(ContextError::Exclusive {
            first: "user-question",
            second: "parent-question",
        }))
    );
}

#[test]
fn unknown_modes_name_themselves_and_the_valid_ones() {
    let err = kandev().context_for_mode("Task", false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown mode `Task`; expected one of: task, task-title-pending, config, office, external"
    );
}

#[test]
fn providers_are_normalised_deduplicated_and_replaced() {
    let legacy = kandev();
    let current = Context::new(Surface::KanbanTask).with_provider(Provider::Gitlab);
    assert_eq!(
        json(legacy.apply_providers(&current, ["GitHub", " github ", "GITHUB"])),
        r#"{"surface":"kanban-task","capabilities":[],"providers":["github"]}"#
    );
    assert_eq!(
        json(legacy.apply_providers(&current, Vec::<String>::new())),
        r#"{"surface":"kanban-task","capabilities":[],"providers":[]}"#
    );
    assert_eq!(
        legacy
            .apply_providers(&current, ["github", "Bitbucket"])
            .unwrap_err()
            .to_string(),
        "unknown provider `Bitbucket`; expected one of: github, gitlab"
    );
}
