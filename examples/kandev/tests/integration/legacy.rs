//! Kandev's legacy mode table, tested once, here: every mode, what a mode
//! change keeps, and errors that name the bad value and change nothing.

use kandev_mcp::legacy::{self, LegacyError};
use kandev_mcp::{Capability, Kandev, Provider, Surface};
use mcp_profiles::{ContextError, ProfileContext, ProfileController};

type Context = ProfileContext<Kandev>;

fn child() -> Context {
    Context::new(Surface::KanbanTask)
        .with_capability(Capability::ParentQuestion)
        .unwrap()
}

#[test]
fn every_legacy_alias_maps_as_designed() {
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
        (
            "automation",
            false,
            r#"{"surface":"automation","capabilities":[],"providers":[]}"#,
        ),
        (
            "automation",
            true,
            r#"{"surface":"automation","capabilities":[],"providers":[]}"#,
        ),
        (
            "coordinator",
            false,
            r#"{"surface":"coordinator","capabilities":[],"providers":[]}"#,
        ),
        (
            "coordinator",
            true,
            r#"{"surface":"coordinator","capabilities":[],"providers":[]}"#,
        ),
    ];
    for (mode, disable, expected) in cases {
        let context = legacy::context_for_mode(mode, disable).unwrap();
        assert_eq!(context.to_json(), expected, "{mode} disable={disable}");
    }
    let task = legacy::context_for_mode("task", false).unwrap();
    let normalised = legacy::apply_providers(&task, ["GitHub ", " gitlab", "github"]).unwrap();
    assert_eq!(
        normalised.to_json(),
        r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":["github","gitlab"]}"#
    );
    assert_eq!(
        legacy::context_for_mode("planning", false)
            .unwrap_err()
            .to_string(),
        "unknown mode `planning`; expected one of: task, task-title-pending, config, office, external, automation, coordinator"
    );
}

#[test]
fn a_mode_change_keeps_providers_and_capabilities_the_mode_does_not_decide() {
    let child = child().with_provider(Provider::Github);
    assert_eq!(
        legacy::apply_mode(&child, "task-title-pending", true)
            .unwrap()
            .to_json(),
        r#"{"surface":"kanban-task","capabilities":["parent-question","task-title"],"providers":["github"]}"#
    );
    // Leaving the title mode drops task-title, which the mode decided.
    let titled = legacy::context_for_mode("task-title-pending", false).unwrap();
    assert_eq!(
        legacy::apply_mode(&titled, "task", false)
            .unwrap()
            .to_json(),
        r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":[]}"#
    );
}

