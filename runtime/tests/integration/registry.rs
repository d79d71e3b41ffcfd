//! Registry verification over groups built in code.

use crate::common::*;
use mcp_profiles::{ProfileContext, Registry, RegistryError, RegistryErrors};

use Capability::*;
use Surface::*;

fn messages(result: Result<Registry<Desk>, RegistryErrors>) -> Vec<String> {
    match result {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

/// `file:line` of this test file's line `line`, as a group added there
/// records its location.
fn at(line: u32) -> String {
    format!("{}:{line}", file!())
}

#[test]
fn a_tool_shared_by_co_enableable_groups_is_rejected_with_a_witness() {
    let errors = Registry::<Desk>::builder()
        .group(
            "tickets",
            R::on_surface(Ticket),
            &["list_tickets", "open_ticket"],
        )
        .group(
            "refunds",
            R::any_surface().requiring(Refund),
            &["issue_refund", "list_tickets"],
        )
        .build()
        .unwrap_err();
    assert_eq!(
        errors.iter().cloned().collect::<Vec<_>>(),
        [RegistryError::ToolCollision {
            tool: "list_tickets".into(),
            groups: ["refunds".into(), "tickets".into()],
            witness: r#"{"surface":"ticket","capabilities":["refund"],"providers":[]}"#.into(),
        }]
    );
    assert_eq!(
        errors.to_string(),
        "- tool `list_tickets` is exposed by both `refunds` and `tickets`, which the context \
         {\"surface\":\"ticket\",\"capabilities\":[\"refund\"],\"providers\":[]} \
         enables together, with two different definitions; let one group share the other's \
         (`include(\"tickets\": [\"list_tickets\"])`) or rename one"
    );
}

#[test]
fn a_tool_shared_by_groups_never_enabled_together_is_accepted() {
    // Disjoint surfaces keep these two apart.
    let registry = Registry::<Desk>::builder()
        .group("tickets", R::on_surface(Ticket), &["list_tickets"])
        .group(
            "settings-tickets",
            R::on_surfaces([Settings, Api]),
            &["list_tickets"],
        )
        // Exclusive capabilities keep these two apart as well.
        .group("refunds", R::any_surface().requiring(Refund), &["respond"])
        .group(
            "read-only",
            R::on_surface(Ticket).requiring(ReadOnly),
            &["respond"],
        )
        .build()
        .expect("never co-enabled groups may share tool names");
    assert_eq!(registry.groups().len(), 4);
}

#[test]
fn an_unreachable_group_is_rejected() {
    let builder = Registry::<Desk>::builder().group("tickets", R::on_surface(Ticket), &["list"]);
    let line = line!() + 1;
    let builder = builder.group(
        "refund-read-only",
        R::any_surface().requiring_all([Refund, ReadOnly]),
        &["act"],
    );
    assert_eq!(
        messages(builder.build()),
        [format!(
            "tool group `refund-read-only` ({}) can never be enabled: it requires capabilities \
             `refund` and `read-only`, which are mutually exclusive",
            at(line)
        )]
    );
}

#[test]
fn duplicate_group_names_empty_groups_and_repeated_tools_are_all_reported_together() {
    let first = line!() + 1;
    let builder = Registry::<Desk>::builder().group("notes", R::on_surface(Ticket), &["a"]);
    let second = line!() + 1;
    let builder = builder.group("notes", R::on_surface(Chat), &["b"]);
    let result = builder
        .group("empty", R::on_surface(Ticket), &[])
        .group("twice", R::on_surface(Api), &["t", "t"])
        .build();
    assert_eq!(
        messages(result),
        [
            format!(
                "two tool groups are named `notes` ({} and {}); give one of them \
                 `#[tool_group(name = \"...\")]`",
                at(first),
                at(second)
            ),
            "tool group `empty` exposes no tools".to_owned(),
            "tool group `twice` lists tool `t` twice".to_owned(),
        ]
    );
}

#[test]
fn groups_are_sorted_by_name_and_located_where_they_were_added() {
    let line = line!() + 2;
    let registry = Registry::<Desk>::builder()
        .group("zeta", R::on_surface(Ticket), &["a"])
        .group("alpha", R::on_surface(Ticket), &["b"])
        .group("middle", R::on_surface(Api), &["z"])
        .build()
        .unwrap();
    let names: Vec<&str> = registry.groups().iter().map(|g| g.name()).collect();
    assert_eq!(names, ["alpha", "middle", "zeta"]);
    let zeta = registry.group("zeta").unwrap();
    assert_eq!(zeta.tools(), ["a"]);
    assert_eq!(zeta.location(), at(line));
    assert_eq!(registry.group("alpha").unwrap().location(), at(line + 1));
    assert!(registry.group("missing").is_none());
}

/// The verifier decides co-enablement from minimal witnesses; brute force over
/// every valid context must agree for every pair of rules.
#[test]
fn witness_based_co_enablement_agrees_with_brute_force() {
    let rules = [
        R::always(),
        R::on_surface(Ticket),
        R::on_surfaces([Chat, Ticket]),
        R::on_surfaces([Settings, Api]),
        R::any_surface().requiring(Refund),
        R::on_surface(Ticket).requiring(ReadOnly),
        R::on_surface(Ticket).requiring(Escalate),
        R::on_surface(Ticket).with_any_provider([Provider::Jira]),
        R::any_surface()
            .requiring_all([Refund, Escalate])
            .with_any_provider([Provider::Zendesk]),
    ];
    let contexts: Vec<ProfileContext<Desk>> = ProfileContext::all().collect();
    for (i, a) in rules.iter().enumerate() {
        for b in &rules[i + 1..] {
            let apart = Registry::<Desk>::builder()
                .group("a", *a, &["a"])
                .group("b", *b, &["b"])
                .build()
                .unwrap();
            let brute = contexts.iter().any(|context| {
                let profile = apart.assemble(context);
                profile.contains("a") && profile.contains("b")
            });
            let verdict = Registry::<Desk>::builder()
                .group("a", *a, &["x"])
                .group("b", *b, &["x"])
                .build()
                .is_err();
            assert_eq!(verdict, brute, "rules {a:?} and {b:?}");
        }
    }
}
