//! A real rmcp client session that counts `notifications/tools/list_changed`
//! (and the prompt and resource lists' list_changed, each on its own).

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ErrorCode, JsonObject, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use rmcp::{ClientHandler, ServiceExt};
use tokio::sync::watch;

/// Counts list_changed notifications as they arrive, per list.
pub struct Recorder {
    count: watch::Sender<usize>,
    prompts: watch::Sender<usize>,
    resources: watch::Sender<usize>,
}

/// Which list a list_changed is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/prompts/list_changed`.
    Prompts,
    /// `notifications/resources/list_changed`.
    Resources,
}

impl ClientHandler for Recorder {
    // A 2025-era session: `initialize` handshake, unsolicited notifications.
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.count.send_modify(|count| *count += 1);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.prompts.send_modify(|count| *count += 1);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.resources.send_modify(|count| *count += 1);
    }
}

/// One connected client session.
pub struct Session {
    /// The running rmcp client.
    pub service: RunningService<RoleClient, Recorder>,
    count: watch::Receiver<usize>,
    prompts: watch::Receiver<usize>,
    resources: watch::Receiver<usize>,
}

/// How an outcome of `tools/call` looks to a test.
#[derive(Debug, PartialEq, Eq)]
pub enum CallOutcome {
    /// The handler ran; its text content.
    Ran(Vec<String>),
    /// A JSON-RPC error: code and message.
    Refused(i32, String),
}

impl Session {
    /// Connects a client over `transport` and completes the handshake.
    pub async fn connect<T, E, A>(transport: T) -> Self
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let (count, receiver) = watch::channel(0);
        let (prompts, prompts_receiver) = watch::channel(0);
        let (resources, resources_receiver) = watch::channel(0);
        let service = Recorder {
            count,
            prompts,
            resources,
        }
        .serve(transport)
        .await
        .expect("the MCP handshake succeeds");
        Session {
            service,
            count: receiver,
            prompts: prompts_receiver,
            resources: resources_receiver,
        }
    }

    fn counter(&self, list: List) -> &watch::Receiver<usize> {
        match list {
            List::Tools => &self.count,
            List::Prompts => &self.prompts,
            List::Resources => &self.resources,
        }
    }

    /// list_changed notifications about `list` received so far.
    pub fn notifications_of(&self, list: List) -> usize {
        *self.counter(list).borrow()
    }

    /// Waits until at least `n` notifications about `list` arrived, or
    /// `limit` passed; returns the count seen.
    pub async fn wait_for_notifications_of(&self, list: List, n: usize, limit: Duration) -> usize {
        let mut receiver = self.counter(list).clone();
        let _ = tokio::time::timeout(limit, receiver.wait_for(|count| *count >= n)).await;
        self.notifications_of(list)
    }

    /// Asserts that exactly `expected` list_changed notifications arrive
    /// per list: waits for each count (up to [`LIMIT`](crate::waits::LIMIT)),
    /// then for [`QUIET`](crate::waits::QUIET) to see that no more follow.
    pub async fn expect_exactly(&self, expected: &[(List, usize)]) {
        use crate::waits::{LIMIT, QUIET};
        for &(list, n) in expected {
            assert_eq!(
                self.wait_for_notifications_of(list, n, LIMIT).await,
                n,
                "{list:?}"
            );
        }
        tokio::time::sleep(QUIET).await;
        for &(list, n) in expected {
            assert_eq!(self.notifications_of(list), n, "{list:?}");
        }
    }

    /// Notifications received so far.
    pub fn notifications(&self) -> usize {
        *self.count.borrow()
    }

    /// Waits until at least `n` notifications arrived, or `limit` passed;
    /// returns the count seen.
    pub async fn wait_for_notifications(&self, n: usize, limit: Duration) -> usize {
        let mut receiver = self.count.clone();
        let _ = tokio::time::timeout(limit, receiver.wait_for(|count| *count >= n)).await;
        self.notifications()
    }

    /// The listed tool names, sorted.
    pub async fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .service
            .list_all_tools()
            .await
            .expect("tools/list succeeds")
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect();
        names.sort();
        names
    }

    /// Calls `tool` with `arguments` (an object, or nothing).
    pub async fn call(&self, tool: &str, arguments: Option<serde_json::Value>) -> CallOutcome {
        let params = call_params(tool, arguments);
        outcome(self.service.call_tool(params).await)
    }
}

