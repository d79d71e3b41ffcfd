//! What the public builder cannot reach: names taken from module paths, and
//! rule bits outside the vocabulary (generated code never emits them; the
//! registry still refuses them rather than trusting that).

use super::{GroupEntry, Registry, RegistryError};
use crate::rule::RuleMasks;

mod server {
    pub struct Desk;

    crate::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[capabilities] pub enum Capability { Refund }
        #[providers] pub enum Provider { Jira }
    }
}
use server::Desk;

fn entry(name: Option<&'static str>, rule: RuleMasks) -> GroupEntry<Desk> {
    GroupEntry {
        name,
        title: None,
        description: None,
        module_path: "desk::tools::ticket_notes",
        file: "src/tools/ticket_notes.rs",
        line: 3,
        rule,
        tools: &["note"],
        definitions: &["note"],
        includes: &[],
        routes: Vec::new,
    }
}

#[test]
fn an_unnamed_group_is_named_after_its_module_in_kebab_case() {
    let registry = Registry::from_entries([entry(None, RuleMasks::default())]).unwrap();
    assert_eq!(registry.groups()[0].name(), "ticket-notes");
    assert_eq!(
        registry.groups()[0].location(),
        "src/tools/ticket_notes.rs:3"
    );
}

#[test]
fn rule_bits_outside_the_vocabulary_make_a_group_unreachable() {
    let cases = [
        (
            RuleMasks {
                surfaces: 1 << 5,
                ..RuleMasks::default()
            },
            "it lists no declared surface",
        ),
        (
            RuleMasks {
                capabilities: 1 << 5,
                ..RuleMasks::default()
            },
            "it requires a capability the vocabulary does not declare",
        ),
        (
            RuleMasks {
                providers: 1 << 5,
                ..RuleMasks::default()
            },
            "it requires a provider the vocabulary does not declare",
        ),
    ];
    for (rule, expected) in cases {
        let errors = Registry::from_entries([entry(Some("ghost"), rule)]).unwrap_err();
        let reasons: Vec<&str> = errors
            .iter()
            .map(|error| match error {
                RegistryError::UnreachableGroup { reason, .. } => reason.as_str(),
                other => panic!("expected an unreachable group, got {other}"),
            })
            .collect();
        assert_eq!(reasons, [expected], "{rule:?}");
    }
}

#[test]
fn allow_lists_breaking_their_rules_are_refused() {
    use crate::policy::AllowSpec;

    static UNKNOWN_GROUP: AllowSpec = AllowSpec {
        group: "nobody",
        universe: &["note"],
        default: &[],
        max: 1,
    };
    static OUTSIDE: AllowSpec = AllowSpec {
        group: "notes",
        universe: &["note", "shout"],
        default: &["note"],
        max: 3,
    };
    static FINE: AllowSpec = AllowSpec {
        group: "notes",
        universe: &["note"],
        default: &["note"],
        max: 1,
    };
    let named = entry(Some("notes"), RuleMasks::default());
    let refused = |allow: Vec<&'static AllowSpec>| {
        let errors = Registry::from_entries_allowing([named], allow).unwrap_err();
        errors.iter().map(ToString::to_string).collect::<Vec<_>>()
    };
    assert_eq!(
        refused(vec![&UNKNOWN_GROUP]),
        ["the allow list of tool group `nobody` is invalid: no tool group has that name"]
    );
    assert_eq!(
        refused(vec![&OUTSIDE]),
        ["the allow list of tool group `notes` is invalid: `shout` is not a tool of the group"]
    );
    assert_eq!(
        refused(vec![&FINE, &FINE]),
        ["the allow list of tool group `notes` is invalid: the group declares two"]
    );
    let registry = Registry::from_entries_allowing([named], vec![&FINE]).unwrap();
    assert_eq!(registry.groups()[0].allow_universe(), Some(&["note"][..]));
    assert_eq!(registry.groups()[0].allow_max(), Some(1));
}

#[test]
fn groups_that_include_each_other_are_refused_naming_the_cycle() {
    // Generated code cannot build such includes (each group's tools are a
    // constant of the others'); a registry still refuses them.
    let named = |name, tool: &'static [&'static str], includes| GroupEntry {
        name: Some(name),
        tools: tool,
        definitions: tool,
        includes,
        ..entry(None, RuleMasks::default())
    };
    let errors = Registry::from_entries([
        named("a", &["x"], &["b"]),
        named("b", &["y"], &["a"]),
        named("c", &["z"], &["c"]),
        named("d", &["w"], &["a"]),
    ])
    .unwrap_err();
    let cycles: Vec<String> = errors
        .iter()
        .filter(|error| matches!(error, RegistryError::GroupCycle { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        cycles,
        [
            "tool groups include each other in a cycle (a → b → a): a group nests in each \
             group that includes it, and none may contain itself",
            "tool groups include each other in a cycle (c → c): a group nests in each group \
             that includes it, and none may contain itself",
        ]
    );
}

#[test]
fn a_counterexample_to_additivity_names_the_context_the_addition_and_the_tool() {
    // No rule can forbid a term, so no registry yields one; the message is
    // what a vocabulary declared `#[additive]` would fail with.
    let error = RegistryError::NotAdditive {
        context: r#"{"surface":"ticket"}"#.to_owned(),
        added: "capability refund".to_owned(),
        tool: "note".to_owned(),
    };
    assert_eq!(
        error.to_string(),
        r#"the vocabulary declares its capabilities additive, but adding capability refund to {"surface":"ticket"} removes tool `note`"#
    );
    let registry = Registry::from_entries([entry(None, RuleMasks::default())]).unwrap();
    registry
        .verify_additive()
        .expect("an always-on group stays on");
}
