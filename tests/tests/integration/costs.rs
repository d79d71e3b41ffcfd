//! What a profile costs and the token budgets a vocabulary declares: the
//! cost is what a real client is served, the costliest context of each
//! surface is the costliest of a brute-force walk of every context and
//! every allow list, and a surface over its budget fails the test
//! `vocabulary!` adds, naming the context, its cost and its largest tools.

use std::collections::BTreeSet;

use mcp_profiles::{
    Group, ListCost, ProfileContext, ProfileController, Registry, RegistryError, Rule, Term,
    Vocabulary,
};
use mcp_profiles_tests::client::{Session, serve_duplex};
use mcp_profiles_tests::costly::{self, Costly};
use mcp_profiles_tests::depot::{self, Depot};

/// Every subset of `universe` of at most `max` names.
fn lists(universe: &[&'static str], max: usize) -> Vec<Vec<&'static str>> {
    (0u32..1 << universe.len())
        .filter(|mask| mask.count_ones() as usize <= max)
        .map(|mask| {
            universe
                .iter()
                .enumerate()
                .filter(|(index, _)| mask & (1 << index) != 0)
                .map(|(_, name)| *name)
                .collect()
        })
        .collect()
}

/// Every valid context on `surface`, with every combination of allow lists
/// its groups may be given.
fn every_context<S: Vocabulary>(
    registry: &Registry<S>,
    surface: S::Surface,
) -> Vec<ProfileContext<S>> {
    let allowing: Vec<&Group<S>> = registry
        .groups()
        .iter()
        .filter(|group| group.allow_universe().is_some())
        .collect();
    let mut contexts: Vec<ProfileContext<S>> = ProfileContext::<S>::all()
        .filter(|context| context.surface() == surface)
        .collect();
    for group in allowing {
        let choices = lists(group.allow_universe().unwrap(), group.allow_max().unwrap());
        contexts = contexts
            .iter()
            .flat_map(|context| {
                choices.iter().map(|list| {
                    context
                        .with_allowed(group.name(), list)
                        .expect("a valid list")
                })
            })
            .collect();
    }
    contexts
}

/// The most tokens a brute-force walk finds on `surface`.
fn brute_max<S: Vocabulary>(registry: &Registry<S>, surface: S::Surface) -> usize {
    every_context(registry, surface)
        .iter()
        .map(|context| registry.cost(context).tokens())
        .max()
        .expect("at least one context")
}

fn tool_names(cost: &ListCost) -> Vec<&str> {
    cost.tools().iter().map(|tool| tool.name()).collect()
}

#[test]
fn an_over_budget_surface_fails_the_generated_test_naming_its_context_cost_and_largest_tools() {
    let registry = Registry::<Costly>::linked().expect("the groups themselves are valid");
    let max = registry.max_cost(costly::Surface::Desk).unwrap();
    // The audit side outweighs the refund side: its one tool has a schema.
    assert_eq!(
        max.context().to_json(),
        r#"{"surface":"desk","capabilities":["audit"],"providers":["jira"]}"#
    );
    assert_eq!(
        tool_names(max.cost()),
        ["export_audit_trail", "link_issue", "list_tickets"]
    );
    let (tokens, bytes) = (max.cost().tokens(), max.cost().bytes());
    assert!(
        tokens > 150,
        "the fixture must be over its budget: {tokens}"
    );
    let largest: Vec<String> = max
        .cost()
        .largest(5)
        .iter()
        .map(|tool| format!("{} ({})", tool.name(), tool.tokens()))
        .collect();
    assert_eq!(largest.len(), 3);
    assert!(
        largest[0].starts_with("export_audit_trail ("),
        "{largest:?}"
    );
    // What the test `vocabulary!` adds checks (it panics with this text
    // after "the tool groups of `Costly` are invalid:"), through the
    // public API: the linked registry, verified, and its budgets.
    let message = mcp_profiles::Registry::<Costly>::linked()
        .and_then(|registry| registry.verify_budgets())
        .expect_err("the desk is over its budget")
        .to_string();
    assert_eq!(
        message,
        format!(
            "- surface `desk` is over its budget of 150 tokens: the context \
             {{\"surface\":\"desk\",\"capabilities\":[\"audit\"],\"providers\":[\"jira\"]}} lists \
             3 tools in {tokens} o200k_base tokens ({bytes} bytes), {over} over; its largest \
             tools: {largest}. Trim their descriptions or schemas, move tools to groups that \
             context does not enable, or raise `#[budget(tokens = ...)]` on the surface",
            over = tokens - 150,
            largest = largest.join(", "),
        )
    );
    // The error as a value: only the desk, which is over.
    let errors = registry.verify_budgets().unwrap_err();
    let surfaces: Vec<&str> = errors
        .iter()
        .map(|error| match error {
            RegistryError::OverBudget { surface, .. } => surface.as_str(),
            other => panic!("expected a budget error, got {other}"),
        })
        .collect();
    assert_eq!(surfaces, ["desk"]);
    assert_eq!(
        Costly::TOKEN_BUDGETS,
        [
            (costly::Surface::Desk, 150),
            (costly::Surface::Triage, 100_000)
        ]
    );
}

#[test]
fn the_costliest_context_is_the_costliest_of_every_context_and_allow_list() {
    let costly = Registry::<Costly>::linked().unwrap();
    for &surface in costly::Surface::ALL {
        let max = costly.max_cost(surface).unwrap();
        assert_eq!(max.context().surface(), surface);
        assert_eq!(max.cost(), &costly.cost(max.context()), "{surface}");
        assert_eq!(
            max.cost().tokens(),
            brute_max(&costly, surface),
            "{surface}"
        );
    }
    // `triage` may keep two of its three governed tools: the two costliest.
    let triage = costly.max_cost(costly::Surface::Triage).unwrap();
    assert_eq!(
        triage.context().allowed("triage"),
        Some(&["merge", "split_into_several_tickets"][..])
    );
    // Two groups with allow lists on one surface.
    let registry = Depot::registry();
    for &surface in depot::Surface::ALL {
        let max = registry.max_cost(surface).unwrap();
        assert_eq!(max.cost(), &registry.cost(max.context()), "{surface}");
        assert_eq!(
            max.cost().tokens(),
            brute_max(registry, surface),
            "{surface}"
        );
    }
}

mod desk {
    use mcp_profiles::Rule;

    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { #[budget(tokens = 40)] Ticket, Chat, Archive }
        #[capabilities] pub enum Capability {
            Refund,
            #[exclusive_with(Refund)] ReadOnly,
            Escalate,
            #[exclusive_with(Escalate)] Mute,
        }
        #[providers] pub enum Provider { Jira, Zendesk }
    }

    /// Groups whose costliest ticket context is not the one with the most
    /// groups: the read-only side outweighs the refund side, muting
    /// outweighs escalating. Built in code, so each tool costs its bare
    /// definition, its name.
    pub fn registry() -> mcp_profiles::Registry<Desk> {
        mcp_profiles::Registry::<Desk>::builder()
            .group(
                "tickets",
                Rule::on_surface(Surface::Ticket),
                &["list_tickets"],
            )
            .group(
                "refunds",
                Rule::on_surface(Surface::Ticket).requiring(Capability::Refund),
                &["refund"],
            )
            .group(
                "audits",
                Rule::any_surface().requiring(Capability::ReadOnly),
                &[
                    "export_the_complete_audit_trail_of_every_ticket",
                    "summarise_every_refund_ever_issued_by_anyone",
                ],
            )
            .group(
                "escalations",
                Rule::on_surface(Surface::Ticket).requiring(Capability::Escalate),
                &["escalate"],
            )
            .group(
                "mutes",
                Rule::on_surface(Surface::Ticket).requiring(Capability::Mute),
                &["mute_every_notification_of_this_ticket_until_reopened"],
            )
            .group(
                "trackers",
                Rule::on_surface(Surface::Ticket)
                    .with_any_provider([Provider::Jira, Provider::Zendesk]),
                &["link_issue"],
            )
            .group("chat", Rule::on_surface(Surface::Chat), &["reply"])
            .build()
            .expect("a valid registry")
    }
}

#[test]
fn exclusive_capabilities_are_weighed_side_against_side() {
    let registry = desk::registry();
    for &surface in desk::Surface::ALL {
        let max = registry.max_cost(surface).unwrap();
        assert_eq!(
            max.cost().tokens(),
            brute_max(&registry, surface),
            "{surface}"
        );
    }
    assert_eq!(
        registry
            .max_cost(desk::Surface::Ticket)
            .unwrap()
            .context()
            .to_json(),
        r#"{"surface":"ticket","capabilities":["read-only","mute"],"providers":["jira","zendesk"]}"#
    );
    // On the archive only the audits (on every surface) mention a
    // capability: every provider and read-only.
    assert_eq!(
        registry
            .max_cost(desk::Surface::Archive)
            .unwrap()
            .context()
            .to_json(),
        r#"{"surface":"archive","capabilities":["read-only"],"providers":["jira","zendesk"]}"#
    );
    let errors = registry.verify_budgets().unwrap_err();
    let Some(RegistryError::OverBudget {
        surface,
        budget,
        tools,
        largest,
        ..
    }) = errors.iter().next()
    else {
        panic!("expected a budget error: {errors}");
    };
    assert_eq!((surface.as_str(), *budget, *tools), ("ticket", 40, 5));
    let names: Vec<&str> = largest.iter().map(|(name, _)| name.as_str()).collect();
    // The three long names, most tokens first.
    assert_eq!(
        names[..3].iter().copied().collect::<BTreeSet<_>>(),
        BTreeSet::from([
            "export_the_complete_audit_trail_of_every_ticket",
            "mute_every_notification_of_this_ticket_until_reopened",
            "summarise_every_refund_ever_issued_by_anyone",
        ])
    );
    assert_eq!(names.len(), 5);
    assert!(largest.windows(2).all(|pair| pair[0].1 >= pair[1].1));
}

mod wide {
    pub struct Wide;

    // Thirteen exclusive pairs: 8,192 maximal capability sets.
    mcp_profiles::vocabulary! {
        server Wide;
        #[surfaces] pub enum Surface { #[budget(tokens = 1000)] Board }
        #[capabilities] pub enum Capability {
            A0, #[exclusive_with(A0)] B0, A1, #[exclusive_with(A1)] B1,
            A2, #[exclusive_with(A2)] B2, A3, #[exclusive_with(A3)] B3,
            A4, #[exclusive_with(A4)] B4, A5, #[exclusive_with(A5)] B5,
            A6, #[exclusive_with(A6)] B6, A7, #[exclusive_with(A7)] B7,
            A8, #[exclusive_with(A8)] B8, A9, #[exclusive_with(A9)] B9,
            A10, #[exclusive_with(A10)] B10, A11, #[exclusive_with(A11)] B11,
            A12, #[exclusive_with(A12)] B12,
        }
        #[providers] pub enum Provider {}
    }
}

