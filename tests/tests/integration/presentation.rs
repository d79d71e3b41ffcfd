//! Name presentation with real rmcp clients of both protocol eras: sessions
//! list presented names and call tools by them (and by canonical names),
//! refusals name what the client sent, and a presentation or a runtime
//! catalog that would make two tools collide is refused, changing nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_profiles::rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use mcp_profiles::{
    Catalog, DenyList, InstallOutcome, Presentation, PresentationError, ProfileController, Rule,
    RuntimeTool, Vocabulary,
};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::client::{CallOutcome, Session, disabled, refused, serve_duplex};
use mcp_profiles_tests::contexts::{asking, names_of};
use mcp_profiles_tests::modern::{LIMIT, ModernSession, QUIET, expect_one_list_changed};
use mcp_profiles_tests::shadow::{self, Shadow};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;

/// The presentation under test: the question tools lose `_question`.
pub(crate) fn questions() -> Presentation {
    Presentation::strip_suffix("_question").expect("a valid suffix")
}

/// `names` as the presentation lists them, sorted.
pub(crate) fn presented(names: Vec<String>) -> Vec<String> {
    let presentation = questions();
    let mut names: Vec<String> = names
        .iter()
        .map(|name| presentation.present(name).into_owned())
        .collect();
    names.sort();
    names
}

