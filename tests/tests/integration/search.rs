//! Tool search with real rmcp clients of both protocol eras: `tools/list`
//! answers the always-listed tools and search's two, a search finds only
//! the profile's tools, the proxy and a direct call answer alike (refusals
//! included), a replacement changes what search finds at once and sends
//! `list_changed` only when what is listed changes; and names that would
//! collide with search's are refused.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use mcp_profiles::{
    DenyList, InstallOutcome, PresentationError, ProfileContext, ProfileController, ToolSearch,
    ToolSearchError,
};
use mcp_profiles_tests::client::{
    CallOutcome, List, Session, disabled, found_tools, refused, serve_duplex, serve_http,
};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::modern::{LIMIT, ModernSession, expect_one_list_changed, expect_silence};
use mcp_profiles_tests::{Capability, Provider, Surface, TaskServer};
use proptest::prelude::*;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

use crate::presentation::{catalog, echo};

/// A call of `tool` with `arguments` through the proxy.
async fn proxied(session: &Session, tool: &str, arguments: Value) -> CallOutcome {
    session
        .call("call_tool", through_proxy(tool, arguments))
        .await
}

/// Search with the user-question group always listed.
fn search() -> ToolSearch<TaskServer> {
    ToolSearch::new()
        .always_listing(["user-question"])
        .expect("a declared group")
}

fn query(text: &str) -> Option<Value> {
    Some(json!({ "query": text, "limit": 20 }))
}