#[test]
fn a_switch_into_automation_or_coordinator_drops_every_capability() {
    let titled = child()
        .with_capability(Capability::TaskTitle)
        .unwrap()
        .with_capability(Capability::CanvasAuthoring)
        .unwrap()
        .with_provider(Provider::Github);
    for (mode, surface) in [("automation", "automation"), ("coordinator", "coordinator")] {
        for disable in [false, true] {
            assert_eq!(
                legacy::apply_mode(&titled, mode, disable)
                    .unwrap()
                    .to_json(),
                format!(r#"{{"surface":"{surface}","capabilities":[],"providers":["github"]}}"#),
                "{mode} disable={disable}"
            );
        }
    }
    // And back: task grants user-question again, nothing else returns.
    let automation = legacy::apply_mode(&titled, "automation", false).unwrap();
    assert_eq!(
        legacy::apply_mode(&automation, "task", false)
            .unwrap()
            .to_json(),
        r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":["github"]}"#
    );
}

#[test]
fn a_mode_that_would_grant_an_excluded_question_is_an_error() {
    let err = legacy::apply_mode(&child(), "task", false).unwrap_err();
    assert!(
        matches!(err, LegacyError::Context(ContextError::Exclusive { .. })),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "capabilities `user-question` and `parent-question` are mutually exclusive"
    );
}

#[test]
fn modes_are_case_sensitive_and_unknown_ones_name_themselves() {
    let err = legacy::context_for_mode("Task", false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown mode `Task`; expected one of: task, task-title-pending, config, office, external, automation, coordinator"
    );
}

#[test]
fn providers_are_normalised_deduplicated_and_replaced() {
    let current = Context::new(Surface::KanbanTask).with_provider(Provider::Gitlab);
    assert_eq!(
        legacy::apply_providers(&current, ["GitHub", " github ", "GITHUB"])
            .unwrap()
            .to_json(),
        r#"{"surface":"kanban-task","capabilities":[],"providers":["github"]}"#
    );
    assert_eq!(
        legacy::apply_providers(&current, Vec::<String>::new())
            .unwrap()
            .to_json(),
        r#"{"surface":"kanban-task","capabilities":[],"providers":[]}"#
    );
    assert_eq!(
        legacy::apply_providers(&current, ["github", " Bitbucket"])
            .unwrap_err()
            .to_string(),
        "unknown provider ` Bitbucket`; expected one of: github, gitlab"
    );
}

#[test]
fn live_mode_and_provider_changes_go_through_the_controller() {
    let controller = ProfileController::new(legacy::context_for_mode("task", false).unwrap());
    let change = legacy::set_mode(&controller, "task-title-pending", false).unwrap();
    assert_eq!(change.diff.added, ["set_task_title_kandev"]);
    let change = legacy::set_providers(&controller, ["GitHub"]).unwrap();
    assert!(change.changed());
    assert_eq!(
        controller.current().context().to_json(),
        r#"{"surface":"kanban-task","capabilities":["user-question","task-title"],"providers":["github"]}"#
    );
}

#[test]
fn a_live_switch_into_automation_removes_the_question_and_title_tools() {
    let controller =
        ProfileController::new(legacy::context_for_mode("task-title-pending", false).unwrap());
    let change = legacy::set_mode(&controller, "automation", false).unwrap();
    assert!(change.changed());
    for gone in ["ask_user_question_kandev", "set_task_title_kandev"] {
        assert!(change.diff.removed.contains(&gone), "{gone}");
    }
    assert_eq!(
        controller.current().context().to_json(),
        r#"{"surface":"automation","capabilities":[],"providers":[]}"#
    );
    legacy::set_mode(&controller, "coordinator", false).unwrap();
    assert!(!controller.current().contains("ask_user_question_kandev"));
}

#[test]
fn bad_live_changes_are_errors_and_change_nothing() {
    let controller = ProfileController::new(child());
    let errors = [
        legacy::set_mode(&controller, "chat", false).unwrap_err(),
        legacy::set_mode(&controller, "task", false).unwrap_err(),
        legacy::set_providers(&controller, ["github", "bitbucket"]).unwrap_err(),
    ];
    assert_eq!(
        errors.map(|err| err.to_string()),
        [
            "unknown mode `chat`; expected one of: task, task-title-pending, config, office, external, automation, coordinator",
            "capabilities `user-question` and `parent-question` are mutually exclusive",
            "unknown provider `bitbucket`; expected one of: github, gitlab",
        ]
    );
    assert_eq!(controller.current().context(), &child());
}

#[test]
fn a_mode_or_provider_change_keeps_the_policy() {
    let policy = mcp_profiles::Policy::<Kandev>::none()
        .with_no_destructive(true)
        .with_deny(mcp_profiles::DenyList::new(["plan"]).unwrap());
    let restricted = Context::new(Surface::KanbanTask).with_policy(policy);
    for mode in legacy::mode_names() {
        let switched = legacy::apply_mode(&restricted, mode, false).unwrap();
        assert_eq!(switched.policy(), policy, "{mode}");
    }
    let attached = legacy::apply_providers(&restricted, ["github"]).unwrap();
    assert_eq!(attached.policy(), policy);

    // Live: the controller's profile keeps it through set_mode.
    let controller = ProfileController::new(restricted);
    legacy::set_mode(&controller, "office", false).unwrap();
    let current = controller.current();
    assert_eq!(current.context().policy(), policy);
    assert!(!current.contains("get_task_plan_kandev"), "plan is denied");
    assert!(
        !current.contains("write_task_document_kandev"),
        "destructive"
    );
}
