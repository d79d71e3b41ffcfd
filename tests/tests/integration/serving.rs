//! A live profiled server over real transports, driven by real rmcp clients:
//! in-process duplex, a child process over stdio, and streamable HTTP on
//! 127.0.0.1 with two concurrent sessions. The same scenarios run on each.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mcp_profiles::{ProfileContext, ProfileController};
use mcp_profiles_tests::client::{CallOutcome, Session, refused, serve_duplex};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::{Capability, Provider, Surface, TaskServer};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

type Context = ProfileContext<TaskServer>;

/// How long a test waits for something that must happen.
const LIMIT: Duration = Duration::from_secs(10);
/// How long a test waits to be sure something does not happen.
const QUIET: Duration = Duration::from_millis(500);

/// The backend side of a scenario, whatever process the server lives in.
trait Backend: Clone + Send + Sync + 'static {
    /// Replaces the profile; whether the tool set changed.
    fn replace(&self, context: Context) -> impl Future<Output = bool> + Send;
    /// How often `tool`'s handler ran.
    fn calls(&self, tool: &str) -> impl Future<Output = usize> + Send;
    /// The context in force.
    fn current(&self) -> impl Future<Output = Context> + Send;
}

/// The server lives in this process.
#[derive(Clone)]
struct InProcess {
    controller: ProfileController<TaskServer>,
    handler: TaskServer,
}

impl InProcess {
    fn new(initial: Context) -> Self {
        InProcess {
            controller: ProfileController::new(initial),
            handler: TaskServer::default(),
        }
    }
}

impl Backend for InProcess {
    async fn replace(&self, context: Context) -> bool {
        self.controller.replace(context).changed()
    }

    async fn calls(&self, tool: &str) -> usize {
        self.handler.calls(tool)
    }

    async fn current(&self) -> Context {
        *self.controller.current().context()
    }
}

/// The server is a child process; its backend is reached over a line protocol.
#[derive(Clone)]
struct Child {
    control_port: u16,
}

impl Child {
    async fn ask(&self, line: String) -> String {
        let stream = TcpStream::connect(("127.0.0.1", self.control_port))
            .await
            .expect("the child's control port accepts");
        let (read, mut write) = stream.into_split();
        write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        let mut answer = String::new();
        BufReader::new(read).read_line(&mut answer).await.unwrap();
        answer.trim_end().to_owned()
    }
}

impl Backend for Child {
    async fn replace(&self, context: Context) -> bool {
        let answer = self.ask(format!("replace {}", context.to_json())).await;
        answer.starts_with("changed true")
    }

    async fn calls(&self, tool: &str) -> usize {
        let answer = self.ask(format!("calls {tool}")).await;
        answer.trim_start_matches("calls ").parse().expect(&answer)
    }

    async fn current(&self) -> Context {
        let answer = self.ask("current".to_owned()).await;
        Context::from_json(answer.trim_start_matches("current ")).expect(&answer)
    }
}

/// Initial list, one notification per effective replacement, refusal of
/// removed tools, added tools working, and silence for an equal profile.
async fn replace_and_refuse(backend: &impl Backend, sessions: &[Session]) {
    for session in sessions {
        assert_eq!(session.tool_names().await, names_of(&asking()));
    }
    let ran = CallOutcome::Ran(vec![]);
    assert_eq!(sessions[0].call("ask_user_question", None).await, ran);
    assert_eq!(backend.calls("ask_user_question").await, 1);

    assert!(backend.replace(child()).await);
    for session in sessions {
        assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    }
    tokio::time::sleep(QUIET).await;
    for session in sessions {
        assert_eq!(session.notifications(), 1, "a second list_changed arrived");
        assert_eq!(session.tool_names().await, names_of(&child()));
        assert_eq!(
            session.call("ask_user_question", None).await,
            refused("ask_user_question")
        );
        assert_eq!(session.call("ask_parent_question", None).await, ran);
    }
    assert_eq!(
        backend.calls("ask_user_question").await,
        1,
        "a refused call ran"
    );
    assert_eq!(backend.calls("ask_parent_question").await, sessions.len());

    // The same profile again, and a different context with the same tools.
    assert!(!backend.replace(child()).await);
    let same_tools = child().with_provider(Provider::GitLab);
    assert!(!backend.replace(same_tools).await);
    tokio::time::sleep(QUIET).await;
    for session in sessions {
        assert_eq!(session.notifications(), 1, "an unchanged tool set notified");
    }
}

