//! Rules built with the typed constructor: notation, decisions, and what
//! verification says about always-on and any-of rules.

mod common;

use common::*;
use mcp_profiles::__private::RuleMasks;
use mcp_profiles::{Decision, ProfileContext, RegistryError, Rule, TermSet};

use Capability::*;
use Provider::*;
use Surface::*;

type Context = ProfileContext<Server>;
type R = Rule<Server>;

#[test]
fn the_notation_keeps_existing_forms_and_shows_any_of_sets() {
    let cases = [
        (R::always(), "always"),
        (
            R::on_surface(KanbanTask).with_any_provider([Github]),
            "surface(kanban-task) & provider(github)",
        ),
        (
            R::on_surfaces([KanbanTask, OfficeTask]).requiring(TaskTitle),
            "(surface(kanban-task) | surface(office-task)) & capability(task-title)",
        ),
        (
            R::on_surfaces([Configuration, External]),
            "surface(configuration) | surface(external)",
        ),
        (
            R::any_surface().with_any_provider([Github, Gitlab]),
            "provider(github) | provider(gitlab)",
        ),
        (
            R::on_surface(KanbanTask).with_any_provider([Gitlab, Github]),
            "surface(kanban-task) & (provider(github) | provider(gitlab))",
        ),
        (
            R::any_surface().requiring_any([ParentQuestion, UserQuestion]),
            "capability(user-question) | capability(parent-question)",
        ),
        // A one-element any-of reads as the plain condition it is.
        (
            R::any_surface().requiring_any([TaskTitle]),
            "capability(task-title)",
        ),
        (
            R::on_surfaces([KanbanTask, OfficeTask])
                .requiring(TaskTitle)
                .requiring_any([UserQuestion, ParentQuestion])
                .with_any_provider([Github, Gitlab]),
            "(surface(kanban-task) | surface(office-task)) & capability(task-title) \
             & (capability(user-question) | capability(parent-question)) \
             & (provider(github) | provider(gitlab))",
        ),
    ];
    for (rule, notation) in cases {
        assert_eq!(rule.to_string(), notation);
        assert_eq!(format!("{rule:?}"), format!("Rule({notation})"));
    }
}

#[test]
fn constructors_accumulate_per_condition_in_any_order() {
    let a = R::on_surface(KanbanTask)
        .requiring(TaskTitle)
        .requiring_any([UserQuestion])
        .with_any_provider([Github])
        .or_surfaces([OfficeTask])
        .requiring_any([ParentQuestion])
        .with_any_provider([Gitlab]);
    let b = R::any_surface()
        .with_any_provider([Gitlab, Github])
        .requiring_any([ParentQuestion, UserQuestion])
        .requiring_all([TaskTitle])
        .or_surfaces([OfficeTask, KanbanTask]);
    assert_eq!(a, b);
    assert_eq!(a.surfaces().collect::<Vec<_>>(), [KanbanTask, OfficeTask]);
    assert_eq!(a.capabilities().collect::<Vec<_>>(), [TaskTitle]);
    assert_eq!(
        a.any_capabilities().collect::<Vec<_>>(),
        [UserQuestion, ParentQuestion]
    );
    assert_eq!(a.providers().collect::<Vec<_>>(), [Github, Gitlab]);
    assert!(!a.is_always());
    assert!(R::always().is_always());
    assert_eq!(R::any_surface(), R::always());
    // Empty lists add no condition.
    assert_eq!(
        R::on_surfaces([]).requiring_any([]).with_any_provider([]),
        R::always()
    );
}

#[test]
fn decisions_name_the_failing_any_of_set() {
    let rule = R::on_surface(KanbanTask)
        .requiring(TaskTitle)
        .requiring_any([UserQuestion, ParentQuestion])
        .with_any_provider([Github, Gitlab]);
    let titled = Context::new(KanbanTask).with_capability(TaskTitle).unwrap();
    let cases = [
        (
            Context::new(External),
            Decision::SurfaceNotListed(External),
            "surface external is not listed",
        ),
        (
            Context::new(KanbanTask),
            Decision::MissingCapability(TaskTitle),
            "capability task-title is absent",
        ),
        (
            titled,
            Decision::NoCapabilityOf([UserQuestion, ParentQuestion].into_iter().collect()),
            "none of the capabilities user-question, parent-question is held",
        ),
        (
            titled.with_capability(ParentQuestion).unwrap(),
            Decision::NoProviderOf([Github, Gitlab].into_iter().collect()),
            "none of the providers github, gitlab is attached",
        ),
        (
            titled
                .with_capability(UserQuestion)
                .unwrap()
                .with_provider(Gitlab),
            Decision::Enabled,
            "every condition holds",
        ),
    ];
    for (context, decision, said) in cases {
        assert_eq!(rule.decide(&context), decision, "{context}");
        assert_eq!(decision.to_string(), said);
        assert_eq!(rule.is_enabled(&context), decision.is_enabled());
    }
}

