//! Assembly and explanation over a hand-built registry.

mod common;

use common::*;
use mcp_profiles::{Decision, ProfileContext, Registry, ToolDiff};

use Capability::*;
use Surface::*;

type Context = ProfileContext<Server>;

fn kandev_like() -> Registry<Server> {
    registry(vec![
        entry(
            "kanban-task",
            rule(&[KanbanTask], &[], &[]),
            &["move_task", "create_task"],
        ),
        entry(
            "plan",
            rule(&[KanbanTask, OfficeTask], &[], &[]),
            &["get_plan", "create_plan"],
        ),
        entry(
            "user-question",
            rule(&[], &[UserQuestion], &[]),
            &["ask_user"],
        ),
        entry(
            "parent-question",
            rule(&[KanbanTask], &[ParentQuestion], &[]),
            &["ask_parent"],
        ),
        entry(
            "github-pr",
            rule(&[KanbanTask], &[], &[Provider::Github]),
            &["get_pr"],
        ),
        entry(
            "configuration",
            rule(&[Configuration, External], &[], &[]),
            &["move_task"],
        ),
    ])
    .unwrap()
}

#[test]
fn tools_are_the_sorted_union_of_enabled_groups() {
    let registry = kandev_like();
    let context = Context::new(KanbanTask)
        .with_capability(UserQuestion)
        .unwrap()
        .with_provider(Provider::Github);
    let profile = registry.assemble(&context);
    assert_eq!(
        profile.groups().collect::<Vec<_>>(),
        ["github-pr", "kanban-task", "plan", "user-question"]
    );
    assert_eq!(
        profile.tool_names(),
        [
            "ask_user",
            "create_plan",
            "create_task",
            "get_plan",
            "get_pr",
            "move_task"
        ]
    );
    assert!(profile.contains("get_pr"));
    assert!(!profile.contains("ask_parent"));
    assert_eq!(profile.context(), &context);
}

#[test]
fn assembly_is_deterministic_and_ignores_insertion_order() {
    let registry = kandev_like();
    let a = Context::new(KanbanTask)
        .with_capabilities([TaskTitle, UserQuestion])
        .unwrap()
        .with_providers([Provider::Gitlab, Provider::Github]);
    let b = Context::new(KanbanTask)
        .with_provider(Provider::Github)
        .with_capability(UserQuestion)
        .unwrap()
        .with_provider(Provider::Gitlab)
        .with_capability(TaskTitle)
        .unwrap();
    let (first, second) = (registry.assemble(&a), registry.assemble(&b));
    assert_eq!(first.tool_names(), second.tool_names());
    assert!(first.same_tools(&second));
    // A fresh registry, built from the same entries, assembles the same set.
    assert_eq!(kandev_like().assemble(&a).tool_names(), first.tool_names());
}

#[test]
fn equal_tool_sets_compare_equal_across_different_contexts() {
    let registry = kandev_like();
    // task-title enables no group here, so it changes no tool.
    let plain = registry.assemble(&Context::new(KanbanTask));
    let titled = registry.assemble(&Context::new(KanbanTask).with_capability(TaskTitle).unwrap());
    assert!(plain.same_tools(&titled));
    assert!(plain.diff(&titled).is_empty());
}

#[test]
fn diff_lists_added_and_removed_tools() {
    let registry = kandev_like();
    let asking = registry.assemble(
        &Context::new(KanbanTask)
            .with_capability(UserQuestion)
            .unwrap(),
    );
    let child = registry.assemble(
        &Context::new(KanbanTask)
            .with_capability(ParentQuestion)
            .unwrap(),
    );
    assert_eq!(
        asking.diff(&child),
        ToolDiff {
            added: vec!["ask_parent"],
            removed: vec!["ask_user"],
        }
    );
    let config = registry.assemble(&Context::new(Configuration));
    assert_eq!(
        child.diff(&config),
        ToolDiff {
            added: vec![],
            removed: vec!["ask_parent", "create_plan", "create_task", "get_plan"],
        }
    );
    assert!(!child.same_tools(&config));
}

#[test]
fn explain_names_the_deciding_condition_of_every_group() {
    let registry = kandev_like();
    let context = Context::new(KanbanTask)
        .with_capability(UserQuestion)
        .unwrap();
    let explanation = registry.explain(&context);
    let decisions: Vec<(&str, Decision<Server>)> = explanation
        .rows()
        .map(|(group, decision)| (group.name(), decision))
        .collect();
    assert_eq!(
        decisions,
        [
            ("configuration", Decision::SurfaceNotListed(KanbanTask)),
            ("github-pr", Decision::MissingProvider(Provider::Github)),
            ("kanban-task", Decision::Enabled),
            (
                "parent-question",
                Decision::MissingCapability(ParentQuestion)
            ),
            ("plan", Decision::Enabled),
            ("user-question", Decision::Enabled),
        ]
    );
    assert_eq!(
        explanation.to_string(),
        "\
off  configuration    surface(configuration) | surface(external)          surface kanban-task is not listed
off  github-pr        surface(kanban-task) & provider(github)             provider github is not attached
on   kanban-task      surface(kanban-task)                                every condition holds
off  parent-question  surface(kanban-task) & capability(parent-question)  capability parent-question is absent
on   plan             surface(kanban-task) | surface(office-task)         every condition holds
on   user-question    capability(user-question)                           every condition holds
"
    );
}

#[test]
fn a_disjunction_conjoined_with_more_conditions_is_parenthesised() {
    let registry = registry(vec![entry(
        "mixed",
        rule(&[KanbanTask, OfficeTask], &[TaskTitle], &[Provider::Gitlab]),
        &["t"],
    )])
    .unwrap();
    assert_eq!(
        registry.groups()[0].rule().to_string(),
        "(surface(kanban-task) | surface(office-task)) & capability(task-title) & provider(gitlab)"
    );
}
