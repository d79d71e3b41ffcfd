//! Groups declared in several files of a library crate are all found through
//! the link-time registry, with no list written anywhere.

use mcp_profiles::{ProfileContext, Registry, Vocabulary};
use mcp_profiles_tests::{Capability, Provider, Surface, TaskServer};

#[test]
fn the_registry_finds_every_group_of_every_file() {
    let registry = TaskServer::registry();
    let groups: Vec<(&str, String)> = registry
        .groups()
        .iter()
        .map(|group| (group.name(), group.rule().to_string()))
        .collect();
    assert_eq!(
        groups,
        [
            (
                "configuration-tasks",
                "surface(configuration) | surface(external)".to_owned()
            ),
            ("kanban-task", "surface(kanban-task)".to_owned()),
            (
                "parent-question",
                "surface(kanban-task) & capability(parent-question)".to_owned()
            ),
            (
                "review",
                "surface(kanban-task) & provider(github)".to_owned()
            ),
            (
                "task-title",
                "surface(kanban-task) & capability(task-title)".to_owned()
            ),
            ("user-question", "capability(user-question)".to_owned()),
        ]
    );
    let board = registry.group("kanban-task").unwrap();
    assert_eq!(
        board.tools(),
        ["list_tasks", "wait_for_release", "create_task"]
    );
    assert!(
        board.location().ends_with("board.rs:22"),
        "{}",
        board.location()
    );
}

#[test]
fn on_demand_verification_agrees_with_the_cached_registry() {
    let fresh = Registry::<TaskServer>::linked().expect("the fixture groups verify");
    assert_eq!(fresh.groups().len(), TaskServer::registry().groups().len());
}

#[test]
fn routes_match_the_declared_tool_names_and_carry_schemas() {
    for group in TaskServer::registry().groups() {
        let routes = group.routes();
        let names: Vec<&str> = routes.iter().map(|route| route.name()).collect();
        assert_eq!(names, group.tools(), "group {}", group.name());
    }
    let board = TaskServer::registry()
        .group("kanban-task")
        .unwrap()
        .routes();
    let schema = serde_json::to_value(&*board[0].attr.input_schema).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["workflow_id"]));
}

#[test]
fn profiles_assemble_from_groups_in_different_files() {
    let context = ProfileContext::<TaskServer>::new(Surface::KanbanTask)
        .with_capability(Capability::ParentQuestion)
        .unwrap()
        .with_provider(Provider::Github);
    let profile = TaskServer::registry().assemble(&context);
    assert_eq!(
        profile.tool_names(),
        [
            "ask_parent_question",
            "create_task",
            "get_pull_request",
            "list_tasks",
            "wait_for_release"
        ]
    );
    let external = TaskServer::registry().assemble(&ProfileContext::new(Surface::External));
    assert_eq!(external.tool_names(), ["list_tasks"]);
    assert_eq!(
        external.groups().collect::<Vec<_>>(),
        ["configuration-tasks"]
    );
    assert_eq!(Provider::GitLab.to_string(), "gitlab");
}