#[test]
fn a_one_element_any_of_decides_like_the_plain_condition() {
    let context = Context::new(KanbanTask);
    assert_eq!(
        R::any_surface().requiring_any([TaskTitle]).decide(&context),
        Decision::MissingCapability(TaskTitle)
    );
    assert_eq!(
        R::any_surface()
            .with_any_provider([Gitlab])
            .decide(&context),
        Decision::MissingProvider(Gitlab)
    );
}

#[test]
fn decisions_agree_with_is_enabled_on_every_context() {
    let rules = [
        R::always(),
        R::any_surface().with_any_provider([Github, Gitlab]),
        R::any_surface().requiring_any([UserQuestion, ParentQuestion]),
        R::on_surface(OfficeTask)
            .requiring(ParentQuestion)
            .requiring_any([UserQuestion, TaskTitle]),
    ];
    for context in Context::all() {
        assert!(rules[0].is_enabled(&context));
        for rule in &rules {
            let decision = rule.decide(&context);
            assert_eq!(decision.is_enabled(), rule.is_enabled(&context), "{rule}");
        }
        let any_provider = context.has_provider(Github) || context.has_provider(Gitlab);
        assert_eq!(rules[1].is_enabled(&context), any_provider);
    }
}

#[test]
fn term_sets_hold_terms_in_declaration_order() {
    let set: TermSet<Capability> = [TaskTitle, UserQuestion].into_iter().collect();
    assert_eq!(set.iter().collect::<Vec<_>>(), [UserQuestion, TaskTitle]);
    assert!(set.contains(TaskTitle) && !set.contains(ParentQuestion));
    assert_eq!((set.len(), set.is_empty()), (2, false));
    assert_eq!(set.to_string(), "user-question, task-title");
    assert_eq!(format!("{set:?}"), "{UserQuestion, TaskTitle}");
}

fn unreachable_reason(rule: R) -> String {
    let errors = registry(vec![entry("g", RuleMasks::from(rule), &["t"])]).unwrap_err();
    match &errors.0[..] {
        [RegistryError::UnreachableGroup { reason, .. }] => reason.clone(),
        other => panic!("expected one unreachable group, got {other:?}"),
    }
}

#[test]
fn unreachable_rules_say_why_in_words() {
    assert_eq!(
        unreachable_reason(R::any_surface().requiring_all([ParentQuestion, UserQuestion])),
        "it requires capabilities `user-question` and `parent-question`, which are mutually \
         exclusive"
    );
    assert_eq!(
        unreachable_reason(
            R::any_surface()
                .requiring(ParentQuestion)
                .requiring_any([UserQuestion])
        ),
        "every capability of its any-of set (`user-question`) is mutually exclusive with one \
         it requires: `user-question` with `parent-question`"
    );
    // One satisfiable alternative is enough.
    assert!(
        registry(vec![entry(
            "g",
            R::any_surface()
                .requiring(ParentQuestion)
                .requiring_any([UserQuestion, TaskTitle])
                .into(),
            &["t"],
        )])
        .is_ok()
    );
}

fn collision_witness(a: R, b: R) -> Option<String> {
    match registry(vec![
        entry("a", a.into(), &["t"]),
        entry("b", b.into(), &["t"]),
    ]) {
        Ok(_) => None,
        Err(errors) => match &errors.0[..] {
            [RegistryError::ToolCollision { witness, .. }] => Some(witness.clone()),
            other => panic!("expected one collision, got {other:?}"),
        },
    }
}

#[test]
fn collisions_are_found_through_any_of_sets_with_small_witnesses() {
    // Different providers still meet: providers are not exclusive.
    assert_eq!(
        collision_witness(
            R::on_surface(OfficeTask).with_any_provider([Github]),
            R::any_surface().with_any_provider([Gitlab]),
        )
        .as_deref(),
        Some(r#"{"surface":"office-task","capabilities":[],"providers":["github","gitlab"]}"#)
    );
    // A provider both sets list is chosen once.
    assert_eq!(
        collision_witness(
            R::any_surface().with_any_provider([Github, Gitlab]),
            R::any_surface().with_any_provider([Gitlab]),
        )
        .as_deref(),
        Some(r#"{"surface":"kanban-task","capabilities":[],"providers":["gitlab"]}"#)
    );
    // The only alternative compatible with the other group's requirement.
    assert_eq!(
        collision_witness(
            R::any_surface().requiring_any([UserQuestion, TaskTitle]),
            R::on_surface(KanbanTask).requiring(ParentQuestion),
        )
        .as_deref(),
        Some(
            r#"{"surface":"kanban-task","capabilities":["parent-question","task-title"],"providers":[]}"#
        )
    );
    // Every alternative excluded by the other group: never together.
    assert_eq!(
        collision_witness(
            R::any_surface().requiring_any([UserQuestion]),
            R::any_surface().requiring(ParentQuestion),
        ),
        None
    );
    // An always-on group meets every reachable group.
    assert!(collision_witness(R::always(), R::on_surface(External).requiring(TaskTitle)).is_some());
}
