//! Every `ServerHandler` method `ProfiledServer` does not answer itself
//! reaches the wrapped handler with the arguments the client sent.
//!
//! A handler that records every non-tool method it is called with is served
//! through a `ProfileController` over an in-process duplex pipe; a real rmcp
//! client sends each request and notification, 2025-era ones on an
//! `initialize` session and 2026-07-28 ones (subscriptions, tasks, skills,
//! resource directories) on a `server/discover` session. The test ends by
//! comparing the set of methods the handler saw with the full expected list,
//! so a method dropped from the forwarding in `runtime/src/forward.rs` fails it.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use mcp_profiles::{ProfileContext, ProfileController, tool_group};
use mcp_profiles_tests::client::Session;
use rmcp::model::*;
use rmcp::service::{
    NotificationContext, RequestContext, RoleClient, RoleServer, RunningService,
    SubscriptionContext,
};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, ServerHandler, tool};
use serde_json::{Value, json};
use tokio::sync::watch;

/// How long a test waits for something that must happen.
const LIMIT: Duration = Duration::from_secs(10);

/// Every method the handler must see: the forwarded ones, and the overridden
/// ones `ProfiledServer` still consults.
const EXPECTED: [&str; 29] = [
    // Overridden, and they consult the handler.
    "initialize",
    "discover",
    "get_info",
    "negotiate_initialize",
    "on_initialized",
    "accepted_subscription_filter",
    "listen",
    // Forwarded.
    "ping",
    "supported_protocol_versions",
    "complete",
    "set_level",
    "get_prompt",
    "list_prompts",
    "list_resources",
    "list_resource_templates",
    "read_resource",
    "subscribe",
    "unsubscribe",
    "on_custom_request",
    "on_cancelled",
    "on_progress",
    "on_roots_list_changed",
    "on_custom_notification",
    "get_task",
    "update_task",
    "cancel_task",
    "list_skills",
    "get_skill",
    "read_resource_directory",
];

const SKILL_URI: &str = "skill://acme/billing/SKILL.md";

/// One call the handler received: the method and the arguments it saw.
type Call = (&'static str, Value);

/// A handler that records every non-tool `ServerHandler` call.
#[derive(Clone)]
pub struct Recording {
    calls: Arc<watch::Sender<Vec<Call>>>,
}

mcp_profiles::vocabulary! {
    server Recording;

    /// The one place the recording server runs.
    #[surfaces]
    pub enum Surface { Only }

    #[capabilities]
    pub enum Capability {}

    #[providers]
    pub enum Provider {}
}

impl Recording {
    fn new() -> Self {
        Recording {
            calls: Arc::new(watch::Sender::new(Vec::new())),
        }
    }

    fn record(&self, method: &'static str, arguments: Value) {
        self.calls
            .send_modify(|calls| calls.push((method, arguments)));
    }

    /// Waits until `method` was called; the arguments of each call.
    async fn calls_of(&self, method: &str) -> Vec<Value> {
        let mut calls = self.calls.subscribe();
        let seen = calls.wait_for(|calls| calls.iter().any(|(name, _)| *name == method));
        let calls = tokio::time::timeout(LIMIT, seen)
            .await
            .unwrap_or_else(|_| panic!("the handler never saw `{method}`"))
            .expect("the sender lives in the handler");
        calls
            .iter()
            .filter(|(name, _)| *name == method)
            .map(|(_, arguments)| arguments.clone())
            .collect()
    }

    /// Waits until `method` was called, and checks it was called once, with
    /// `arguments`.
    async fn saw(&self, method: &str, arguments: Value) {
        assert_eq!(self.calls_of(method).await, [arguments], "`{method}`");
    }

    /// The names of every method called so far.
    fn methods(&self) -> BTreeSet<&'static str> {
        self.calls.borrow().iter().map(|(name, _)| *name).collect()
    }
}

