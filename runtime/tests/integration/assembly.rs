//! Assembly and explanation over a registry built in code.

use crate::common::*;
use mcp_profiles::{Decision, ProfileContext, Registry};

use Capability::*;
use Surface::*;

type Context = ProfileContext<Desk>;

fn helpdesk() -> Registry<Desk> {
    Registry::builder()
        .group(
            "tickets",
            R::on_surface(Ticket),
            &["reassign", "open_ticket"],
        )
        .group(
            "notes",
            R::on_surfaces([Ticket, Chat]),
            &["get_notes", "add_note"],
        )
        .group(
            "refunds",
            R::any_surface().requiring(Refund),
            &["issue_refund"],
        )
        .group(
            "read-only",
            R::on_surface(Ticket).requiring(ReadOnly),
            &["view_history"],
        )
        .group(
            "jira-issue",
            R::on_surface(Ticket).with_any_provider([Provider::Jira]),
            &["get_issue"],
        )
        .group("settings", R::on_surfaces([Settings, Api]), &["reassign"])
        .build()
        .unwrap()
}

#[test]
fn tools_are_the_sorted_union_of_enabled_groups() {
    let registry = helpdesk();
    let context = Context::new(Ticket)
        .with_capability(Refund)
        .unwrap()
        .with_provider(Provider::Jira);
    let profile = registry.assemble(&context);
    assert_eq!(
        profile.groups().collect::<Vec<_>>(),
        ["jira-issue", "notes", "refunds", "tickets"]
    );
    assert_eq!(
        profile.tool_names(),
        [
            "add_note",
            "get_issue",
            "get_notes",
            "issue_refund",
            "open_ticket",
            "reassign"
        ]
    );
    assert!(profile.contains("get_issue"));
    assert!(!profile.contains("view_history"));
    assert_eq!(profile.context(), &context);
}

#[test]
fn assembly_is_deterministic_and_ignores_insertion_order() {
    let registry = helpdesk();
    let a = Context::new(Ticket)
        .with_capabilities([Escalate, Refund])
        .unwrap()
        .with_providers([Provider::Zendesk, Provider::Jira]);
    let b = Context::new(Ticket)
        .with_provider(Provider::Jira)
        .with_capability(Refund)
        .unwrap()
        .with_provider(Provider::Zendesk)
        .with_capability(Escalate)
        .unwrap();
    let (first, second) = (registry.assemble(&a), registry.assemble(&b));
    assert_eq!(first.tool_names(), second.tool_names());
    assert!(first.same_tools(&second));
    // A fresh registry, built from the same groups, assembles the same set.
    assert_eq!(helpdesk().assemble(&a).tool_names(), first.tool_names());
}

#[test]
fn equal_tool_sets_compare_equal_across_different_contexts() {
    let registry = helpdesk();
    // escalate enables no group here, so it changes no tool.
    let plain = registry.assemble(&Context::new(Ticket));
    let escalated = registry.assemble(&Context::new(Ticket).with_capability(Escalate).unwrap());
    assert!(plain.same_tools(&escalated));
    assert!(plain.diff(&escalated).is_empty());
}

#[test]
fn diff_lists_added_and_removed_tools() {
    let registry = helpdesk();
    let refunding = registry.assemble(&Context::new(Ticket).with_capability(Refund).unwrap());
    let read_only = registry.assemble(&Context::new(Ticket).with_capability(ReadOnly).unwrap());
    let diff = refunding.diff(&read_only);
    assert_eq!(
        (diff.added, diff.removed),
        (vec!["view_history"], vec!["issue_refund"])
    );
    let settings = registry.assemble(&Context::new(Settings));
    let diff = read_only.diff(&settings);
    assert!(diff.added.is_empty());
    assert_eq!(
        diff.removed,
        ["add_note", "get_notes", "open_ticket", "view_history"]
    );
    assert!(!read_only.same_tools(&settings));
}

#[test]
fn explain_names_the_deciding_condition_of_every_group() {
    let registry = helpdesk();
    let context = Context::new(Ticket).with_capability(Refund).unwrap();
    let explanation = registry.explain(&context);
    let decisions: Vec<(&str, Decision<Desk>)> = explanation
        .rows()
        .map(|(group, decision)| (group.name(), decision))
        .collect();
    assert_eq!(
        decisions,
        [
            ("jira-issue", Decision::MissingProvider(Provider::Jira)),
            ("notes", Decision::Enabled),
            ("read-only", Decision::MissingCapability(ReadOnly)),
            ("refunds", Decision::Enabled),
            ("settings", Decision::SurfaceNotListed(Ticket)),
            ("tickets", Decision::Enabled),
        ]
    );
    assert_eq!(
        explanation.to_string(),
        "\
off  jira-issue  surface(ticket) & provider(jira)         provider jira is not attached
on   notes       surface(ticket) | surface(chat)          every condition holds
off  read-only   surface(ticket) & capability(read-only)  capability read-only is absent
on   refunds     capability(refund)                       every condition holds
off  settings    surface(settings) | surface(api)         surface ticket is not listed
on   tickets     surface(ticket)                          every condition holds
"
    );
}

#[test]
fn a_disjunction_conjoined_with_more_conditions_is_parenthesised() {
    let registry = Registry::<Desk>::builder()
        .group(
            "mixed",
            R::on_surfaces([Ticket, Chat])
                .requiring(Escalate)
                .with_any_provider([Provider::Zendesk]),
            &["t"],
        )
        .build()
        .unwrap();
    assert_eq!(
        registry.groups()[0].rule().to_string(),
        "(surface(ticket) | surface(chat)) & capability(escalate) & provider(zendesk)"
    );
}