#[test]
fn a_budget_too_costly_to_check_exactly_is_refused_not_passed() {
    let registry = Registry::<wide::Wide>::builder()
        .group(
            "everything",
            Rule::any_surface().requiring_any(wide::Capability::ALL.iter().copied()),
            &["act"],
        )
        .build()
        .unwrap();
    let errors = registry.verify_budgets().unwrap_err();
    assert_eq!(
        errors.to_string(),
        "- the token budget of surface `board` cannot be checked: its capabilities have more \
         than 4096 maximal sets free of exclusive pairs, too many to try each; remove its \
         `#[budget(...)]` or declare fewer exclusive capabilities"
    );
    // Twelve of the pairs mentioned: 4,096 sets, within the bound.
    let twelve: Vec<wide::Capability> = wide::Capability::ALL[..24].to_vec();
    let registry = Registry::<wide::Wide>::builder()
        .group("most", Rule::any_surface().requiring_any(twelve), &["act"])
        .build()
        .unwrap();
    registry.verify_budgets().unwrap();
    let max = registry.max_cost(wide::Surface::Board).unwrap();
    assert_eq!(max.context().capabilities().count(), 12);
}

#[tokio::test]
async fn the_cost_is_what_a_client_is_served() {
    let context = ProfileContext::<Costly>::new(costly::Surface::Desk)
        .with_capability(costly::Capability::Audit)
        .unwrap()
        .with_provider(costly::Provider::Jira);
    let controller = ProfileController::<Costly>::new(context);
    let session = Session::connect(serve_duplex(controller.server(Costly))).await;
    let listed = session.service.list_all_tools().await.unwrap();
    let cost = Costly::registry().cost(&context);
    assert_eq!(ListCost::of(&listed), cost);
    assert_eq!(cost.bytes(), serde_json::to_string(&listed).unwrap().len());
    assert_eq!(
        cost.tools()[0].bytes(),
        serde_json::to_string(&listed[0]).unwrap().len()
    );
    // The explanation counts what is left after a policy, like the list.
    let denied = context.with_policy(
        mcp_profiles::Policy::none().with_deny(Costly::registry().deny_list(["jira"]).unwrap()),
    );
    let explained = Costly::registry().explain(&denied).cost();
    assert_eq!(
        tool_names(&explained),
        ["export_audit_trail", "list_tickets"]
    );
    assert_eq!(explained, Costly::registry().cost(&denied));
    // One line per tool, then the total.
    let table = cost.to_string();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "{table}");
    assert!(
        lines[0].starts_with("tool ") && lines[0].ends_with("bytes  tokens"),
        "{table}"
    );
    let total: Vec<String> = lines[4].split_whitespace().map(str::to_owned).collect();
    assert_eq!(
        total,
        [
            "total",
            "(3)",
            &cost.bytes().to_string(),
            &cost.tokens().to_string()
        ],
        "{table}"
    );
    let json = serde_json::to_value(&cost).unwrap();
    assert_eq!(json["estimator"], "o200k_base:mcp-tool-json-v1");
    assert_eq!(json["tokens"], cost.tokens());
    assert_eq!(json["bytes"], cost.bytes());
    let names: BTreeSet<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 3);
}