/// The parameters of a `tools/call` of `tool` with `arguments` (an object,
/// or nothing).
pub fn call_params(tool: &str, arguments: Option<serde_json::Value>) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Some(serde_json::Value::Object(arguments)) = arguments {
        params = params.with_arguments(JsonObject::from_iter(arguments));
    }
    params
}

/// What a `tools/call` answered, as a test compares it; panics on a
/// failure outside MCP (a transport error).
pub fn outcome(answer: Result<CallToolResult, ServiceError>) -> CallOutcome {
    match answer {
        Ok(result) => CallOutcome::Ran(texts(&result)),
        Err(ServiceError::McpError(error)) => {
            CallOutcome::Refused(error.code.0, error.message.into_owned())
        }
        Err(other) => panic!("tools/call failed outside MCP: {other}"),
    }
}

fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect()
}

/// A streamable-HTTP client transport to `uri`, with `Authorization: Bearer
/// <token>` when a token is given.
pub fn http_transport(
    uri: &str,
    token: Option<&str>,
) -> rmcp::transport::StreamableHttpClientTransport<reqwest::Client> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut config = StreamableHttpClientTransportConfig::with_uri(uri.to_owned());
    if let Some(token) = token {
        config = config.auth_header(token.to_owned());
    }
    rmcp::transport::StreamableHttpClientTransport::from_config(config)
}

/// Serves `store`'s agents (each request with its bearer token's
/// principal's profile) over streamable HTTP on 127.0.0.1, with `handler`;
/// returns the server and its MCP endpoint, for [`http_transport`].
pub async fn serve_agents<S>(
    store: &std::sync::Arc<mcp_profiles_serve::ProfileStore<S>>,
    handler: S,
) -> (mcp_profiles_serve::http::HttpServer, String)
where
    S: mcp_profiles::Vocabulary + rmcp::ServerHandler,
{
    let http =
        mcp_profiles_serve::http::Serve::on("127.0.0.1:0".parse().expect("a socket address"))
            .agents(store, handler)
            .await
            .expect("127.0.0.1 binds");
    let uri = format!("http://{}/mcp", http.local_addr());
    (http, uri)
}

/// Serves `server` over streamable HTTP on 127.0.0.1; returns the server
/// and its MCP endpoint.
pub async fn serve_http<S>(
    server: mcp_profiles::ProfiledServer<S>,
) -> (mcp_profiles_serve::http::HttpServer, String)
where
    S: mcp_profiles::Vocabulary + rmcp::ServerHandler,
{
    let http =
        mcp_profiles_serve::http::Serve::on("127.0.0.1:0".parse().expect("a socket address"))
            .one(server)
            .await
            .expect("127.0.0.1 binds");
    let uri = format!("http://{}/mcp", http.local_addr());
    (http, uri)
}

/// The tool names a `search_tools` call answered, best first (tool
/// search's structured answer, as its text block carries it).
pub fn found_tools(outcome: &CallOutcome) -> Vec<String> {
    let CallOutcome::Ran(texts) = outcome else {
        panic!("the search ran: {outcome:?}")
    };
    let answer: serde_json::Value = serde_json::from_str(&texts[0]).expect("a JSON answer");
    answer["tools"]
        .as_array()
        .expect("a list of tools")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// `config` with MCP's grouping extension declared, for an rmcp client.
pub fn with_grouping_declared(mut config: rmcp::model::ClientConfig) -> rmcp::model::ClientConfig {
    let mut extensions = config.capabilities.extensions.take().unwrap_or_default();
    extensions.insert(
        mcp_profiles::GROUPING_EXTENSION.to_owned(),
        Default::default(),
    );
    config.capabilities.extensions = Some(extensions);
    config
}

/// Serves `server` over an in-process duplex pipe and returns the client's
/// end, for [`Session::connect`] (or any client) to take.
pub fn serve_duplex<S>(server: mcp_profiles::ProfiledServer<S>) -> tokio::io::DuplexStream
where
    S: mcp_profiles::Vocabulary + rmcp::ServerHandler,
{
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        let running = server.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    client_io
}

/// The -32602 refusal of a tool the operator's kill switch disabled.
pub fn disabled(tool: &str) -> CallOutcome {
    CallOutcome::Refused(
        ErrorCode::INVALID_PARAMS.0,
        format!("tool `{tool}` is disabled by the operator"),
    )
}

/// The -32602 refusal of a tool outside the profile.
pub fn refused(tool: &str) -> CallOutcome {
    CallOutcome::Refused(
        ErrorCode::INVALID_PARAMS.0,
        format!("tool `{tool}` is not available in the current profile"),
    )
}
