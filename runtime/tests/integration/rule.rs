//! Rules built with the typed constructor: notation, decisions, and what
//! verification says about always-on and any-of rules.

use crate::common::*;
use mcp_profiles::{Decision, ProfileContext, Registry, RegistryError, TermSet};

use Capability::*;
use Provider::*;
use Surface::*;

type Context = ProfileContext<Desk>;

#[test]
fn the_notation_keeps_existing_forms_and_shows_any_of_sets() {
    let cases = [
        (R::always(), "always"),
        (
            R::on_surface(Ticket).with_any_provider([Jira]),
            "surface(ticket) & provider(jira)",
        ),
        (
            R::on_surfaces([Ticket, Chat]).requiring(Escalate),
            "(surface(ticket) | surface(chat)) & capability(escalate)",
        ),
        (
            R::on_surfaces([Settings, Api]),
            "surface(settings) | surface(api)",
        ),
        (
            R::any_surface().with_any_provider([Jira, Zendesk]),
            "provider(jira) | provider(zendesk)",
        ),
        (
            R::on_surface(Ticket).with_any_provider([Zendesk, Jira]),
            "surface(ticket) & (provider(jira) | provider(zendesk))",
        ),
        (
            R::any_surface().requiring_any([ReadOnly, Refund]),
            "capability(refund) | capability(read-only)",
        ),
        // A one-element any-of reads as the plain condition it is.
        (
            R::any_surface().requiring_any([Escalate]),
            "capability(escalate)",
        ),
        (
            R::on_surfaces([Ticket, Chat])
                .requiring(Escalate)
                .requiring_any([Refund, ReadOnly])
                .with_any_provider([Jira, Zendesk]),
            "(surface(ticket) | surface(chat)) & capability(escalate) \
             & (capability(refund) | capability(read-only)) \
             & (provider(jira) | provider(zendesk))",
        ),
    ];
    for (rule, notation) in cases {
        assert_eq!(rule.to_string(), notation);
        assert_eq!(format!("{rule:?}"), format!("Rule({notation})"));
    }
}

