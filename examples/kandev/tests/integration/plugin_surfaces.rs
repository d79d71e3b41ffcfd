//! The surfaces a plugin tool may declare (kanban-task, office-task,
//! managed-conversation) and those it is served on (kanban-task and
//! office-task: managed conversations need a policy this example does not
//! model, and automation and coordinator sessions get no plugin tool).

use kandev_mcp::plugins::{Backend, Plugins, Snapshot};
use kandev_mcp::{Kandev, Surface};
use mcp_profiles::{ProfileContext, ProfileController, Term};
use serde_json::json;

use crate::plugins::{acme, snapshot, tool};

/// The exposed names a session on `surface` lists.
fn served_on(controller: &ProfileController<Kandev>, surface: Surface) -> Vec<String> {
    controller.replace(ProfileContext::new(surface));
    controller
        .tools()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .filter(|name| name.starts_with("kandev_acme_"))
        .collect()
}

#[test]
fn a_managed_conversation_tool_is_accepted_but_served_on_kanban_and_office_only() {
    let body = snapshot(
        1,
        vec![
            tool(
                "everywhere",
                &["kanban-task", "office-task", "managed-conversation"],
            ),
            tool("managed", &["managed-conversation"]),
        ],
    );
    let snapshot = Snapshot::decode(body.as_bytes()).expect("managed-conversation is declarable");
    let plugins = Plugins::new(Backend::none());
    let controller = ProfileController::new(ProfileContext::new(Surface::KanbanTask));
    plugins.install(&controller, snapshot).unwrap();
    assert_eq!(plugins.installed().unwrap().tools.len(), 2, "both are kept");
    for surface in Surface::ALL.iter().copied() {
        let expected = match surface {
            Surface::KanbanTask | Surface::OfficeTask => vec![acme("everywhere")],
            _ => Vec::new(),
        };
        assert_eq!(served_on(&controller, surface), expected, "{surface}");
    }
}

#[test]
fn automation_coordinator_and_other_surfaces_are_refused_naming_the_three() {
    for surface in ["automation", "coordinator", "configuration", "managed-task"] {
        let body = snapshot(1, vec![tool("x", &[surface])]);
        let error = Snapshot::decode(body.as_bytes()).unwrap_err();
        assert_eq!(
            error.problems(),
            [format!(
                "tools[0] `{}`: unknown surface `{surface}` (expected kanban-task, office-task \
                 or managed-conversation)",
                acme("x")
            )]
        );
    }
    let none = json!({ "generation": "g", "tools": [tool("x", &[])] }).to_string();
    let error = Snapshot::decode(none.as_bytes()).unwrap_err();
    assert!(
        error.problems()[0].ends_with(
            "`surfaces` must name at least one of kanban-task, office-task or managed-conversation"
        ),
        "{error}"
    );
}
