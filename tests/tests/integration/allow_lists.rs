//! Allow lists (`#[tool_group(allow_list(...))]`, set per context):
//! strict setting and decoding (each error names the bad value and what
//! would be right), assembly and `explain`, and replacements over in-process
//! duplex pipes to real rmcp clients of both protocol eras: a change of
//! only the allow list is a normal replacement, one `tools/list_changed`
//! per session whose visible set changed and none otherwise.

use mcp_profiles::{AllowError, ProfileContext, ProfileController, Restriction, Vocabulary};
use mcp_profiles_tests::client::{CallOutcome, Session, refused, serve_duplex};
use mcp_profiles_tests::depot::{Depot, Surface};
use mcp_profiles_tests::modern::{
    LIMIT, ModernSession, expect_no_further_tools_list_changed, expect_one_list_changed,
};

type Context = ProfileContext<Depot>;

fn yard() -> Context {
    Context::new(Surface::Yard)
}

fn all_four() -> Context {
    yard()
        .with_allowed(
            "dispatch",
            ["list_jobs", "post_job", "cancel_job", "close_job"],
        )
        .expect("all of the universe")
}

#[test]
fn the_default_applies_until_a_list_is_set() {
    let registry = Depot::registry();
    assert_eq!(
        yard().allowed("dispatch"),
        Some(&["list_jobs", "post_job"][..])
    );
    assert_eq!(yard().allowed("crew"), Some(&["page_crew"][..]));
    assert_eq!(yard().allowed("ledger"), None);
    assert_eq!(
        registry.assemble(&yard()).tool_names(),
        ["list_jobs", "page_crew", "post_job", "roster"]
    );
    let crew = yard()
        .with_allowed("crew", ["release_crew", "assign_crew"])
        .unwrap();
    assert_eq!(
        crew.allowed("crew"),
        Some(&["assign_crew", "release_crew"][..])
    );
    assert_eq!(
        registry.assemble(&crew).tool_names(),
        [
            "assign_crew",
            "list_jobs",
            "post_job",
            "release_crew",
            "roster"
        ]
    );
    // Equal lists in any order make equal contexts.
    let again = yard()
        .with_allowed("crew", ["assign_crew", "release_crew"])
        .unwrap();
    assert_eq!(crew, again);
    // An empty list only removes: `roster` is outside the universe.
    let none = yard().with_allowed("crew", [] as [&str; 0]).unwrap();
    assert_eq!(
        registry.assemble(&none).tool_names(),
        ["list_jobs", "post_job", "roster"]
    );
}

#[test]
fn explain_names_the_allow_list_for_every_tool_it_kept_out() {
    let explanation = Depot::registry().explain(&yard());
    let removed: Vec<(&str, &str)> = explanation
        .removed()
        .iter()
        .map(|removed| (removed.tool(), removed.group()))
        .collect();
    assert_eq!(
        removed,
        [
            ("assign_crew", "crew"),
            ("cancel_job", "dispatch"),
            ("close_job", "dispatch"),
            ("release_crew", "crew"),
        ]
    );
    for removed in explanation.removed() {
        assert!(removed.restrictions().contains(Restriction::NotAllowed));
    }
    let text = explanation.to_string();
    assert!(
        text.contains("removed  cancel_job    (dispatch)  not in its group's allow list"),
        "{text}"
    );
}

#[test]
fn setting_is_strict_names_the_bad_value_and_changes_nothing() {
    let err = |group: &str, names: &[&str]| yard().with_allowed(group, names).unwrap_err();
    assert_eq!(
        err("dispatc", &["list_jobs"]).to_string(),
        "unknown tool group `dispatc`; did you mean `dispatch`?"
    );
    assert_eq!(
        err("ledger", &["read_ledger"]).to_string(),
        "tool group `ledger` declares no allow list; groups with one: crew, dispatch"
    );
    assert_eq!(
        err("dispatch", &["post_jbo"]),
        AllowError::UnknownName {
            group: "dispatch".into(),
            name: "post_jbo".into(),
            suggestion: Some("post_job"),
        }
    );
    assert_eq!(
        err("crew", &["roster"]).to_string(),
        "`roster` is not a tool the allow list of `crew` may name; see the group's \
         `allow_list(universe = ...)`"
    );
    assert_eq!(
        err("crew", &["page_crew", "page_crew"]).to_string(),
        "`page_crew` is listed twice in the allow list of `crew`"
    );
    assert_eq!(
        err("crew", &["page_crew", "assign_crew", "release_crew"]).to_string(),
        "the allow list of `crew` names 3 tools; it may name at most 2"
    );
    // A failed change leaves the context as it was.
    let set = yard().with_allowed("crew", ["assign_crew"]).unwrap();
    assert!(set.with_allowed("crew", ["nobody"]).is_err());
    assert_eq!(set.allowed("crew"), Some(&["assign_crew"][..]));
}