#[test]
fn constructors_accumulate_per_condition_in_any_order() {
    let a = R::on_surface(Ticket)
        .requiring(Escalate)
        .requiring_any([Refund])
        .with_any_provider([Jira])
        .or_surfaces([Chat])
        .requiring_any([ReadOnly])
        .with_any_provider([Zendesk]);
    let b = R::any_surface()
        .with_any_provider([Zendesk, Jira])
        .requiring_any([ReadOnly, Refund])
        .requiring_all([Escalate])
        .or_surfaces([Chat, Ticket]);
    assert_eq!(a, b);
    assert_eq!(a.surfaces().collect::<Vec<_>>(), [Ticket, Chat]);
    assert_eq!(a.capabilities().collect::<Vec<_>>(), [Escalate]);
    assert_eq!(a.any_capabilities().collect::<Vec<_>>(), [Refund, ReadOnly]);
    assert_eq!(a.providers().collect::<Vec<_>>(), [Jira, Zendesk]);
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
    let rule = R::on_surface(Ticket)
        .requiring(Escalate)
        .requiring_any([Refund, ReadOnly])
        .with_any_provider([Jira, Zendesk]);
    let escalated = Context::new(Ticket).with_capability(Escalate).unwrap();
    let cases = [
        (
            Context::new(Api),
            Decision::SurfaceNotListed(Api),
            "surface api is not listed",
        ),
        (
            Context::new(Ticket),
            Decision::MissingCapability(Escalate),
            "capability escalate is absent",
        ),
        (
            escalated,
            Decision::NoCapabilityOf([Refund, ReadOnly].into_iter().collect()),
            "none of the capabilities refund, read-only is held",
        ),
        (
            escalated.with_capability(ReadOnly).unwrap(),
            Decision::NoProviderOf([Jira, Zendesk].into_iter().collect()),
            "none of the providers jira, zendesk is attached",
        ),
        (
            escalated
                .with_capability(Refund)
                .unwrap()
                .with_provider(Zendesk),
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
    let context = Context::new(Ticket);
    assert_eq!(
        R::any_surface().requiring_any([Escalate]).decide(&context),
        Decision::MissingCapability(Escalate)
    );
    assert_eq!(
        R::any_surface()
            .with_any_provider([Zendesk])
            .decide(&context),
        Decision::MissingProvider(Zendesk)
    );
}

#[test]
fn decisions_agree_with_is_enabled_on_every_context() {
    let rules = [
        R::always(),
        R::any_surface().with_any_provider([Jira, Zendesk]),
        R::any_surface().requiring_any([Refund, ReadOnly]),
        R::on_surface(Chat)
            .requiring(ReadOnly)
            .requiring_any([Refund, Escalate]),
    ];
    for context in Context::all() {
        assert!(rules[0].is_enabled(&context));
        for rule in &rules {
            let decision = rule.decide(&context);
            assert_eq!(decision.is_enabled(), rule.is_enabled(&context), "{rule}");
        }
        let any_provider = context.has_provider(Jira) || context.has_provider(Zendesk);
        assert_eq!(rules[1].is_enabled(&context), any_provider);
    }
}

#[test]
fn term_sets_hold_terms_in_declaration_order() {
    let set: TermSet<Capability> = [Escalate, Refund].into_iter().collect();
    assert_eq!(set.iter().collect::<Vec<_>>(), [Refund, Escalate]);
    assert!(set.contains(Escalate) && !set.contains(ReadOnly));
    assert_eq!((set.len(), set.is_empty()), (2, false));
    assert_eq!(set.to_string(), "refund, escalate");
    assert_eq!(format!("{set:?}"), "{Refund, Escalate}");
}

fn unreachable_reason(rule: R) -> String {
    let errors = Registry::<Desk>::builder()
        .group("g", rule, &["t"])
        .build()
        .unwrap_err();
    match &errors.iter().collect::<Vec<_>>()[..] {
        [RegistryError::UnreachableGroup { reason, .. }] => reason.clone(),
        other => panic!("expected one unreachable group, got {other:?}"),
    }
}

#[test]
fn unreachable_rules_say_why_in_words() {
    assert_eq!(
        unreachable_reason(R::any_surface().requiring_all([ReadOnly, Refund])),
        "it requires capabilities `refund` and `read-only`, which are mutually \
         exclusive"
    );
    assert_eq!(
        unreachable_reason(R::any_surface().requiring(ReadOnly).requiring_any([Refund])),
        "every capability of its any-of set (`refund`) is mutually exclusive with one \
         it requires: `refund` with `read-only`"
    );
    // One satisfiable alternative is enough.
    assert!(
        Registry::<Desk>::builder()
            .group(
                "g",
                R::any_surface()
                    .requiring(ReadOnly)
                    .requiring_any([Refund, Escalate]),
                &["t"],
            )
            .build()
            .is_ok()
    );
}

fn collision_witness(a: R, b: R) -> Option<String> {
    let built = Registry::<Desk>::builder()
        .group("a", a, &["t"])
        .group("b", b, &["t"])
        .build();
    match built {
        Ok(_) => None,
        Err(errors) => match &errors.iter().collect::<Vec<_>>()[..] {
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
            R::on_surface(Chat).with_any_provider([Jira]),
            R::any_surface().with_any_provider([Zendesk]),
        )
        .as_deref(),
        Some(r#"{"surface":"chat","capabilities":[],"providers":["jira","zendesk"]}"#)
    );
    // A provider both sets list is chosen once.
    assert_eq!(
        collision_witness(
            R::any_surface().with_any_provider([Jira, Zendesk]),
            R::any_surface().with_any_provider([Zendesk]),
        )
        .as_deref(),
        Some(r#"{"surface":"ticket","capabilities":[],"providers":["zendesk"]}"#)
    );
    // The only alternative compatible with the other group's requirement.
    assert_eq!(
        collision_witness(
            R::any_surface().requiring_any([Refund, Escalate]),
            R::on_surface(Ticket).requiring(ReadOnly),
        )
        .as_deref(),
        Some(r#"{"surface":"ticket","capabilities":["read-only","escalate"],"providers":[]}"#)
    );
    // Every alternative excluded by the other group: never together.
    assert_eq!(
        collision_witness(
            R::any_surface().requiring_any([Refund]),
            R::any_surface().requiring(ReadOnly),
        ),
        None
    );
    // An always-on group meets every reachable group.
    assert!(collision_witness(R::always(), R::on_surface(Api).requiring(Escalate)).is_some());
}