/// The profile needs one group; the test never calls it.
#[tool_group(surface = "only")]
impl Recording {
    #[tool(description = "Do nothing")]
    async fn noop(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn cursor(request: &Option<PaginatedRequestParams>) -> Value {
    json!(request.as_ref().and_then(|request| request.cursor.clone()))
}

fn skill() -> Skill {
    Skill::new(
        SKILL_URI,
        SkillFrontmatter::new("billing", "Issue invoices"),
        SkillResources::Dynamic,
    )
}

impl ServerHandler for Recording {
    fn get_info(&self) -> ServerConfig {
        self.record("get_info", Value::Null);
        #[allow(deprecated)] // logging: set_level is still a method to forward
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_tasks()
            .enable_skills_with_directory_read()
            .build();
        ServerConfig::new(capabilities)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.record("supported_protocol_versions", Value::Null);
        Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
    }

    async fn ping(&self, _context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.record("ping", Value::Null);
        Ok(())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.record("initialize", Value::Null);
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        self.record(
            "negotiate_initialize",
            json!({ "protocol_version": request.protocol_version.to_string() }),
        );
        Ok(self
            .get_info()
            .with_protocol_version(request.protocol_version.clone()))
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        self.record("discover", Value::Null);
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let Reference::Prompt(prompt) = &request.r#ref else {
            panic!("the test completes a prompt argument: {:?}", request.r#ref);
        };
        self.record(
            "complete",
            json!({ "prompt": prompt.name, "argument": request.argument.name, "value": request.argument.value }),
        );
        Ok(CompleteResult::default())
    }

    #[allow(deprecated)] // logging
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.record("set_level", json!(request.level));
        Ok(())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.record(
            "get_prompt",
            json!({ "name": request.name, "arguments": request.arguments }),
        );
        Ok(GetPromptResult::new(vec![]).into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.record("list_prompts", cursor(&request));
        Ok(ListPromptsResult::default())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.record("list_resources", cursor(&request));
        Ok(ListResourcesResult::default())
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.record("list_resource_templates", cursor(&request));
        Ok(ListResourceTemplatesResult::default())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.record("read_resource", json!(request.uri));
        let contents = ResourceContents::text("remember", request.uri);
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.record(
            "accepted_subscription_filter",
            json!(requested.resource_subscriptions),
        );
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.record("listen", json!(context.accepted().resource_subscriptions));
        context.cancelled().await;
        Ok(())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.record("subscribe", json!(request.uri));
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.record("unsubscribe", json!(request.uri));
        Ok(())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        self.record(
            "on_custom_request",
            json!({ "method": request.method, "params": request.params }),
        );
        Ok(CustomResult::new(json!({ "echo": request.params })))
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        self.record(
            "on_cancelled",
            json!({ "request_id": notification.request_id, "reason": notification.reason }),
        );
    }

    async fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        self.record(
            "on_progress",
            json!({
                "token": notification.progress_token.0,
                "progress": notification.progress,
                "total": notification.total,
                "message": notification.message,
            }),
        );
    }

    async fn on_initialized(&self, _context: NotificationContext<RoleServer>) {
        self.record("on_initialized", Value::Null);
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.record("on_roots_list_changed", Value::Null);
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleServer>,
    ) {
        self.record(
            "on_custom_notification",
            json!({ "method": notification.method, "params": notification.params }),
        );
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.record("get_task", json!(request.task_id));
        let now = "2026-07-28T00:00:00Z";
        let task = Task::new(request.task_id, TaskStatus::Working, now, now);
        Ok(GetTaskResult::new(DetailedTask::new(
            task,
            TaskPayload::Working,
        )))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.record(
            "update_task",
            json!({ "task_id": request.task_id, "input_responses": request.input_responses }),
        );
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.record("cancel_task", json!(request.task_id));
        Ok(())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.record("list_skills", cursor(&request));
        Ok(ListSkillsResult::with_all_items(vec![skill()]))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.record("get_skill", json!(request.uri));
        Ok(GetSkillResult::new(skill()))
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.record(
            "read_resource_directory",
            json!({ "uri": request.uri, "cursor": request.cursor }),
        );
        Ok(ReadResourceDirectoryResult::default())
    }
}

/// A client that declares the tasks extension, which `tasks/*` requires.
struct ModernClient;

impl ClientHandler for ModernClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("forwarding-test", "1.0.0"),
        )
    }
}

