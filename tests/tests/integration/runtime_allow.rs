//! A context's runtime allow list (`#[runtime_allow_list(max = 3)]` on the
//! depot's vocabulary) over in-process duplex pipes to real rmcp clients
//! of both protocol eras: only the named runtime tools are listed and
//! callable, compiled tools are untouched, a session without a list sees
//! every runtime tool, and a change of only the list is a normal
//! replacement: one `tools/list_changed` per session whose visible set
//! changed, none otherwise.

use mcp_profiles::{ProfileContext, ProfileController};
use mcp_profiles_tests::client::{CallOutcome, Session, refused, serve_duplex};
use mcp_profiles_tests::depot::{Depot, PLUGINS, Surface, plugin_catalog, plugins};
use mcp_profiles_tests::modern::{
    LIMIT, ModernSession, QUIET, expect_no_further_tools_list_changed, expect_one_list_changed,
};

type Context = ProfileContext<Depot>;

/// The compiled tools a plain yard context lists.
const COMPILED: [&str; 4] = ["list_jobs", "page_crew", "post_job", "roster"];

fn yard() -> Context {
    Context::new(Surface::Yard)
}

fn allowing(names: &[&str]) -> Context {
    yard()
        .with_runtime_allowed(names)
        .expect("a valid runtime allow list")
}

/// The compiled tools and `runtime`, sorted.
fn listed(runtime: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = COMPILED
        .iter()
        .chain(runtime)
        .map(|n| n.to_string())
        .collect();
    names.sort();
    names
}

/// A controller serving `context` with the plugins installed, and a
/// 2025-era session and a subscribed 2026-07-28 session on it.
async fn serve(context: Context) -> (ProfileController<Depot>, Session, ModernSession) {
    let controller = ProfileController::new(context);
    controller.install(&plugins());
    let session = Session::connect(serve_duplex(controller.server(Depot))).await;
    let modern = ModernSession::connect(serve_duplex(controller.server(Depot))).await;
    (controller, session, modern)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_listed_runtime_tools_are_served_and_widening_notifies_once() {
    let (controller, session, modern) = serve(allowing(&["plugin_gamma", "plugin_alpha"])).await;
    let mut subscription = modern.subscribe().await;

    // Two of the three runtime tools, and every compiled tool.
    let two = listed(&["plugin_alpha", "plugin_gamma"]);
    assert_eq!(session.tool_names().await, two);
    assert_eq!(modern.tool_names().await, two);
    assert_eq!(
        session.call("plugin_alpha", None).await,
        CallOutcome::Ran(vec!["plugin_alpha".into()])
    );
    // The third is refused like any tool outside the profile.
    assert_eq!(
        session.call("plugin_beta", None).await,
        refused("plugin_beta")
    );

    // Widening to all three: one notification per session, then three.
    let change = controller.replace(allowing(&PLUGINS));
    assert!(change.diff.is_empty(), "compiled tools are untouched");
    assert_eq!(change.runtime.added, ["plugin_beta"]);
    assert!(change.runtime.removed.is_empty());
    assert_eq!(change.notified_sessions, 2);
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    expect_one_list_changed(&mut subscription).await;
    let three = listed(&PLUGINS);
    assert_eq!(session.tool_names().await, three);
    assert_eq!(modern.tool_names().await, three);
    assert_eq!(
        session.call("plugin_beta", None).await,
        CallOutcome::Ran(vec!["plugin_beta".into()])
    );

    // The same list again (in another order): nothing changes, nobody is told.
    let change = controller.replace(allowing(&["plugin_gamma", "plugin_beta", "plugin_alpha"]));
    assert!(!change.changed());
    assert_eq!(change.notified_sessions, 0);
    expect_no_further_tools_list_changed(&session, 1, &modern, &mut subscription).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_list_every_runtime_tool_is_served_and_an_empty_list_serves_none() {
    let (controller, session, _modern) = serve(yard()).await;
    assert_eq!(session.tool_names().await, listed(&PLUGINS));

    // An empty list keeps every runtime tool out, and only them.
    let change = controller.replace(allowing(&[]));
    assert!(change.diff.is_empty());
    assert_eq!(change.runtime.removed, PLUGINS);
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(session.tool_names().await, listed(&[]));
    assert_eq!(
        session.call("plugin_alpha", None).await,
        refused("plugin_alpha")
    );

    // Lifting the list is a replacement too.
    let change = controller.replace(allowing(&[]).without_runtime_allowed());
    assert_eq!(change.runtime.added, PLUGINS);
    assert_eq!(session.wait_for_notifications(2, LIMIT).await, 2);
    assert_eq!(session.tool_names().await, listed(&PLUGINS));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_no_installed_tool_has_waits_for_it_and_lists_apply_per_controller() {
    // Names are not checked against a catalog: `plugin_delta` is served
    // once a catalog brings it.
    let (narrow, narrow_session, _modern) = serve(allowing(&["plugin_beta", "plugin_delta"])).await;
    let (open, open_session, _open_modern) = serve(yard()).await;
    assert_eq!(narrow_session.tool_names().await, listed(&["plugin_beta"]));
    assert_eq!(open_session.tool_names().await, listed(&PLUGINS));

    let four = [
        "plugin_alpha",
        "plugin_beta",
        "plugin_delta",
        "plugin_gamma",
    ];
    let installed = narrow.install(&plugin_catalog(2, &four));
    assert_eq!(installed.diff.added, ["plugin_delta"]);
    assert_eq!(narrow_session.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(
        narrow_session.tool_names().await,
        listed(&["plugin_beta", "plugin_delta"])
    );
    assert_eq!(
        narrow_session.call("plugin_delta", None).await,
        CallOutcome::Ran(vec!["plugin_delta".into()])
    );
    // The other controller's sessions neither see nor hear of it.
    tokio::time::sleep(QUIET).await;
    assert_eq!(open_session.notifications(), 0);
    assert_eq!(open.tools().len(), listed(&PLUGINS).len());
}
