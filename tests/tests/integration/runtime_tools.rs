//! Runtime tool groups over streamable HTTP with real rmcp clients of both
//! protocol eras: a catalog joins the compiled tools under the same rules,
//! is verified all or nothing, versioned, and announced with exactly one
//! `tools/list_changed` per visible change.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_profiles::rmcp::model::{CallToolResult, ContentBlock, JsonObject, ToolAnnotations};
use mcp_profiles::{
    Catalog, CatalogError, InstallOutcome, ProfileContext, ProfileController, Rule, RuntimeTool,
    Vocabulary,
};
use mcp_profiles_serve::http::HttpServer;
use mcp_profiles_tests::client::{CallOutcome, Session, refused};
use mcp_profiles_tests::modern::{
    LIMIT, ModernSession, QUIET, expect_one_list_changed, expect_silence,
};
use mcp_profiles_tests::{Capability, Surface, TaskServer};
use rmcp::service::Subscription;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use tokio::sync::Semaphore;

type Context = ProfileContext<TaskServer>;

fn kanban() -> Context {
    Context::new(Surface::KanbanTask)
}

fn schema(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

/// A schema asking for a string `text`.
fn text_schema() -> JsonObject {
    schema(json!({
        "type": "object",
        "properties": {"text": {"type": "string", "minLength": 1}},
        "required": ["text"],
        "additionalProperties": false,
    }))
}

/// A tool that echoes `text` and counts its calls in `calls`.
fn echo(name: &str, rule: &str, calls: &Arc<AtomicUsize>) -> RuntimeTool<TaskServer> {
    let calls = Arc::clone(calls);
    RuntimeTool::new(
        name,
        "Echo the text",
        text_schema(),
        Rule::from_json(rule).expect("a valid rule"),
        move |arguments: JsonObject, _context| {
            let calls = Arc::clone(&calls);
            async move {
                calls.fetch_add(1, Ordering::SeqCst);
                let text = arguments["text"].as_str().unwrap_or_default().to_owned();
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            }
        },
    )
    .with_annotations(ToolAnnotations::new().read_only(true))
}

fn catalog(revision: u64, tools: Vec<RuntimeTool<TaskServer>>) -> Catalog<TaskServer> {
    Catalog::new("gen-1", revision, tools).expect("a valid catalog")
}

fn compiled(context: &Context) -> Vec<String> {
    let profile = TaskServer::registry().assemble(context);
    profile.tool_names().iter().map(|n| n.to_string()).collect()
}

fn with(mut names: Vec<String>, extra: &[&str]) -> Vec<String> {
    names.extend(extra.iter().map(|n| n.to_string()));
    names.sort();
    names
}

/// A controller served over streamable HTTP with one 2025-era session and
/// one subscribed 2026-07-28 session.
struct Served {
    controller: ProfileController<TaskServer>,
    http: HttpServer,
    legacy: Session,
    modern: ModernSession,
    events: Subscription,
}

impl Served {
    async fn start(context: Context) -> Self {
        let controller = ProfileController::<TaskServer>::new(context);
        let (http, uri) =
            mcp_profiles_tests::client::serve_http(controller.server(TaskServer::default())).await;
        let legacy = Session::connect(StreamableHttpClientTransport::from_uri(uri.clone())).await;
        let modern = ModernSession::connect(StreamableHttpClientTransport::from_uri(uri)).await;
        let events = modern.subscribe().await;
        let registered = async {
            while controller.session_count() != 2 {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(LIMIT, registered)
            .await
            .expect("both sessions register");
        Served {
            controller,
            http,
            legacy,
            modern,
            events,
        }
    }

    /// Both sessions heard exactly `n` list_changed in all, the subscriber
    /// one more than before this call if `one_more`.
    async fn expect_notified(&mut self, legacy_total: usize, one_more: bool) {
        if one_more {
            expect_one_list_changed(&mut self.events).await;
        } else {
            expect_silence(&mut self.events).await;
        }
        assert_eq!(
            self.legacy
                .wait_for_notifications(legacy_total, LIMIT)
                .await,
            legacy_total
        );
        tokio::time::sleep(QUIET).await;
        assert_eq!(self.legacy.notifications(), legacy_total);
        assert_eq!(self.modern.unsolicited(), 0);
    }

    async fn expect_lists(&self, names: &[String]) {
        assert_eq!(self.legacy.tool_names().await, names);
        assert_eq!(self.modern.tool_names().await, names);
        let listed: Vec<String> = self
            .controller
            .tools()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(listed, names);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn install_adds_tools_with_one_notification_and_equal_or_stale_catalogs_send_none() {
    let mut served = Served::start(kanban()).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let tools = || {
        vec![
            echo("plugin.echo", r#"{"surfaces": ["kanban-task"]}"#, &calls),
            echo("office_echo", r#"{"surfaces": ["office-task"]}"#, &calls),
        ]
    };

    let first = served.controller.install(&catalog(1, tools()));
    assert_eq!(first.outcome, InstallOutcome::Installed);
    assert_eq!(first.diff.added, ["plugin.echo"]);
    assert_eq!(first.notified_sessions, 2);
    served.expect_notified(1, true).await;
    served
        .expect_lists(&with(compiled(&kanban()), &["plugin.echo"]))
        .await;
    let listed = served.controller.tools();
    let echo_tool = listed.iter().find(|t| t.name == "plugin.echo").unwrap();
    assert_eq!(
        echo_tool.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );

    let ran = served
        .legacy
        .call("plugin.echo", Some(json!({"text": "hello"})))
        .await;
    assert_eq!(ran, CallOutcome::Ran(vec!["hello".into()]));
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // The same revision again, an older one, and an equal catalog at a newer
    // revision: nothing a client sees changes, and nobody is told.
    let same = served.controller.install(&catalog(1, tools()));
    assert_eq!(same.outcome, InstallOutcome::IgnoredStale);
    let older = served.controller.install(&catalog(0, vec![]));
    assert_eq!(older.outcome, InstallOutcome::IgnoredStale);
    assert_eq!(older.revision, 1);
    let equal = served.controller.install(&catalog(2, tools()));
    assert_eq!(equal.outcome, InstallOutcome::Unchanged);
    assert_eq!((equal.revision, equal.notified_sessions), (2, 0));
    // A change this context cannot see installs without a notification.
    let hidden = vec![echo(
        "plugin.echo",
        r#"{"surfaces": ["kanban-task"]}"#,
        &calls,
    )];
    let unseen = served.controller.install(&catalog(3, hidden));
    assert_eq!(unseen.outcome, InstallOutcome::Installed);
    assert!(!unseen.changed());
    served.expect_notified(1, false).await;
    assert_eq!(served.controller.catalog().unwrap().revision(), 3);

    // A new generation installs whatever its revision: here, no tools.
    let reset = served
        .controller
        .install(&Catalog::new("gen-2", 0, vec![]).unwrap());
    assert_eq!(reset.outcome, InstallOutcome::Installed);
    assert_eq!(reset.diff.removed, ["plugin.echo"]);
    served.expect_notified(2, true).await;
    served.expect_lists(&compiled(&kanban())).await;
    served.http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redefined_tool_is_announced_once() {
    let mut served = Served::start(kanban()).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let rule = r#"{"always": true}"#;
    served
        .controller
        .install(&catalog(1, vec![echo("echo", rule, &calls)]));
    served.expect_notified(1, true).await;
    let redefined = RuntimeTool::new(
        "echo",
        "Echo the text, louder",
        text_schema(),
        Rule::from_json(rule).unwrap(),
        |_, _| async { Ok(CallToolResult::success(vec![])) },
    );
    let change = served.controller.install(&catalog(2, vec![redefined]));
    assert_eq!(change.diff.changed, ["echo"]);
    served.expect_notified(2, true).await;
    served.http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collision_with_a_compiled_tool_is_refused_naming_both_and_the_witness() {
    let calls = Arc::new(AtomicUsize::new(0));
    // `list_tasks` is compiled on kanban-task and on configuration/external.
    let refused = Catalog::new(
        "gen-1",
        1,
        vec![echo("list_tasks", r#"{"surfaces": ["external"]}"#, &calls)],
    )
    .unwrap_err();
    let errors: Vec<&CatalogError> = refused.iter().collect();
    assert_eq!(
        errors,
        [&CatalogError::Collision {
            tool: "list_tasks".into(),
            group: "configuration-tasks".into(),
            witness: r#"{"surface":"external","capabilities":[],"providers":[]}"#.into(),
        }]
    );
    assert_eq!(
        refused.to_string(),
        "- runtime tool `list_tasks` collides with tool `list_tasks` of compiled group \
         `configuration-tasks`: the context \
         {\"surface\":\"external\",\"capabilities\":[],\"providers\":[]} enables both"
    );
    // Co-enabled only through a capability: still found, with the witness.
    let refused = Catalog::new(
        "gen-1",
        1,
        vec![echo(
            "set_task_title",
            r#"{"capabilities": ["task-title"]}"#,
            &calls,
        )],
    )
    .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains(r#"{"surface":"kanban-task","capabilities":["task-title"],"providers":[]}"#),
        "{refused}"
    );
    // Where no valid context enables both, the name is free.
    Catalog::new(
        "gen-1",
        1,
        vec![echo(
            "ask_parent_question",
            r#"{"capabilities": ["user-question"]}"#,
            &calls,
        )],
    )
    .expect("user-question excludes parent-question");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_catalogs_are_refused_whole_and_change_nothing() {
    let mut served = Served::start(kanban()).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let good = || echo("plugin_good", r#"{"always": true}"#, &calls);
    served.controller.install(&catalog(1, vec![good()]));
    served.expect_notified(1, true).await;
    let before = served.controller.tools();

    let bad_schema = RuntimeTool::new(
        "plugin_bad_schema",
        "A schema with a misspelt type",
        schema(json!({"type": "object", "properties": {"n": {"type": "integr"}}})),
        Rule::always(),
        |_, _| async { Ok(CallToolResult::success(vec![])) },
    );
    let not_object = RuntimeTool::new(
        "plugin_array",
        "Arguments must be an object",
        schema(json!({"type": "array"})),
        Rule::always(),
        |_, _| async { Ok(CallToolResult::success(vec![])) },
    );
    let remote_ref = RuntimeTool::new(
        "plugin_remote",
        "Never fetched",
        schema(json!({"type": "object", "$ref": "https://example.invalid/schema.json"})),
        Rule::always(),
        |_, _| async { Ok(CallToolResult::success(vec![])) },
    );
    let bad_output = good_named("plugin_output", &calls)
        .with_output_schema(schema(json!({"type": "object", "required": "text"})));
    let tools = vec![
        good(),
        echo("bad name", r#"{"always": true}"#, &calls),
        echo(&"x".repeat(129), r#"{"always": true}"#, &calls),
        bad_schema,
        not_object,
        remote_ref,
        bad_output,
        good(),
    ];
    let refused = Catalog::new("gen-1", 2, tools).unwrap_err();
    let problems: Vec<(&str, String)> = refused.iter().map(|e| (e.tool(), e.to_string())).collect();
    let find = |tool: &str| {
        problems
            .iter()
            .find(|(t, _)| *t == tool)
            .unwrap_or_else(|| panic!("no problem reported for {tool}: {problems:?}"))
            .1
            .clone()
    };
    assert!(find("bad name").contains("contains ' '"), "{problems:?}");
    assert!(find(&"x".repeat(129)).contains("129 characters"));
    assert!(find("plugin_bad_schema").contains("input schema"));
    assert!(find("plugin_bad_schema").contains("/properties/n/type"));
    assert!(find("plugin_array").contains("MCP requires \"object\""));
    assert!(find("plugin_remote").contains("input schema"));
    assert!(find("plugin_output").contains("output schema"));
    assert!(find("plugin_good").contains("listed twice"));
    assert_eq!(refused.len(), 7, "{refused}");

    // Unknown names and fields in a rule are errors naming them.
    let unknown = Rule::<TaskServer>::from_json(r#"{"surfaces": ["kanban"]}"#).unwrap_err();
    assert!(
        unknown.to_string().contains("unknown surface `kanban`"),
        "{unknown}"
    );
    let field = Rule::<TaskServer>::from_json(r#"{"surface": ["kanban-task"]}"#).unwrap_err();
    assert!(
        field.to_string().contains("unknown field `surface`"),
        "{field}"
    );
    for widening in [r#"{}"#, r#"{"surfaces": []}"#, r#"{"always": false}"#] {
        assert!(
            Rule::<TaskServer>::from_json(widening).is_err(),
            "{widening}"
        );
    }

    // Nothing was installed, and nobody heard of it.
    assert_eq!(served.controller.catalog().unwrap().revision(), 1);
    assert_eq!(served.controller.tools(), before);
    served.expect_notified(1, false).await;
    served.http.shutdown().await.unwrap();
}

fn good_named(name: &str, calls: &Arc<AtomicUsize>) -> RuntimeTool<TaskServer> {
    echo(name, r#"{"always": true}"#, calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_arguments_get_invalid_params_and_the_handler_never_runs() {
    let served = Served::start(kanban()).await;
    let calls = Arc::new(AtomicUsize::new(0));
    served
        .controller
        .install(&catalog(1, vec![good_named("plugin_echo", &calls)]));
    for (arguments, path) in [
        (Some(json!({"text": 7})), "/text"),
        (Some(json!({"text": ""})), "/text"),
        (Some(json!({"text": "a", "extra": true})), "/"),
        (None, "/"),
    ] {
        let outcome = served.legacy.call("plugin_echo", arguments.clone()).await;
        let CallOutcome::Refused(code, message) = outcome else {
            panic!("{arguments:?} ran");
        };
        assert_eq!(code, -32602);
        assert!(
            message.contains(&format!("input schema at `{path}`")),
            "{arguments:?}: {message}"
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    served.http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_change_hiding_a_runtime_tool_removes_it_with_one_notification() {
    let mut served = Served::start(kanban()).await;
    let calls = Arc::new(AtomicUsize::new(0));
    served.controller.install(&catalog(
        1,
        vec![echo(
            "plugin_echo",
            r#"{"surfaces": ["kanban-task"]}"#,
            &calls,
        )],
    ));
    served.expect_notified(1, true).await;

    // The compiled tools of kanban-task with and without task-title differ;
    // here only the runtime tool does: configuration keeps `list_tasks`.
    let configuration = Context::new(Surface::Configuration);
    let change = served.controller.replace(configuration);
    assert!(change.changed());
    assert_eq!(change.runtime.removed, ["plugin_echo"]);
    served.expect_notified(2, true).await;
    served.expect_lists(&compiled(&configuration)).await;

    // Hidden, it is refused exactly like a compiled tool outside the profile.
    let hidden = served
        .legacy
        .call("plugin_echo", Some(json!({"text": "x"})))
        .await;
    assert_eq!(hidden, refused("plugin_echo"));
    assert_eq!(
        served.legacy.call("create_task", None).await,
        refused("create_task")
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    // Back on kanban-task it returns, with one notification.
    let back = served.controller.replace(kanban());
    assert_eq!(back.runtime.added, ["plugin_echo"]);
    served.expect_notified(3, true).await;
    served
        .expect_lists(&with(compiled(&kanban()), &["plugin_echo"]))
        .await;
    served.http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_call_finishes_on_the_catalog_it_started_with() {
    let served = Served::start(kanban()).await;
    let gate = Arc::new(Semaphore::new(0));
    let started = Arc::new(Semaphore::new(0));
    let slow = {
        let (gate, started) = (Arc::clone(&gate), Arc::clone(&started));
        RuntimeTool::new(
            "plugin_slow",
            "Waits for the test",
            schema(json!({"type": "object"})),
            Rule::always(),
            move |_, _| {
                let (gate, started) = (Arc::clone(&gate), Arc::clone(&started));
                async move {
                    started.add_permits(1);
                    gate.acquire().await.unwrap().forget();
                    Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
                }
            },
        )
    };
    served.controller.install(&catalog(1, vec![slow]));
    let legacy = Arc::new(served.legacy);
    let call = {
        let legacy = Arc::clone(&legacy);
        tokio::spawn(async move { legacy.call("plugin_slow", Some(json!({}))).await })
    };
    tokio::time::timeout(LIMIT, started.acquire())
        .await
        .expect("the call starts")
        .unwrap()
        .forget();
    let removed = served.controller.install(&catalog(2, vec![]));
    assert_eq!(removed.diff.removed, ["plugin_slow"]);
    gate.add_permits(1);
    let outcome = tokio::time::timeout(LIMIT, call).await.unwrap().unwrap();
    assert_eq!(outcome, CallOutcome::Ran(vec!["done".into()]));
    assert_eq!(
        legacy.call("plugin_slow", Some(json!({}))).await,
        refused("plugin_slow")
    );
    assert_eq!(Arc::strong_count(&legacy), 1);
    served.http.shutdown().await.unwrap();
}

#[test]
fn rules_round_trip_through_json() {
    let rule = Rule::<TaskServer>::on_surfaces([Surface::KanbanTask, Surface::OfficeTask])
        .requiring(Capability::TaskTitle)
        .requiring_any([Capability::UserQuestion, Capability::ParentQuestion]);
    let json = rule.to_json();
    assert_eq!(
        json,
        r#"{"surfaces":["kanban-task","office-task"],"capabilities":["task-title"],"any_capabilities":["user-question","parent-question"]}"#
    );
    assert_eq!(Rule::<TaskServer>::from_json(&json).unwrap(), rule);
    assert_eq!(Rule::<TaskServer>::always().to_json(), r#"{"always":true}"#);
    let _ = TaskServer::registry();
}

#[test]
fn one_catalog_serves_many_controllers_each_by_its_own_context() {
    let calls = Arc::new(AtomicUsize::new(0));
    let shared = catalog(
        1,
        vec![
            echo("kanban_echo", r#"{"surfaces": ["kanban-task"]}"#, &calls),
            echo("office_echo", r#"{"surfaces": ["office-task"]}"#, &calls),
        ],
    );
    let office = Context::new(Surface::OfficeTask);
    let (first, second) = (
        ProfileController::<TaskServer>::new(kanban()),
        ProfileController::<TaskServer>::new(office),
    );
    assert_eq!(first.install(&shared).diff.added, ["kanban_echo"]);
    assert_eq!(second.install(&shared).diff.added, ["office_echo"]);
    let names = |c: &ProfileController<TaskServer>| -> Vec<String> {
        c.tools().iter().map(|t| t.name.to_string()).collect()
    };
    assert_eq!(names(&first), with(compiled(&kanban()), &["kanban_echo"]));
    assert_eq!(names(&second), with(compiled(&office), &["office_echo"]));
    // Versions are per controller: the first moving on leaves the second be.
    first.install(&catalog(2, vec![]));
    assert_eq!(second.catalog().unwrap().revision(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_sees_the_context_of_the_profile_it_runs_on() {
    let served = Served::start(kanban()).await;
    let whom = RuntimeTool::new(
        "plugin_whom",
        "Says which surface it serves",
        schema(json!({"type": "object"})),
        Rule::always(),
        |_, context: mcp_profiles::rmcp::service::RequestContext<_>| {
            let surface = context
                .extensions
                .get::<Context>()
                .map_or("none".to_owned(), |context| context.surface().to_string());
            async move { Ok(CallToolResult::success(vec![ContentBlock::text(surface)])) }
        },
    );
    served.controller.install(&catalog(1, vec![whom]));
    let ran = |surface: &str| CallOutcome::Ran(vec![surface.to_owned()]);
    assert_eq!(
        served.legacy.call("plugin_whom", Some(json!({}))).await,
        ran("kanban-task")
    );
    served.controller.replace(Context::new(Surface::OfficeTask));
    assert_eq!(
        served.legacy.call("plugin_whom", Some(json!({}))).await,
        ran("office-task")
    );
    served.http.shutdown().await.unwrap();
}
