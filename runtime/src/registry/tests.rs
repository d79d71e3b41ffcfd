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
        module_path: "desk::tools::ticket_notes",
        file: "src/tools/ticket_notes.rs",
        line: 3,
        rule,
        tools: &["note"],
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
