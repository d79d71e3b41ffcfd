//! Registry verification over hand-built entries.

mod common;

use common::*;
use mcp_profiles::{ProfileContext, RegistryError};

use Capability::*;
use Surface::*;

fn messages(entries: Vec<mcp_profiles::__private::GroupEntry<Server>>) -> Vec<String> {
    match registry(entries) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn a_tool_shared_by_co_enableable_groups_is_rejected_with_a_witness() {
    let errors = registry(vec![
        entry(
            "kanban",
            rule(&[KanbanTask], &[], &[]),
            &["list_tasks", "create_task"],
        ),
        entry(
            "asking",
            rule(&[], &[UserQuestion], &[]),
            &["ask", "list_tasks"],
        ),
    ])
    .unwrap_err();
    assert_eq!(
        errors.iter().cloned().collect::<Vec<_>>(),
        [RegistryError::ToolCollision {
            tool: "list_tasks".into(),
            groups: ["asking".into(), "kanban".into()],
            witness: r#"{"surface":"kanban-task","capabilities":["user-question"],"providers":[]}"#
                .into(),
        }]
    );
    assert_eq!(
        errors.to_string(),
        "- tool `list_tasks` is exposed by both `asking` and `kanban`, which the context \
         {\"surface\":\"kanban-task\",\"capabilities\":[\"user-question\"],\"providers\":[]} \
         enables together"
    );
}

#[test]
fn a_tool_shared_by_groups_never_enabled_together_is_accepted() {
    // Kandev's reuse: kanban-task and configuration-tasks both expose list_tasks.
    let registry = registry(vec![
        entry(
            "kanban-task",
            rule(&[KanbanTask], &[], &[]),
            &["list_tasks_kandev"],
        ),
        entry(
            "configuration-tasks",
            rule(&[Configuration, External], &[], &[]),
            &["list_tasks_kandev"],
        ),
        // Exclusive capabilities keep these two apart as well.
        entry("user-question", rule(&[], &[UserQuestion], &[]), &["ask"]),
        entry(
            "parent-question",
            rule(&[KanbanTask], &[ParentQuestion], &[]),
            &["ask"],
        ),
    ])
    .expect("never co-enabled groups may share tool names");
    assert_eq!(registry.groups().len(), 4);
}

#[test]
fn an_unreachable_group_is_rejected() {
    assert_eq!(
        messages(vec![
            entry("kanban", rule(&[KanbanTask], &[], &[]), &["list"]),
            entry(
                "both-questions",
                rule(&[], &[UserQuestion, ParentQuestion], &[]),
                &["ask"]
            ),
        ]),
        [
            "tool group `both-questions` (tests/groups.rs:1) can never be enabled: it requires \
          capabilities `user-question` and `parent-question`, which are mutually exclusive"
        ]
    );
}

#[test]
fn rules_naming_undeclared_terms_are_unreachable() {
    let mut bad = rule(&[], &[], &[]);
    bad.providers = 1 << 7;
    assert_eq!(
        messages(vec![entry("ghost", bad, &["haunt"])]),
        [
            "tool group `ghost` (tests/groups.rs:1) can never be enabled: it requires a provider \
          the vocabulary does not declare"
        ]
    );
}

#[test]
fn duplicate_group_names_empty_groups_and_repeated_tools_are_all_reported_together() {
    let mut second = entry("plan", rule(&[OfficeTask], &[], &[]), &["b"]);
    second.line = 9;
    assert_eq!(
        messages(vec![
            entry("plan", rule(&[KanbanTask], &[], &[]), &["a"]),
            second,
            entry("empty", rule(&[KanbanTask], &[], &[]), &[]),
            entry("twice", rule(&[External], &[], &[]), &["t", "t"]),
        ]),
        [
            "two tool groups are named `plan` (tests/groups.rs:1 and tests/groups.rs:9); give \
             one of them `#[tool_group(name = \"...\")]`",
            "tool group `empty` exposes no tools",
            "tool group `twice` lists tool `t` twice",
        ]
    );
}

#[test]
fn groups_are_sorted_by_name_and_default_names_come_from_the_module() {
    let mut unnamed = entry("ignored", rule(&[External], &[], &[]), &["z"]);
    unnamed.name = None;
    unnamed.module_path = "kandev::tools::task_branch_sources";
    let registry = registry(vec![
        entry("zeta", rule(&[KanbanTask], &[], &[]), &["a"]),
        entry("alpha", rule(&[KanbanTask], &[], &[]), &["b"]),
        unnamed,
    ])
    .unwrap();
    let names: Vec<&str> = registry.groups().iter().map(|g| g.name()).collect();
    assert_eq!(names, ["alpha", "task-branch-sources", "zeta"]);
    assert_eq!(registry.group("zeta").unwrap().tools(), ["a"]);
    assert!(registry.group("missing").is_none());
}

/// The verifier decides co-enablement from minimal witnesses; brute force over
/// every valid context must agree for every pair of rules.
#[test]
fn witness_based_co_enablement_agrees_with_brute_force() {
    let rules = [
        rule(&[], &[], &[]),
        rule(&[KanbanTask], &[], &[]),
        rule(&[OfficeTask, KanbanTask], &[], &[]),
        rule(&[Configuration, External], &[], &[]),
        rule(&[], &[UserQuestion], &[]),
        rule(&[KanbanTask], &[ParentQuestion], &[]),
        rule(&[KanbanTask], &[TaskTitle], &[]),
        rule(&[KanbanTask], &[], &[Provider::Github]),
        rule(&[], &[UserQuestion, TaskTitle], &[Provider::Gitlab]),
    ];
    let contexts: Vec<ProfileContext<Server>> = ProfileContext::all().collect();
    for (i, a) in rules.iter().enumerate() {
        for b in &rules[i + 1..] {
            let brute = contexts.iter().any(|context| {
                let profile = registry(vec![entry("a", *a, &["a"]), entry("b", *b, &["b"])])
                    .unwrap()
                    .assemble(context);
                profile.contains("a") && profile.contains("b")
            });
            let verdict = registry(vec![entry("a", *a, &["x"]), entry("b", *b, &["x"])]).is_err();
            assert_eq!(verdict, brute, "rules {a:?} and {b:?}");
        }
    }
}
