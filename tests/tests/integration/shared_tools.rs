//! Groups that share tools (`#[tool_group(include(...), exclude = [...])]`),
//! on the clinic fixture: a shared definition is one tool wherever it is
//! on, a composed group lists and serves exactly what it includes less what
//! it excludes (through the including group's own route table), and an
//! allow list may govern included tools. Served over in-process duplex
//! pipes to a real rmcp client.

use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};
use mcp_profiles_tests::client::{CallOutcome, Session, refused, serve_duplex};
use mcp_profiles_tests::clinic::{Capability, Clinic, Surface};

type Context = ProfileContext<Clinic>;

fn ran(method: &str) -> CallOutcome {
    CallOutcome::Ran(vec![method.to_owned()])
}

#[test]
fn composed_groups_hold_their_own_then_included_tools_each_once() {
    let registry = Clinic::registry();
    let tools = |group: &str| registry.group(group).map(|group| group.tools().to_vec());
    assert_eq!(
        tools("billing").unwrap(),
        ["list_invoices", "list_patients"]
    );
    assert_eq!(
        tools("night").unwrap(),
        ["list_patients", "get_patient", "list_invoices"]
    );
    assert_eq!(
        tools("triage").unwrap(),
        ["page_doctor", "list_patients", "get_patient"]
    );
}

#[test]
fn one_definition_on_in_two_groups_is_one_tool() {
    // `records` and `billing` are on together and share `list_patients`:
    // the registry accepts it (it verified at first use) and lists it once.
    let billing = Context::new(Surface::Desk)
        .with_capability(Capability::Billing)
        .unwrap();
    let profile = Clinic::registry().assemble(&billing);
    assert_eq!(
        profile.tool_names(),
        [
            "delete_patient",
            "get_patient",
            "list_invoices",
            "list_patients"
        ]
    );
    assert_eq!(profile.groups().collect::<Vec<_>>(), ["billing", "records"]);
}

#[test]
fn an_allow_list_governs_included_tools() {
    let triage = Context::new(Surface::Triage);
    assert_eq!(
        Clinic::registry().assemble(&triage).tool_names(),
        ["list_patients", "page_doctor"]
    );
    let widened = triage
        .with_allowed("triage", ["get_patient", "list_patients"])
        .unwrap();
    assert_eq!(
        Clinic::registry().assemble(&widened).tool_names(),
        ["get_patient", "list_patients"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_composed_group_serves_the_included_definitions_and_nothing_excluded() {
    let controller = ProfileController::new(Context::new(Surface::Night));
    let session = Session::connect(serve_duplex(controller.server(Clinic))).await;
    assert_eq!(
        session.tool_names().await,
        ["get_patient", "list_invoices", "list_patients"]
    );
    assert_eq!(
        session.call("list_patients", None).await,
        ran("list_patients")
    );
    assert_eq!(
        session.call("list_invoices", None).await,
        ran("list_invoices")
    );
    assert_eq!(
        session.call("delete_patient", None).await,
        refused("delete_patient")
    );
}

#[test]
fn a_shared_tool_stays_while_any_group_exposing_it_keeps_it() {
    let registry = Clinic::registry();
    let denying = |deny: &str| {
        let json = format!(
            r#"{{"surface":"desk","capabilities":["billing"],"policy":{{"deny":{deny}}}}}"#
        );
        registry.assemble(&Context::from_json(&json).unwrap())
    };
    // `billing` still grants `list_patients` when `records` is denied.
    assert_eq!(
        denying(r#"["records"]"#).tool_names(),
        ["list_invoices", "list_patients"]
    );
    // Denied through both groups, it is gone, and `explain` says so once.
    assert_eq!(denying(r#"["records","billing"]"#).tool_names(), [""; 0]);
    let json =
        r#"{"surface":"desk","capabilities":["billing"],"policy":{"deny":["list_patients"]}}"#;
    let explanation = registry.explain(&Context::from_json(json).unwrap());
    let removed: Vec<&str> = explanation.removed().iter().map(|r| r.tool()).collect();
    assert_eq!(removed, ["list_patients"]);
}