#[test]
fn json_round_trips_and_decodes_strictly() {
    let json = r#"{"surface":"yard","capabilities":[],"providers":[],"allow":{"crew":["assign_crew"],"dispatch":["close_job","list_jobs"]}}"#;
    let context = Context::from_json(json).unwrap();
    assert_eq!(
        context.allowed("dispatch"),
        Some(&["close_job", "list_jobs"][..])
    );
    assert_eq!(context.to_json(), json);
    assert_eq!(Context::from_json(&context.to_json()).unwrap(), context);
    // Without a list set, the form is the one it always was.
    assert_eq!(
        yard().to_json(),
        r#"{"surface":"yard","capabilities":[],"providers":[]}"#
    );

    let err = |allow: &str| {
        Context::from_json(&format!(r#"{{"surface":"yard","allow":{allow}}}"#))
            .unwrap_err()
            .to_string()
    };
    for (allow, expected) in [
        (
            r#"{"dispach":[]}"#,
            "`allow`: unknown tool group `dispach`; did you mean `dispatch`?",
        ),
        (
            r#"{"ledger":[]}"#,
            "`allow`: tool group `ledger` declares no allow list",
        ),
        (
            r#"{"dispatch":["clsoe_job"]}"#,
            "`clsoe_job` is not a tool the allow list of `dispatch` may name; did you mean `close_job`?",
        ),
        (
            r#"{"dispatch":["close_job","close_job"]}"#,
            "`close_job` is listed twice",
        ),
        (
            r#"{"crew":["assign_crew","page_crew","release_crew"]}"#,
            "names 3 tools; it may name at most 2",
        ),
        (
            r#"{"crew":[],"crew":[]}"#,
            "the allow list of `crew` is given twice",
        ),
        (r#"{"crew":"page_crew"}"#, "expected a sequence"),
        (r#"["page_crew"]"#, "expected an object of allow lists"),
    ] {
        let message = err(allow);
        assert!(message.contains(expected), "{allow}: {message}");
    }
    let message = Context::from_json(r#"{"surface":"yard","allow":{},"allow":{}}"#)
        .unwrap_err()
        .to_string();
    assert!(message.contains("duplicate field `allow`"), "{message}");
    // A server with an allow list suggests the field.
    let message = Context::from_json(r#"{"surface":"yard","alow":{}}"#)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("`providers`, `policy`, `allow`"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn widening_the_allow_list_notifies_once_and_the_same_list_again_not_at_all() {
    let controller = ProfileController::new(yard());
    let session = Session::connect(serve_duplex(controller.server(Depot))).await;
    let modern = ModernSession::connect(serve_duplex(controller.server(Depot))).await;
    let mut subscription = modern.subscribe().await;
    assert_eq!(
        session.tool_names().await,
        ["list_jobs", "page_crew", "post_job", "roster"]
    );
    assert_eq!(session.call("close_job", None).await, refused("close_job"));

    // 2 of 4 to all 4: one notification per session, then the new names.
    let change = controller.replace(all_four());
    assert_eq!(change.diff.added, ["cancel_job", "close_job"]);
    assert!(change.diff.removed.is_empty());
    assert_eq!(change.notified_sessions, 2);
    session.wait_for_notifications(1, LIMIT).await;
    expect_one_list_changed(&mut subscription).await;
    let listed = [
        "cancel_job",
        "close_job",
        "list_jobs",
        "page_crew",
        "post_job",
        "roster",
    ];
    assert_eq!(session.tool_names().await, listed);
    assert_eq!(modern.tool_names().await, listed);
    assert_eq!(
        session.call("close_job", None).await,
        CallOutcome::Ran(vec![])
    );

    // The same allow list again: nothing visible changes, nobody is told.
    let change = controller.replace(all_four());
    assert!(!change.changed());
    assert_eq!(change.notified_sessions, 0);
    expect_no_further_tools_list_changed(&session, 1, &modern, &mut subscription).await;
}
