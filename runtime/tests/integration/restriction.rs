//! Assembly under a policy and the kill switch: only removals, from the
//! compiled tools' annotations and names, each explained.

use crate::common::shop::{Capability, Shop, Surface};
use crate::common::{Desk, R};
use mcp_profiles::{
    DenyList, KillSwitch, Policy, ProfileContext, ProfileController, Registry, Restriction,
    Vocabulary,
};
use rmcp::model::ToolAnnotations;

type Context = ProfileContext<Shop>;

fn admin() -> Context {
    Context::new(Surface::Admin)
        .with_capability(Capability::Refund)
        .unwrap()
}

fn under(policy: Policy<Shop>) -> Vec<&'static str> {
    let profile = Shop::registry().assemble(&admin().with_policy(policy));
    profile.tool_names().to_vec()
}

fn deny(names: &[&str]) -> DenyList<Shop> {
    DenyList::new(names).unwrap()
}

#[test]
fn without_a_policy_every_enabled_tool_is_served() {
    assert_eq!(
        under(Policy::none()),
        [
            "add_product",
            "delete_product",
            "issue_refund",
            "list_products",
            "refund_history",
            "rename_product",
            "wipe_shop"
        ]
    );
}

#[test]
fn read_only_keeps_only_tools_annotated_read_only() {
    // `refund_history` also says destructive: meaningless beside read-only.
    assert_eq!(
        under(Policy::none().with_read_only(true)),
        ["list_products", "refund_history"]
    );
}

#[test]
fn no_destructive_removes_tools_that_may_be_destructive() {
    // `rename_product` has no annotations: MCP's default is destructive.
    assert_eq!(
        under(Policy::none().with_no_destructive(true)),
        [
            "add_product",
            "issue_refund",
            "list_products",
            "refund_history"
        ]
    );
}

#[test]
fn deny_removes_named_tools_and_every_tool_of_named_groups() {
    assert_eq!(
        under(Policy::none().with_deny(deny(&["catalog", "issue_refund"]))),
        ["refund_history", "wipe_shop"]
    );
    // A group stays enabled when all its tools are removed.
    let profile =
        Shop::registry().assemble(&admin().with_policy(Policy::none().with_deny(deny(&["admin"]))));
    assert_eq!(
        profile.groups().collect::<Vec<_>>(),
        ["admin", "catalog", "refunds"]
    );
    assert!(!profile.contains("wipe_shop"));
}

#[test]
fn a_policy_only_removes_so_every_restricted_profile_is_within_the_plain_one() {
    let registry = Shop::registry();
    let policies = [
        Policy::none().with_read_only(true),
        Policy::none().with_no_destructive(true),
        Policy::none().with_deny(deny(&["refunds", "list_products"])),
        Policy::none()
            .with_read_only(true)
            .with_no_destructive(true)
            .with_deny(deny(&["catalog"])),
    ];
    for context in Context::all() {
        let plain = registry.assemble(&context);
        for policy in policies {
            let restricted = registry.assemble(&context.with_policy(policy));
            let diff = plain.diff(&restricted);
            assert!(diff.added.is_empty(), "{context} under {policy}: {diff:?}");
            let explanation = registry.explain(&context.with_policy(policy));
            let removed: Vec<&str> = explanation.removed().iter().map(|r| r.tool()).collect();
            assert_eq!(removed, diff.removed, "{context} under {policy}");
        }
    }
}

#[test]
fn explain_names_every_part_of_the_policy_that_removed_each_tool() {
    let policy = Policy::none()
        .with_read_only(true)
        .with_no_destructive(true)
        .with_deny(deny(&["admin", "add_product"]));
    let explanation = Shop::registry().explain(&admin().with_policy(policy));
    let reasons = |tool: &str| -> Vec<Restriction> {
        let removed = explanation.removed().iter().find(|r| r.tool() == tool);
        removed.map_or_else(Vec::new, |r| r.restrictions().iter().collect())
    };
    use Restriction::*;
    assert_eq!(reasons("add_product"), [ReadOnly, DeniedTool]);
    assert_eq!(reasons("delete_product"), [ReadOnly, NoDestructive]);
    assert_eq!(reasons("issue_refund"), [ReadOnly]);
    assert_eq!(reasons("wipe_shop"), [ReadOnly, NoDestructive, DeniedGroup]);
    assert_eq!(reasons("list_products"), []);
    assert_eq!(
        explanation.to_string(),
        "\
on   admin    surface(admin)                   every condition holds
on   catalog  surface(store) | surface(admin)  every condition holds
on   refunds  capability(refund)               every condition holds
removed  add_product     (catalog)  read-only policy (readOnlyHint is not true); denied by name
removed  delete_product  (catalog)  read-only policy (readOnlyHint is not true); no-destructive policy (destructiveHint is true or absent)
removed  issue_refund    (refunds)  read-only policy (readOnlyHint is not true)
removed  rename_product  (catalog)  read-only policy (readOnlyHint is not true); no-destructive policy (destructiveHint is true or absent)
removed  wipe_shop       (admin)    read-only policy (readOnlyHint is not true); no-destructive policy (destructiveHint is true or absent); its group is denied
"
    );
}

#[test]
fn builder_registries_declare_annotations_and_check_deny_names_themselves() {
    let registry = Registry::<Desk>::builder()
        .group("notes", R::always(), &["read_note", "write_note"])
        .annotate("read_note", ToolAnnotations::new().read_only(true))
        .build()
        .unwrap();
    let read_only = ProfileContext::<Desk>::new(crate::common::Surface::Ticket)
        .with_policy(Policy::none().with_read_only(true));
    assert_eq!(registry.assemble(&read_only).tool_names(), ["read_note"]);
    let denying = registry.deny_list(["notes"]).unwrap();
    let context = ProfileContext::<Desk>::new(crate::common::Surface::Ticket)
        .with_policy(Policy::none().with_deny(denying));
    assert!(registry.assemble(&context).tool_names().is_empty());
    assert_eq!(
        registry.deny_list(["note"]).unwrap_err().to_string(),
        "unknown tool or tool group `note`; did you mean `notes`?"
    );
}