/// 100 replacements from several tasks while calls run: the last profile is
/// in force, each session got one notification per effective replacement,
/// and no refused call ran.
async fn replacement_storm(backend: &impl Backend, sessions: Arc<Vec<Session>>) {
    let before: Vec<usize> = sessions.iter().map(Session::notifications).collect();
    let runs_before = backend.calls("ask_user_question").await;
    let contexts = [
        asking(),
        child(),
        asking().with_provider(Provider::Github),
        child().with_capability(Capability::TaskTitle).unwrap(),
    ];
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let callers: Vec<_> = (0..sessions.len())
        .map(|index| {
            let (sessions, done) = (Arc::clone(&sessions), Arc::clone(&done));
            tokio::spawn(async move {
                let (mut ran, mut refusals) = (0usize, 0usize);
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    match sessions[index].call("ask_user_question", None).await {
                        CallOutcome::Ran(_) => ran += 1,
                        outcome => {
                            assert_eq!(outcome, refused("ask_user_question"));
                            refusals += 1;
                        }
                    }
                }
                (ran, refusals)
            })
        })
        .collect();
    let replacers: Vec<_> = (0..4)
        .map(|task| {
            let backend = backend.clone();
            tokio::spawn(async move {
                let mut changed = 0;
                for step in 0..25 {
                    let context = contexts[(task + step) % contexts.len()];
                    changed += usize::from(backend.replace(context).await);
                    tokio::task::yield_now().await;
                }
                changed
            })
        })
        .collect();
    let mut effective = 0;
    for replacer in replacers {
        effective += replacer.await.unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut ran = 0;
    for caller in callers {
        let (ran_here, _) = caller.await.unwrap();
        ran += ran_here;
    }
    assert!(effective > 0);

    let expected: Vec<usize> = before.iter().map(|count| count + effective).collect();
    for (session, expected) in sessions.iter().zip(&expected) {
        assert_eq!(
            session.wait_for_notifications(*expected, LIMIT).await,
            *expected
        );
    }
    assert_settled(&sessions, &expected).await;
    let current = backend.current().await;
    for session in sessions.iter() {
        assert_eq!(session.tool_names().await, names_of(&current));
    }
    assert_eq!(
        backend.calls("ask_user_question").await - runs_before,
        ran,
        "every run of the handler is a call that succeeded, and no refused call ran"
    );
}

/// Asserts each session's notification count stays at `expected` for `QUIET`.
async fn assert_settled(sessions: &[Session], expected: &[usize]) {
    tokio::time::sleep(QUIET).await;
    let counts: Vec<usize> = sessions.iter().map(Session::notifications).collect();
    assert_eq!(counts, expected, "notifications doubled after settling");
}