/// Serves `handler` through a fresh controller's `ProfiledServer` over a
/// duplex pipe; the client's end of the pipe.
fn serve(handler: &Recording) -> tokio::io::DuplexStream {
    let controller = ProfileController::<Recording>::new(ProfileContext::new(Surface::Only));
    let server = controller.server(handler.clone());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
        // The controller lives as long as the session it serves.
        drop(controller);
    });
    client_io
}

async fn legacy_session(handler: &Recording) -> Session {
    Session::connect(serve(handler)).await
}

async fn modern_session(handler: &Recording) -> RunningService<RoleClient, ModernClient> {
    ModernClient
        .serve_with_lifecycle(
            serve(handler),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("the discover lifecycle succeeds")
}

fn page(cursor: &str) -> Option<PaginatedRequestParams> {
    Some(PaginatedRequestParams::default().with_cursor(Some(cursor.to_owned())))
}

/// Requests and notifications of the `initialize` lifecycle.
async fn exercise_legacy(handler: &Recording) {
    let session = legacy_session(handler).await;
    let client = &session.service;
    assert_eq!(session.tool_names().await, ["noop"]);
    handler
        .saw(
            "negotiate_initialize",
            json!({ "protocol_version": ProtocolVersion::LATEST_WITH_INITIALIZE.to_string() }),
        )
        .await;
    handler.saw("on_initialized", Value::Null).await;

    client
        .send_request(ClientRequest::PingRequest(PingRequest::default()))
        .await
        .expect("ping");
    handler.saw("ping", Value::Null).await;

    let argument = ArgumentInfo::new("customer", "ac");
    client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("invoice"),
            argument,
        ))
        .await
        .expect("completion/complete");
    handler
        .saw(
            "complete",
            json!({ "prompt": "invoice", "argument": "customer", "value": "ac" }),
        )
        .await;

    #[allow(deprecated)] // logging
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .expect("logging/setLevel");
    handler.saw("set_level", json!("warning")).await;

    let arguments = JsonObject::from_iter([("customer".to_owned(), json!("acme"))]);
    client
        .get_prompt(GetPromptRequestParams::new("invoice").with_arguments(arguments))
        .await
        .expect("prompts/get");
    handler
        .saw(
            "get_prompt",
            json!({ "name": "invoice", "arguments": { "customer": "acme" } }),
        )
        .await;

    client.list_prompts(page("prompts-2")).await.unwrap();
    handler.saw("list_prompts", json!("prompts-2")).await;
    client.list_resources(page("resources-2")).await.unwrap();
    handler.saw("list_resources", json!("resources-2")).await;
    client
        .list_resource_templates(page("templates-2"))
        .await
        .unwrap();
    handler
        .saw("list_resource_templates", json!("templates-2"))
        .await;
    client
        .read_resource(ReadResourceRequestParams::new("memo://read"))
        .await
        .expect("resources/read");
    handler.saw("read_resource", json!("memo://read")).await;

    #[allow(deprecated)] // legacy-only resource subscriptions
    {
        client
            .subscribe(SubscribeRequestParams::new("memo://watched"))
            .await
            .expect("resources/subscribe");
        client
            .unsubscribe(UnsubscribeRequestParams::new("memo://watched"))
            .await
            .expect("resources/unsubscribe");
    }
    handler.saw("subscribe", json!("memo://watched")).await;
    handler.saw("unsubscribe", json!("memo://watched")).await;

    let params = json!({ "invoice": 7 });
    client
        .send_request(ClientRequest::CustomRequest(CustomRequest::new(
            "acme/echo",
            Some(params.clone()),
        )))
        .await
        .expect("a custom request");
    handler
        .saw(
            "on_custom_request",
            json!({ "method": "acme/echo", "params": params }),
        )
        .await;

    exercise_notifications(client).await;
    handler
        .saw(
            "on_cancelled",
            json!({ "request_id": 77, "reason": "the user gave up" }),
        )
        .await;
    handler
        .saw(
            "on_progress",
            json!({ "token": "upload-1", "progress": 0.5, "total": 2.0, "message": "halfway" }),
        )
        .await;
    handler.saw("on_roots_list_changed", Value::Null).await;
    handler
        .saw(
            "on_custom_notification",
            json!({ "method": "notifications/acme/poke", "params": { "invoice": 7 } }),
        )
        .await;
}