#[test]
fn the_kill_switch_replaces_only_the_controllers_it_changes() {
    let switch = KillSwitch::<Shop>::new();
    let store = ProfileController::with_kill_switch(Context::new(Surface::Store), &switch);
    let admin_agent = ProfileController::with_kill_switch(admin(), &switch);
    let alone = ProfileController::new(admin());
    assert_eq!(switch.controllers(), 2);
    assert!(store.kill_switch().same_switch(&switch));
    assert!(!alone.kill_switch().same_switch(&switch));

    let change = switch.set(deny(&["wipe_shop"]));
    assert_eq!(change.replacements.len(), 1);
    assert_eq!(change.replacements[0].diff.removed, ["wipe_shop"]);
    assert_eq!(change.replacements[0].new.context(), &admin());
    assert_eq!(change.unchanged, 1);
    assert!(!admin_agent.current().contains("wipe_shop"));
    assert!(alone.current().contains("wipe_shop"), "another switch");

    // The same list again changes nothing anywhere.
    let again = switch.set(deny(&["wipe_shop"]));
    assert!(again.replacements.is_empty());
    assert_eq!(again.unchanged, 2);

    // Replacements keep to the list in force, and explain says why.
    admin_agent.replace(admin().with_policy(Policy::none().with_read_only(true)));
    let explanation = admin_agent.explain();
    let wipe = explanation
        .removed()
        .iter()
        .find(|r| r.tool() == "wipe_shop")
        .unwrap();
    assert_eq!(
        wipe.restrictions().iter().collect::<Vec<_>>(),
        [Restriction::ReadOnly, Restriction::KilledTool]
    );
    assert!(!admin_agent.current().contains("wipe_shop"));

    // Killing a group reaches every controller that serves one of its tools.
    let change = switch.set(deny(&["catalog"]));
    assert_eq!(change.previous, deny(&["wipe_shop"]));
    assert_eq!(change.replacements.len(), 2);
    assert_eq!(
        change.replacements[0].diff.removed,
        [
            "add_product",
            "delete_product",
            "list_products",
            "rename_product"
        ]
    );
    assert!(change.replacements[1].diff.added.is_empty());
    assert_eq!(change.replacements[1].diff.removed, ["list_products"]);

    // Back on: each controller gets its own profile back, nothing more.
    let change = switch.set(DenyList::empty());
    assert_eq!(change.replacements.len(), 2);
    assert_eq!(
        store.current().tool_names(),
        Shop::registry()
            .assemble(&Context::new(Surface::Store))
            .tool_names()
    );
    assert_eq!(
        admin_agent.current().tool_names(),
        ["list_products", "refund_history"]
    );

    // A dropped controller is forgotten.
    drop(store);
    assert_eq!(switch.controllers(), 1);
    assert_eq!(switch.set(deny(&["refunds"])).replacements.len(), 1);
}

#[test]
fn a_controller_attached_later_starts_under_the_list_in_force() {
    let switch = KillSwitch::<Shop>::new();
    switch.set(deny(&["list_products"]));
    let late = ProfileController::with_kill_switch(Context::new(Surface::Store), &switch);
    assert!(!late.current().contains("list_products"));
    assert_eq!(late.kill_switch().killed(), deny(&["list_products"]));
}

#[test]
fn flips_racing_replacements_leave_every_controller_under_the_last_list() {
    // Two threads flip the switch while two replace profiles: whatever the
    // interleaving, each controller ends up serving its context under the
    // list in force, as a fresh assembly would.
    let switch = KillSwitch::<Shop>::new();
    let controllers: Vec<_> = (0..4)
        .map(|_| ProfileController::with_kill_switch(admin(), &switch))
        .collect();
    let lists = [
        deny(&["wipe_shop"]),
        deny(&["catalog"]),
        DenyList::empty(),
        deny(&["refunds", "add_product"]),
    ];
    let contexts = [
        admin(),
        Context::new(Surface::Store),
        admin().with_policy(Policy::none().with_read_only(true)),
    ];
    std::thread::scope(|scope| {
        for offset in 0..2 {
            let switch = switch.clone();
            scope.spawn(move || {
                for round in 0..50 {
                    switch.set(lists[(round + offset) % lists.len()]);
                }
            });
        }
        for offset in 0..2 {
            let controllers = &controllers;
            scope.spawn(move || {
                for round in 0..50 {
                    let controller = &controllers[(round + offset) % controllers.len()];
                    controller.replace(contexts[(round * 7 + offset) % contexts.len()]);
                }
            });
        }
    });
    let killed = switch.killed();
    for controller in &controllers {
        let context = *controller.current().context();
        let explanation = Shop::registry().explain(&context);
        let expected: Vec<&str> = Shop::registry()
            .assemble(&context)
            .tool_names()
            .iter()
            .copied()
            .filter(|tool| {
                let group = explanation
                    .rows()
                    .find(|(group, decision)| decision.is_enabled() && group.tools().contains(tool))
                    .map(|(group, _)| group.name());
                !killed.contains(tool) && !group.is_some_and(|group| killed.contains(group))
            })
            .collect();
        assert_eq!(
            controller.current().tool_names(),
            expected,
            "{context} under {killed:?}"
        );
    }
}
