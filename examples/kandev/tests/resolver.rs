//! The resolver table and every legacy alias.

use kandev_mcp::resolver::{Purpose, SessionFacts, resolve};
use kandev_mcp::{Provider, legacy};

fn json(facts: SessionFacts) -> String {
    resolve(&facts).to_json()
}

fn task() -> SessionFacts {
    SessionFacts {
        purpose: Purpose::Task,
        providers: vec![Provider::Github],
        ..SessionFacts::default()
    }
}

#[test]
fn the_resolver_follows_kandevs_rules() {
    let office = SessionFacts {
        purpose: Purpose::Office,
        ..SessionFacts::default()
    };
    let config = SessionFacts {
        purpose: Purpose::Config,
        providers: vec![Provider::Gitlab],
        ..SessionFacts::default()
    };
    let cases = [
        (
            "normal",
            task(),
            r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":["github"]}"#,
        ),
        (
            "passthrough",
            SessionFacts {
                passthrough: true,
                ..task()
            },
            r#"{"surface":"kanban-task","capabilities":[],"providers":["github"]}"#,
        ),
        (
            "autopilot child",
            SessionFacts {
                autopilot: true,
                has_direct_parent: true,
                ..task()
            },
            r#"{"surface":"kanban-task","capabilities":["parent-question"],"providers":["github"]}"#,
        ),
        (
            "autopilot child, passthrough",
            SessionFacts {
                autopilot: true,
                has_direct_parent: true,
                passthrough: true,
                ..task()
            },
            r#"{"surface":"kanban-task","capabilities":[],"providers":["github"]}"#,
        ),
        (
            "autopilot root",
            SessionFacts {
                autopilot: true,
                ..task()
            },
            r#"{"surface":"kanban-task","capabilities":[],"providers":["github"]}"#,
        ),
        (
            "office",
            office.clone(),
            r#"{"surface":"office-task","capabilities":["user-question"],"providers":[]}"#,
        ),
        (
            "office autopilot with parent",
            SessionFacts {
                autopilot: true,
                has_direct_parent: true,
                ..office.clone()
            },
            r#"{"surface":"office-task","capabilities":["parent-question"],"providers":[]}"#,
        ),
        (
            "config",
            config.clone(),
            r#"{"surface":"configuration","capabilities":["user-question"],"providers":[]}"#,
        ),
        (
            "config passthrough",
            SessionFacts {
                passthrough: true,
                ..config
            },
            r#"{"surface":"configuration","capabilities":[],"providers":[]}"#,
        ),
        (
            "title owner on kanban",
            SessionFacts {
                title_owner: true,
                ..task()
            },
            r#"{"surface":"kanban-task","capabilities":["user-question","task-title"],"providers":["github"]}"#,
        ),
        (
            "title owner on office",
            SessionFacts {
                title_owner: true,
                ..office
            },
            r#"{"surface":"office-task","capabilities":["user-question"],"providers":[]}"#,
        ),
    ];
    for (label, facts, expected) in cases {
        assert_eq!(json(facts), expected, "{label}");
    }
}

#[test]
fn every_legacy_alias_maps_as_designed() {
    let aliases = legacy::aliases();
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
        let context = aliases.context_for_mode(mode, disable).unwrap();
        assert_eq!(context.to_json(), expected, "{mode} disable={disable}");
    }
    let task = aliases.context_for_mode("task", false).unwrap();
    let normalised = aliases
        .apply_providers(&task, ["GitHub ", " gitlab", "github"])
        .unwrap();
    assert_eq!(
        normalised.to_json(),
        r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":["github","gitlab"]}"#
    );
    assert_eq!(
        aliases
            .context_for_mode("planning", false)
            .unwrap_err()
            .to_string(),
        "unknown mode `planning`; expected one of: task, task-title-pending, config, office, external"
    );
}