async fn duplex_session(backend: &InProcess) -> Session {
    let server = backend.controller.server(backend.handler.clone());
    Session::connect(serve_duplex(server)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplex_replacement_notifies_once_and_refuses_removed_tools() {
    let backend = InProcess::new(asking());
    let sessions = vec![duplex_session(&backend).await];
    replace_and_refuse(&backend, &sessions).await;
    let sessions = Arc::new(sessions);
    replacement_storm(&backend, Arc::clone(&sessions)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_two_sessions_each_get_one_notification_per_replacement() {
    let backend = InProcess::new(asking());
    let server = backend.controller.server(backend.handler.clone());
    let (http, uri) = mcp_profiles_tests::client::serve_http(server).await;
    let sessions = vec![
        Session::connect(StreamableHttpClientTransport::from_uri(uri.clone())).await,
        Session::connect(StreamableHttpClientTransport::from_uri(uri)).await,
    ];
    replace_and_refuse(&backend, &sessions).await;
    let sessions = Arc::new(sessions);
    replacement_storm(&backend, Arc::clone(&sessions)).await;
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_process_over_stdio() {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_task-server"));
    command.arg(asking().to_json());
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let mut stderr = BufReader::new(stderr.expect("stderr is piped")).lines();
    let first = stderr
        .next_line()
        .await
        .unwrap()
        .expect("the child announces its port");
    let control_port = first
        .strip_prefix("control ")
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line: {first}"));
    let backend = Child { control_port };
    let sessions = vec![Session::connect(transport).await];
    replace_and_refuse(&backend, &sessions).await;
    let sessions = Arc::new(sessions);
    replacement_storm(&backend, Arc::clone(&sessions)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_call_finishes_on_the_snapshot_it_started_with() {
    let backend = InProcess::new(asking());
    let session = Arc::new(duplex_session(&backend).await);
    let running = {
        let session = Arc::clone(&session);
        tokio::spawn(async move { session.call("wait_for_release", None).await })
    };
    // Wait until the handler is inside the call.
    let started = backend
        .handler
        .wait_for_calls("wait_for_release_started", 1);
    tokio::time::timeout(LIMIT, started)
        .await
        .expect("the call starts");

    let configuration = Context::new(Surface::Configuration);
    assert!(backend.replace(configuration).await);
    assert_eq!(session.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(
        session.call("wait_for_release", None).await,
        refused("wait_for_release")
    );
    backend.handler.release(1);
    assert_eq!(running.await.unwrap(), CallOutcome::Ran(vec![]));
    assert_eq!(backend.handler.calls("wait_for_release"), 1);
}

/// What `#[tool_handler]` expands to over the task server's `kanban-task`
/// routes: rmcp's own `ToolRouter::call`.
struct RoutedByRmcp {
    router: rmcp::handler::server::router::tool::ToolRouter<TaskServer>,
    tasks: TaskServer,
}

impl rmcp::ServerHandler for RoutedByRmcp {
    fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> impl Future<Output = Result<rmcp::model::CallToolResponse, rmcp::ErrorData>> + Send + '_
    {
        let call = rmcp::handler::server::tool::ToolCallContext::new(&self.tasks, request, context);
        self.router.call(call)
    }
}

/// The layer calls a tool's route itself, not through rmcp's router: its
/// answers are still the router's, arguments that do not deserialize
/// included (the tool's error result, which the model can correct, not a
/// JSON-RPC error).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_answers_as_rmcp_s_router_does() {
    use mcp_profiles::Vocabulary;
    use rmcp::ServiceExt;

    let group = TaskServer::registry().group("kanban-task").unwrap();
    let mut router = rmcp::handler::server::router::tool::ToolRouter::new();
    for route in group.routes() {
        router.add_route(route);
    }
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let plain = RoutedByRmcp {
        router,
        tasks: TaskServer::default(),
    };
    tokio::spawn(async move {
        let running = plain.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    let plain = Session::connect(client_io).await;
    let backend = InProcess::new(asking());
    let profiled = duplex_session(&backend).await;
    async fn answer(
        session: &Session,
        arguments: serde_json::Value,
    ) -> Result<serde_json::Value, serde_json::Value> {
        let params = mcp_profiles_tests::client::call_params("list_tasks", Some(arguments));
        match session.service.call_tool(params).await {
            Ok(result) => Ok(serde_json::to_value(result).unwrap()),
            Err(rmcp::ServiceError::McpError(error)) => Err(serde_json::to_value(error).unwrap()),
            Err(other) => panic!("tools/call failed outside MCP: {other}"),
        }
    }
    for arguments in [
        serde_json::json!({"workflow_id": "w1"}),
        serde_json::json!({"workflow_id": 7}),
        serde_json::json!({}),
    ] {
        let expected = answer(&plain, arguments.clone()).await;
        assert_eq!(
            answer(&profiled, arguments.clone()).await,
            expected,
            "{arguments}"
        );
        if arguments == serde_json::json!({}) {
            let text = expected.unwrap()["content"][0]["text"].to_string();
            assert!(text.contains("failed to deserialize parameters"), "{text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_sessions_are_forgotten() {
    let backend = InProcess::new(asking());
    let first = duplex_session(&backend).await;
    let second = duplex_session(&backend).await;
    let third = duplex_session(&backend).await;
    assert_eq!(backend.controller.session_count(), 3);

    second.service.cancel().await.unwrap();
    let forgotten = async {
        while backend.controller.session_count() != 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(LIMIT, forgotten)
        .await
        .expect("the closed session is forgotten");

    let change = backend.controller.replace(child());
    assert_eq!(change.notified_sessions, 2);
    assert_eq!(first.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(third.wait_for_notifications(1, LIMIT).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_advertises_list_changed_and_keeps_the_handlers_info() {
    let backend = InProcess::new(asking());
    let session = duplex_session(&backend).await;
    let info = session.service.peer_info().expect("initialised");
    let server = info.server_info.as_ref().expect("server info");
    assert_eq!(server.name, "task-server");
    let tools = info.capabilities.tools.clone().expect("tools capability");
    assert_eq!(tools.list_changed, Some(true));
}