fn through_proxy(tool: &str, arguments: Value) -> Option<Value> {
    Some(json!({ "name": tool, "arguments": arguments }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_eras_search_and_call_through_the_proxy_over_http() {
    let controller = ProfileController::<TaskServer>::new(asking());
    controller.set_tool_search(search()).expect("no collision");
    let handler = TaskServer::default();
    let (_http, uri) = serve_http(controller.server(handler.clone())).await;
    let legacy = Session::connect(StreamableHttpClientTransport::from_uri(uri.clone())).await;
    let modern = ModernSession::connect(StreamableHttpClientTransport::from_uri(uri)).await;
    let mut events = modern.subscribe().await;

    let listed = ["ask_user_question", "call_tool", "search_tools"];
    assert_eq!(legacy.tool_names().await, listed);
    assert_eq!(modern.tool_names().await, listed);
    assert_eq!(
        controller
            .reachable_tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect::<Vec<_>>(),
        names_of(&asking())
    );

    // A search finds the profile's tools, and only those: the exact name
    // of a tool outside the profile finds nothing.
    let tasks = found_tools(
        &legacy
            .call("search_tools", query("list the tasks of a workflow"))
            .await,
    );
    assert_eq!(tasks[0], "list_tasks", "{tasks:?}");
    let parent = found_tools(
        &modern
            .call("search_tools", query("ask_parent_question"))
            .await,
    );
    assert!(
        !parent.contains(&"ask_parent_question".to_owned()),
        "{parent:?}"
    );
    for name in parent.iter().chain(&tasks) {
        assert!(
            names_of(&asking()).contains(name),
            "{name} is outside the profile"
        );
    }

    // The proxy and a direct call of an unlisted tool answer alike.
    let direct = legacy
        .call("list_tasks", Some(json!({"workflow_id": "w1"})))
        .await;
    assert_eq!(direct, CallOutcome::Ran(vec!["w1".to_owned()]));

    assert_eq!(
        proxied(&legacy, "list_tasks", json!({"workflow_id": "w1"})).await,
        direct
    );
    assert_eq!(
        modern
            .call(
                "call_tool",
                through_proxy("list_tasks", json!({"workflow_id": "w1"}))
            )
            .await,
        direct
    );
    assert_eq!(handler.calls("list_tasks"), 3);
    // Refusals say only what a direct call says.
    assert_eq!(
        proxied(&legacy, "ask_parent_question", json!({})).await,
        refused("ask_parent_question")
    );
    assert_eq!(
        proxied(&legacy, "list_tasks", json!({})).await,
        legacy.call("list_tasks", Some(json!({}))).await
    );
    assert_eq!(
        proxied(&legacy, "call_tool", json!({})).await,
        refused("call_tool")
    );
    assert_eq!(handler.calls("list_tasks"), 3);

    // The kill switch holds through the proxy.
    let killed = DenyList::new(["list_tasks"]).expect("a compiled tool");
    controller.kill_switch().set(killed);
    assert_eq!(
        proxied(&legacy, "list_tasks", json!({"workflow_id": "w"})).await,
        disabled("list_tasks")
    );
    let after_kill = found_tools(&legacy.call("search_tools", query("list tasks")).await);
    assert!(
        !after_kill.contains(&"list_tasks".to_owned()),
        "{after_kill:?}"
    );
    controller.kill_switch().set(DenyList::empty());
    // Neither flip changed what is listed: no list_changed.
    expect_silence(&mut events).await;

    // A replacement that changes only unlisted tools: no list_changed, but
    // search finds the new tool at once.
    let review = asking().with_provider(Provider::Github);
    assert!(controller.replace(review).changed());
    let reviewing = found_tools(
        &legacy
            .call("search_tools", query("review pull request"))
            .await,
    );
    assert!(
        reviewing
            .iter()
            .any(|name| names_of(&review).contains(name) && !names_of(&asking()).contains(name)),
        "{reviewing:?}"
    );
    expect_silence(&mut events).await;
    assert_eq!(legacy.notifications_of(List::Tools), 0);

    // One that changes what is listed: one list_changed per session, and
    // the question it removed is no longer found.
    controller.replace(child());
    expect_one_list_changed(&mut events).await;
    assert_eq!(
        legacy
            .wait_for_notifications_of(List::Tools, 1, LIMIT)
            .await,
        1
    );
    assert_eq!(legacy.tool_names().await, ["call_tool", "search_tools"]);
    let asked = found_tools(
        &legacy
            .call("search_tools", query("ask_user_question"))
            .await,
    );
    assert!(
        !asked.contains(&"ask_user_question".to_owned()),
        "{asked:?}"
    );
    assert_eq!(
        proxied(&legacy, "ask_user_question", json!({})).await,
        refused("ask_user_question")
    );

    // Off: every tool listed again, one more list_changed.
    controller.clear_tool_search();
    expect_one_list_changed(&mut events).await;
    assert_eq!(modern.tool_names().await, names_of(&child()));
    assert_eq!(
        legacy.call("search_tools", query("task")).await,
        refused("search_tools")
    );
}

#[tokio::test]
async fn search_applies_on_its_surfaces_only_and_checks_its_arguments() {
    let controller = ProfileController::<TaskServer>::new(asking());
    let on_configuration = ToolSearch::new().on_surfaces([Surface::Configuration]);
    controller
        .set_tool_search(on_configuration)
        .expect("no collision");
    let session = Session::connect(serve_duplex(controller.server(TaskServer::default()))).await;
    assert_eq!(session.tool_names().await, names_of(&asking()));
    controller.replace(ProfileContext::new(Surface::Configuration));
    assert_eq!(
        session
            .wait_for_notifications_of(List::Tools, 1, LIMIT)
            .await,
        1
    );
    assert_eq!(session.tool_names().await, ["call_tool", "search_tools"]);

    let errors = [
        (json!({}), "missing field `query`"),
        (json!({"query": "  "}), "`query` is empty"),
        (
            json!({"query": "task", "limit": 0}),
            "`limit` must be 1 to 20, not 0",
        ),
        (
            json!({"query": "task", "limit": 21}),
            "`limit` must be 1 to 20, not 21",
        ),
        (
            json!({"query": "task", "filter": "x"}),
            "unknown field `filter`",
        ),
    ];
    for (arguments, expected) in errors {
        let outcome = session.call("search_tools", Some(arguments.clone())).await;
        let CallOutcome::Ran(texts) = &outcome else {
            panic!("{arguments}: a tool error, not {outcome:?}")
        };
        assert!(texts[0].contains(expected), "{arguments}: {texts:?}");
    }
    let outcome = session
        .call("call_tool", Some(json!({"arguments": {}})))
        .await;
    assert!(
        matches!(&outcome, CallOutcome::Ran(texts) if texts[0].contains("missing field `name`")),
        "{outcome:?}"
    );
}

#[test]
fn names_that_would_collide_are_refused() {
    let err = ToolSearch::<TaskServer>::new()
        .with_names("list_tasks", "call")
        .unwrap_err();
    assert_eq!(
        err,
        ToolSearchError::CompiledTool {
            name: "list_tasks".into()
        }
    );
    assert!(
        err.to_string().contains("a compiled tool has that name"),
        "{err}"
    );
    let err = ToolSearch::<TaskServer>::new()
        .with_names("find", "find")
        .unwrap_err();
    assert!(matches!(err, ToolSearchError::SameName { .. }), "{err}");
    let err = ToolSearch::<TaskServer>::new()
        .with_names("find tools", "call")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("`find tools` cannot name a search tool"),
        "{err}"
    );
    let err = ToolSearch::<TaskServer>::new()
        .always_listing(["questions"])
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("no tool group `questions` to always list; the groups are: "),
        "{err}"
    );
    assert!(ToolSearch::<TaskServer>::new().with_limits(3, 2).is_err());

    // A catalog tool named like a search tool: refused when search is
    // attached after it, and when it is installed after search.
    let calls = Arc::new(AtomicUsize::new(0));
    let controller = ProfileController::<TaskServer>::new(asking());
    let rival = catalog(1, vec![echo("search_tools", &calls)]);
    assert_eq!(
        controller.install(&rival).outcome,
        InstallOutcome::Installed
    );
    let err = controller.set_tool_search(ToolSearch::new()).unwrap_err();
    assert_eq!(
        err,
        PresentationError::ReservedBySearch {
            tool: "search_tools".into(),
            name: "search_tools".into()
        }
    );
    assert!(controller.tool_search().is_none());
    let renamed = ToolSearch::new()
        .with_names("find_tools", "call_tool")
        .unwrap();
    controller
        .set_tool_search(renamed)
        .expect("no collision now");
    let refused = controller.install(&catalog(2, vec![echo("call_tool", &calls)]));
    assert_eq!(refused.outcome, InstallOutcome::Refused);
    assert!(refused.refused.unwrap().to_string().contains("`call_tool`"));
}

/// Every compiled tool name of the task server, and a few words.
fn words() -> Vec<String> {
    let mut words: Vec<String> = ProfileContext::<TaskServer>::all()
        .flat_map(|context| names_of(&context))
        .collect();
    words.extend(
        [
            "task", "ask", "question", "title", "review", "workflow", "the",
        ]
        .map(String::from),
    );
    words.sort();
    words.dedup();
    words
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// For random contexts and random queries (exact names of tools
    /// outside the profile among them), no result is outside the profile,
    /// and the proxy answers as a direct call of the same name.
    #[test]
    fn search_never_finds_outside_the_profile(
        context in 0..ProfileContext::<TaskServer>::all().count(),
        picks in proptest::collection::vec((0usize..64, 0usize..64), 1..4),
    ) {
        let context = ProfileContext::<TaskServer>::all().nth(context).unwrap();
        let words = words();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let controller = ProfileController::<TaskServer>::new(context);
            controller.set_tool_search(ToolSearch::new().with_limits(20, 20).unwrap()).unwrap();
            let session = Session::connect(serve_duplex(controller.server(TaskServer::default()))).await;
            let allowed = names_of(&context);
            for (first, second) in picks {
                let text = format!("{} {}", words[first % words.len()], words[second % words.len()]);
                for name in found_tools(&session.call("search_tools", Some(json!({"query": text}))).await) {
                    prop_assert!(allowed.contains(&name), "{name} found for {text:?} in {context}");
                }
                let name = &words[first % words.len()];
                if !allowed.contains(name) {
                    let proxied = session.call("call_tool", through_proxy(name, json!({}))).await;
                    prop_assert_eq!(proxied, session.call(name, Some(json!({}))).await);
                }
            }
            Ok(())
        })?;
    }
}

