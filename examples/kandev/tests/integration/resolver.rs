//! The resolver table: session facts to profiles.

use kandev_mcp::Provider;
use kandev_mcp::resolver::{Purpose, SessionFacts, resolve};

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