async fn exercise_notifications(client: &rmcp::service::Peer<RoleClient>) {
    client
        .notify_cancelled(CancelledNotificationParam::new(
            Some(RequestId::Number(77)),
            Some("the user gave up".to_owned()),
        ))
        .await
        .expect("notifications/cancelled");
    let token = ProgressToken(NumberOrString::String("upload-1".into()));
    client
        .notify_progress(
            ProgressNotificationParam::new(token, 0.5)
                .with_total(2.0)
                .with_message("halfway"),
        )
        .await
        .expect("notifications/progress");
    client
        .notify_roots_list_changed()
        .await
        .expect("notifications/roots/list_changed");
    client
        .send_notification(ClientNotification::CustomNotification(
            CustomNotification::new("notifications/acme/poke", Some(json!({ "invoice": 7 }))),
        ))
        .await
        .expect("a custom notification");
}

/// Requests only the 2026-07-28 lifecycle has.
async fn exercise_modern(handler: &Recording) {
    let client = modern_session(handler).await;

    let filter = SubscriptionFilter::builder()
        .tools_list_changed()
        .resource_subscription("memo://watched")
        .build();
    let mut subscription = client.listen(filter).await.expect("subscriptions/listen");
    // The handler's filter and ProfiledServer's both count.
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));
    assert_eq!(
        subscription.acknowledged().resource_subscriptions,
        Some(vec!["memo://watched".to_owned()])
    );
    handler
        .saw("accepted_subscription_filter", json!(["memo://watched"]))
        .await;
    handler.saw("listen", json!(["memo://watched"])).await;
    subscription.cancel().await.expect("the stream closes");

    let task = client
        .get_task(GetTaskParams::new("task-9"))
        .await
        .expect("tasks/get");
    assert_eq!(task.task.task.task_id, "task-9");
    handler.saw("get_task", json!("task-9")).await;
    let responses = InputResponses::from([("question-1".to_owned(), json!({ "answer": "yes" }))]);
    client
        .update_task(UpdateTaskParams::new("task-9", responses))
        .await
        .expect("tasks/update");
    handler.saw("update_task", json!({ "task_id": "task-9", "input_responses": { "question-1": { "answer": "yes" } } })).await;
    client
        .cancel_task(CancelTaskParams::new("task-9"))
        .await
        .expect("tasks/cancel");
    handler.saw("cancel_task", json!("task-9")).await;

    let skills = client
        .list_skills(page("skills-2"))
        .await
        .expect("skills/list");
    assert_eq!(skills.skills, [skill()]);
    handler.saw("list_skills", json!("skills-2")).await;
    client
        .get_skill(GetSkillRequestParams::new(SKILL_URI))
        .await
        .expect("skills/get");
    handler.saw("get_skill", json!(SKILL_URI)).await;
    client
        .read_resource_directory(
            ReadResourceDirectoryRequestParams::new("skill://acme/billing/")
                .with_cursor("entries-2"),
        )
        .await
        .expect("resources/directory/read");
    handler
        .saw(
            "read_resource_directory",
            json!({ "uri": "skill://acme/billing/", "cursor": "entries-2" }),
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_method_profiled_server_does_not_answer_reaches_the_handler() {
    let handler = Recording::new();
    exercise_legacy(&handler).await;
    exercise_modern(&handler).await;

    let expected: BTreeSet<&str> = EXPECTED.into_iter().collect();
    assert_eq!(expected.len(), EXPECTED.len(), "EXPECTED repeats a method");
    assert_eq!(
        handler.methods(),
        expected,
        "the methods the handler saw differ from the expected list"
    );
}