/// A runtime tool on the kanban surface that echoes `text`, counting calls.
pub(crate) fn echo(name: &str, calls: &Arc<AtomicUsize>) -> RuntimeTool<TaskServer> {
    let calls = Arc::clone(calls);
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let schema: JsonObject = schema.as_object().cloned().unwrap_or_default();
    let rule = Rule::from_json(r#"{"surfaces": ["kanban-task"]}"#).expect("a valid rule");
    RuntimeTool::new(name, "Echo the text", schema, rule, move |arguments, _| {
        let calls = Arc::clone(&calls);
        async move {
            calls.fetch_add(1, Ordering::SeqCst);
            let text = arguments["text"].as_str().unwrap_or_default().to_owned();
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        }
    })
}

pub(crate) fn catalog(revision: u64, tools: Vec<RuntimeTool<TaskServer>>) -> Catalog<TaskServer> {
    Catalog::new("gen-1", revision, tools).expect("a valid catalog")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_eras_list_and_call_presented_names_over_http() {
    let controller = ProfileController::<TaskServer>::new(asking());
    let handler = TaskServer::default();
    let (http, uri) =
        mcp_profiles_tests::client::serve_http(controller.server(handler.clone())).await;
    let legacy = Session::connect(StreamableHttpClientTransport::from_uri(uri.clone())).await;
    let modern = ModernSession::connect(StreamableHttpClientTransport::from_uri(uri)).await;
    let mut events = modern.subscribe().await;
    let registered = async {
        while controller.session_count() != 2 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(LIMIT, registered)
        .await
        .expect("both sessions register");
    assert_eq!(legacy.tool_names().await, names_of(&asking()));

    // Attaching it changes the listed names: one list_changed per session.
    controller
        .set_presentation(questions())
        .expect("collision-free");
    expect_one_list_changed(&mut events).await;
    assert_eq!(legacy.wait_for_notifications(1, LIMIT).await, 1);
    let listed = presented(names_of(&asking()));
    assert!(listed.contains(&"ask_user".to_owned()), "{listed:?}");
    assert!(
        !listed.contains(&"ask_user_question".to_owned()),
        "{listed:?}"
    );
    assert_eq!(legacy.tool_names().await, listed);
    assert_eq!(modern.tool_names().await, listed);
    // The controller's own view lists what sessions list; profiles stay canonical.
    assert_eq!(controller.tools().len(), listed.len());
    assert!(controller.current().contains("ask_user_question"));

    // The presented name reaches the canonical tool, in both eras; so does
    // the canonical name itself.
    assert_eq!(
        legacy.call("ask_user", None).await,
        CallOutcome::Ran(vec![])
    );
    assert_eq!(
        modern.call("ask_user", None).await,
        CallOutcome::Ran(vec![])
    );
    assert_eq!(
        legacy.call("ask_user_question", None).await,
        CallOutcome::Ran(vec![])
    );
    assert_eq!(handler.calls("ask_user_question"), 3);
    // Tools without the suffix keep their names.
    assert!(matches!(
        legacy.call("list_tasks", None).await,
        CallOutcome::Ran(_)
    ));

    // Refusals name what the client sent.
    assert_eq!(modern.call("ask_parent", None).await, refused("ask_parent"));
    assert_eq!(legacy.call("ask_user_x", None).await, refused("ask_user_x"));

    // The kill switch speaks canonical names, and its refusal the sent one.
    let killed = DenyList::new(["ask_user_question"]).expect("a compiled tool");
    assert_eq!(controller.kill_switch().set(killed).replacements.len(), 1);
    expect_one_list_changed(&mut events).await;
    assert_eq!(modern.call("ask_user", None).await, disabled("ask_user"));
    assert_eq!(
        legacy.call("ask_user_question", None).await,
        disabled("ask_user_question")
    );
    assert_eq!(handler.calls("ask_user_question"), 3);
    let explained = controller.explain().to_string();
    assert!(explained.contains("ask_user_question"), "{explained}");

    // Detached: canonical names again, one more notification.
    controller.kill_switch().set(DenyList::empty());
    expect_one_list_changed(&mut events).await;
    controller.clear_presentation();
    expect_one_list_changed(&mut events).await;
    assert_eq!(modern.tool_names().await, names_of(&asking()));
    assert_eq!(legacy.call("ask_user", None).await, refused("ask_user"));
    tokio::time::sleep(QUIET).await;
    assert_eq!(modern.unsolicited(), 0);
    drop(http);
}

#[test]
fn a_presentation_that_shadows_a_compiled_tool_is_refused() {
    let expected = PresentationError::ShadowsTool {
        tool: "lookup_ext".into(),
        presented: "lookup".into(),
    };
    let ext = Presentation::strip_suffix("_ext").expect("a valid suffix");
    assert_eq!(ext.verify(Shadow::registry()), Err(expected.clone()));

    // Never on together, yet refused: a presented name means one tool in
    // every profile a session can be moved to.
    let controller =
        ProfileController::<Shadow>::new(mcp_profiles::ProfileContext::new(shadow::Surface::Shelf));
    let err = controller.set_presentation(ext).unwrap_err();
    assert_eq!(err, expected);
    let message = err.to_string();
    assert!(
        message.contains("`lookup_ext`") && message.contains("`lookup`"),
        "{message}"
    );
    assert_eq!(controller.presentation(), None);
    let names: Vec<String> = controller
        .tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["lookup_ext"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runtime_tool_colliding_under_the_presentation_is_refused_at_install() {
    let controller = ProfileController::<TaskServer>::new(asking());
    controller
        .set_presentation(questions())
        .expect("collision-free");
    let session = Session::connect(serve_duplex(controller.server(TaskServer::default()))).await;
    let listed = presented(names_of(&asking()));
    assert_eq!(session.tool_names().await, listed);
    let calls = Arc::new(AtomicUsize::new(0));

    // `ask_user` is what `ask_user_question` is listed as.
    let refusal = controller.install(&catalog(1, vec![echo("ask_user", &calls)]));
    assert_eq!(refusal.outcome, InstallOutcome::Refused);
    let err = refusal.refused.expect("the collision");
    assert_eq!(
        err,
        PresentationError::ShadowsTool {
            tool: "ask_user_question".into(),
            presented: "ask_user".into(),
        }
    );
    assert_eq!(refusal.notified_sessions, 0);
    assert!(controller.catalog().is_none());
    assert_eq!(session.tool_names().await, listed);

    // A runtime tool's own presented name may not be a compiled tool's name.
    let fine = controller.install(&catalog(1, vec![echo("poll_question", &calls)]));
    assert_eq!(fine.outcome, InstallOutcome::Installed);
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    let shadowing = catalog(2, vec![echo("list_tasks_question", &calls)]);
    let refusal = controller.install(&shadowing);
    assert_eq!(refusal.outcome, InstallOutcome::Refused);
    let message = refusal.refused.expect("the collision").to_string();
    assert!(
        message.contains("`list_tasks_question`") && message.contains("`list_tasks`"),
        "{message}"
    );
    // The store path refuses it too, and the whole replacement with it.
    let replaced = controller.replace_with_catalog(asking(), Some(shadowing));
    assert!(replaced.refused.is_some() && !replaced.changed());
    assert_eq!(controller.catalog().map(|c| c.revision()), Some(1));

    // The installed runtime tool is listed and called by its presented name.
    let mut with_poll = listed.clone();
    with_poll.push("poll".to_owned());
    with_poll.sort();
    assert_eq!(session.tool_names().await, with_poll);
    let answer = session.call("poll", Some(json!({"text": "hi"}))).await;
    assert_eq!(answer, CallOutcome::Ran(vec!["hi".to_owned()]));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    tokio::time::sleep(QUIET).await;
    assert_eq!(session.notifications(), 1);

    // The other order: a presentation colliding with the installed catalog
    // is refused at attach.
    let bare = ProfileController::<TaskServer>::new(asking());
    let installed = bare.install(&catalog(1, vec![echo("ask_user", &calls)]));
    assert_eq!(installed.outcome, InstallOutcome::Installed);
    let err = bare.set_presentation(questions()).unwrap_err();
    assert!(err.to_string().contains("`ask_user_question`"), "{err}");
    assert_eq!(bare.presentation(), None);
}