#[test]
fn capability_contexts_list_their_always_listed_group_only_when_enabled() {
    let controller = ProfileController::<TaskServer>::new(child());
    controller.set_tool_search(search()).unwrap();
    let names = |controller: &ProfileController<TaskServer>| -> Vec<String> {
        controller
            .tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect()
    };
    assert_eq!(names(&controller), ["call_tool", "search_tools"]);
    controller.replace(asking().with_capability(Capability::TaskTitle).unwrap());
    assert_eq!(
        names(&controller),
        ["ask_user_question", "call_tool", "search_tools"]
    );
}

/// The official TypeScript SDK's client: it lists search's tools, searches,
/// and gets the same answer through the proxy as directly, refusals too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_client_searches_and_calls_through_the_proxy() {
    use mcp_profiles_tests::node_sdk::Sdk;
    let Some(sdk) = Sdk::find(
        "the tool-search test with the TypeScript MCP SDK",
        "cargo test -p mcp-profiles-tests --test integration search::the_typescript_sdk",
    ) else {
        return;
    };
    let controller = ProfileController::<TaskServer>::new(asking());
    controller.set_tool_search(search()).expect("no collision");
    let handler = TaskServer::default();
    let (_http, uri) = serve_http(controller.server(handler.clone())).await;
    let scripts = sdk.scripts("search", &["client.mjs"]);
    let output = sdk
        .node(&scripts.join("client.mjs"))
        .args([
            uri.as_str(),
            "list the tasks of a workflow",
            "list_tasks",
            r#"{"workflow_id":"w7"}"#,
            "ask_parent_question",
        ])
        .output();
    let output = tokio::time::timeout(LIMIT, output)
        .await
        .expect("the SDK client finishes")
        .expect("node runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON report");
    assert_eq!(
        report["listed"],
        json!(["ask_user_question", "call_tool", "search_tools"])
    );
    assert_eq!(report["found"][0], "list_tasks", "{report}");
    for name in report["found"].as_array().unwrap() {
        assert!(
            names_of(&asking()).contains(&name.as_str().unwrap().to_owned()),
            "{report}"
        );
    }
    assert_eq!(report["schemas"], true);
    assert_eq!(report["proxied"], json!({"text": "w7", "isError": false}));
    assert_eq!(report["direct"], report["proxied"]);
    assert_eq!(report["outsideProxied"]["code"], -32602, "{report}");
    assert!(
        report["outsideProxied"]["message"]
            .as_str()
            .unwrap()
            .contains("tool `ask_parent_question` is not available in the current profile"),
        "{report}"
    );
    assert_eq!(report["outsideDirect"], report["outsideProxied"]);
    assert_eq!(handler.calls("list_tasks"), 2);
    assert_eq!(handler.calls("ask_parent_question"), 0);
}

/// A runtime catalog is searched from the install on, and no longer once
/// it is gone; neither change is listed, so neither sends `list_changed`.
#[tokio::test]
async fn catalog_installs_reindex_without_a_list_changed() {
    let calls = Arc::new(AtomicUsize::new(0));
    let controller = ProfileController::<TaskServer>::new(asking());
    controller.set_tool_search(search()).expect("no collision");
    let session = Session::connect(serve_duplex(controller.server(TaskServer::default()))).await;
    assert!(found_tools(&session.call("search_tools", query("echo the text")).await).is_empty());
    controller.install(&catalog(1, vec![echo("echo_text", &calls)]));
    assert_eq!(
        found_tools(&session.call("search_tools", query("echo the text")).await),
        ["echo_text"]
    );
    assert_eq!(
        proxied(&session, "echo_text", json!({"text": "hi"})).await,
        CallOutcome::Ran(vec!["hi".to_owned()])
    );
    controller.set_catalog(None);
    assert!(found_tools(&session.call("search_tools", query("echo the text")).await).is_empty());
    assert_eq!(
        proxied(&session, "echo_text", json!({"text": "hi"})).await,
        refused("echo_text")
    );
    session.expect_exactly(&[(List::Tools, 0)]).await;
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
}
