//! [`ProfiledServer`]: a user's rmcp handler, served with the tools of the
//! current profile and nothing else.

use std::borrow::Cow;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::Extensions;
use rmcp::model::*;
use rmcp::service::{
    MaybeSendFuture, NotificationContext, RequestContext, RoleServer, SubscriptionContext,
};
use rmcp::{ErrorData, ServerHandler};

mod groups;

use self::groups::{answered, serves_grouping};
use crate::clipped::Clipped;
use crate::controller::{Cell, Current};
use crate::disclosure::Activated;
use crate::dispatch;
use crate::exposure::Listed;
use crate::forward::forward_to_handler;
use crate::grouping;
use crate::listening::Listening;
use crate::notification::{Kinds, SessionGuard, Stream, changes_so_far};
use crate::search::{Meta, proxied_request};
use crate::telemetry::{self, CallSpan, Refusal};
use crate::{
    CallDecision, DecisionSink, ProfileController, ProfileResolver, Vocabulary, prompts, resources,
};
use rmcp::handler::server::router::tool::ToolRoute;

/// Serves handler `S` with the tools of its controller's current profile.
///
/// - `tools/list` answers from the current snapshot, built once per tool set;
/// - `tools/call` dispatches only to tools in that snapshot; any other name
///   fails with JSON-RPC error -32602 saying the tool is not available in the
///   current profile (or, for a tool only the operator's
///   [`KillSwitch`](crate::KillSwitch) removed, that the operator disabled
///   it), and no handler runs;
/// - `initialize` advertises `tools.listChanged: true`, and every initialised
///   session is sent one `notifications/tools/list_changed` per replacement
///   that changes the tool set;
/// - under a [`Presentation`](crate::Presentation) attached to the
///   controller, `tools/list` shows presented names and `tools/call` takes
///   a presented name or a canonical one; refusals name what was sent;
/// - the runtime tools of an installed catalog (feature `runtime-tools`) that
///   the context enables join both, their arguments checked against their
///   input schema before their handler runs;
/// - when `S` has prompt groups (`#[prompt_group]`), `prompts/list` and
///   `prompts/get` answer from the profile's prompts only: a prompt outside
///   it fails with -32602 and no handler runs; `initialize` advertises
///   `prompts.listChanged: true`, and a replacement that changes the
///   visible prompts sends one `notifications/prompts/list_changed`;
/// - likewise, when `S` has resource groups (`#[resource_group]`),
///   `resources/list`, `resources/templates/list`, `resources/read` and
///   `resources/subscribe` answer from the profile's resources only (a URI
///   outside it: -32002, resource not found), with
///   `notifications/resources/list_changed`; a subscription to a visible
///   resource is `S`'s own `subscribe`;
/// - everything else (server info, and prompts or resources when `S` has
///   no such groups, ...) is `S`'s own.
///
/// Made by [`ProfileController::server`](crate::ProfileController::server)
/// or [`ProfiledServer::resolving`]. One value serves one session: a
/// transport's service factory makes each further one with
/// [`new_session`](Self::new_session), which shares the handler and the
/// profile (`Clone` does the same, under a name that hides it). `S`
/// implements `ServerHandler` for the non-tool parts, without
/// `#[tool_handler]`: the tools are the registry's.
pub struct ProfiledServer<S: Vocabulary> {
    /// What every session of this server shares; one pointer, so a session
    /// costs rmcp no more than the bare handler would.
    shared: Arc<Shared<S>>,
    /// Set at `initialize`; dropping it forgets the session.
    session: OnceLock<SessionGuard>,
    /// Where the `subscriptions/listen` streams being established start
    /// counting changes.
    listening: Listening,
    /// The groups this session activated, under progressive disclosure.
    activated: Activated,
}

impl<S: Vocabulary> std::fmt::Debug for ProfiledServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let profile = match &self.shared.source {
            Source::Single(cell) => Some(*cell.current().profile.context()),
            Source::Resolver(_) => None,
        };
        f.debug_struct("ProfiledServer")
            .field(
                "profile",
                &profile.map_or_else(|| "per request".to_owned(), |c| c.to_string()),
            )
            .field("initialized", &self.session.get().is_some())
            .finish_non_exhaustive()
    }
}

struct Shared<S: Vocabulary> {
    handler: S,
    source: Source<S>,
}

/// Where each request's profile comes from.
enum Source<S: Vocabulary> {
    /// One agent: every request reads the same cell.
    Single(Arc<Cell<S>>),
    /// Many agents: the serving layer's resolver picks the cell.
    Resolver(Arc<dyn ProfileResolver<S>>),
}

/// A server for one more session, as [`ProfiledServer::new_session`].
impl<S: Vocabulary> Clone for ProfiledServer<S> {
    fn clone(&self) -> Self {
        ProfiledServer {
            shared: Arc::clone(&self.shared),
            session: OnceLock::new(),
            listening: Listening::default(),
            activated: Activated::default(),
        }
    }
}

impl<S: Vocabulary> ProfiledServer<S> {
    fn with_source(handler: S, source: Source<S>) -> Self {
        ProfiledServer {
            shared: Arc::new(Shared { handler, source }),
            session: OnceLock::new(),
            listening: Listening::default(),
            activated: Activated::default(),
        }
    }

    pub(crate) fn new(handler: S, cell: Arc<Cell<S>>) -> Self {
        Self::with_source(handler, Source::Single(cell))
    }

    /// A server for many agents: each request is served with the profile
    /// `resolver` finds for it (see [`ProfileResolver`]); a request it
    /// refuses gets its error and reaches no handler.
    ///
    /// Like every `ProfiledServer`, each clone is a fresh session sharing
    /// the handler and the resolver.
    pub fn resolving(handler: S, resolver: Arc<dyn ProfileResolver<S>>) -> Self {
        Self::with_source(handler, Source::Resolver(resolver))
    }

    /// The cell serving a request: the only one, or the one the resolver
    /// finds (looked up per request, as MCP 2026-07-28 allows). Borrowed
    /// for a single agent, so the hot path takes no reference count.
    fn cell(&self, extensions: &Extensions) -> Result<Cow<'_, Arc<Cell<S>>>, ErrorData> {
        match &self.shared.source {
            Source::Single(cell) => Ok(Cow::Borrowed(cell)),
            Source::Resolver(resolver) => resolver
                .resolve(extensions)
                .map(|handle| Cow::Owned(handle.cell)),
        }
    }

    /// The route and meter of the compiled tool `name` the request's
    /// profile serves now (`None` when it serves none of that name, or the
    /// resolver finds no profile for it); plain references, as snapshots
    /// live as long as the process.
    #[inline]
    fn compiled(&self, extensions: &Extensions, name: &str) -> Option<Compiled<S>> {
        match &self.shared.source {
            Source::Single(cell) => compiled_in(cell, name),
            Source::Resolver(_) => compiled_in(self.cell(extensions).ok()?.as_ref(), name),
        }
    }

    /// The context a call is served on and the exposure of the tools it
    /// is decided under, for its span (asked only with metrics, when a
    /// subscriber listens).
    fn served_of(&self, extensions: &Extensions) -> Option<telemetry::Served<S>> {
        let cell = match &self.shared.source {
            Source::Single(cell) => Cow::Borrowed(cell),
            // Resolved again, only for a span a subscriber listens to.
            Source::Resolver(resolver) => Cow::Owned(resolver.resolve(extensions).ok()?.cell),
        };
        let current = cell.current();
        Some((
            *current.profile.context(),
            Some(current.exposure(Listed::Tools)),
        ))
    }

    /// A server for one more session: the same handler and profile (or
    /// resolver), its own session state.
    pub fn new_session(&self) -> Self {
        self.clone()
    }

    /// The wrapped handler.
    pub fn handler(&self) -> &S {
        &self.shared.handler
    }
}

/// Serving a controller's profile.
impl<S: Vocabulary> ProfileController<S> {
    /// A server for one handler, serving this controller's profile. Clone it
    /// (or call this again) for every further session; all of them share the
    /// profile.
    ///
    /// `S` serves everything but tools (server info, prompts, resources, ...)
    /// as an ordinary rmcp `ServerHandler`, without `#[tool_handler]`.
    pub fn server(&self, handler: S) -> ProfiledServer<S>
    where
        S: rmcp::ServerHandler,
    {
        ProfiledServer::new(handler, Arc::clone(self.cell()))
    }
}

/// A compiled tool's route and metric handles.
type Compiled<S> = (&'static ToolRoute<S>, telemetry::Meter);

/// The compiled tool `name` of what `cell` serves now: one plain atomic
/// load of the snapshot, unless call decisions are logged
/// ([`logged_in`]).
#[inline]
fn compiled_in<S: Vocabulary>(cell: &Cell<S>, name: &str) -> Option<Compiled<S>> {
    if let Some(sink) = cell.decisions.get() {
        return logged_in(cell, sink.as_ref(), name);
    }
    let tools = cell.compiled();
    let position = tools.position(name)?;
    Some((tools.route(position), tools.meter(position)))
}

/// [`compiled_in`] with the decision told to `sink`: the tools and the
/// revision read from one state, so the revision logged is the one the
/// call runs under. A miss is left to `call_elsewhere`, which decides it.
#[inline(never)]
fn logged_in<S: Vocabulary>(
    cell: &Cell<S>,
    sink: &dyn DecisionSink,
    name: &str,
) -> Option<Compiled<S>> {
    let current = cell.current();
    let tools = current.tools;
    let position = tools.position(name)?;
    sink.decided(CallDecision::new(name, current.revision, None));
    Some((tools.route(position), tools.meter(position)))
}

/// The kinds of list `S`'s profiles decide: tools always, prompts and
/// resources when `S` has groups of them.
fn served_kinds<S: Vocabulary>() -> Kinds {
    let registry = S::registry();
    Kinds::TOOLS
        .with(Kinds::PROMPTS, !registry.prompts().is_empty())
        .with(Kinds::RESOURCES, !registry.resources().is_empty())
}

/// Adds `listChanged: true` for every kind `S`'s profiles decide, keeping
/// whatever else the handler set.
fn advertise_tools<S: Vocabulary>(capabilities: &mut ServerCapabilities) {
    let mut tools = capabilities.tools.take().unwrap_or_default();
    tools.list_changed = Some(true);
    capabilities.tools = Some(tools);
    let kinds = served_kinds::<S>();
    if kinds.contains(Kinds::PROMPTS) {
        let mut prompts = capabilities.prompts.take().unwrap_or_default();
        prompts.list_changed = Some(true);
        capabilities.prompts = Some(prompts);
    }
    if kinds.contains(Kinds::RESOURCES) {
        let mut resources = capabilities.resources.take().unwrap_or_default();
        resources.list_changed = Some(true);
        capabilities.resources = Some(resources);
    }
}

/// The kinds of list a `subscriptions/listen` filter asks for.
fn requested_kinds(filter: &SubscriptionFilter) -> Kinds {
    Kinds::NONE
        .with(Kinds::TOOLS, filter.tools_list_changed == Some(true))
        .with(Kinds::PROMPTS, filter.prompts_list_changed == Some(true))
        .with(
            Kinds::RESOURCES,
            filter.resources_list_changed == Some(true),
        )
}

/// A call through tool search's proxy: the direct call it stands for.
type ProxiedCall<'a> =
    std::pin::Pin<Box<dyn Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'a>>;

/// The error for a tool outside the current profile.
fn not_in_profile(name: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "tool `{}` is not available in the current profile",
            Clipped(name)
        ),
        None,
    )
}

/// The error for a tool the profile would serve but for the operator's
/// kill switch.
fn disabled_by_operator(name: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("tool `{}` is disabled by the operator", Clipped(name)),
        None,
    )
}

impl<S: Vocabulary + ServerHandler> ProfiledServer<S> {
    /// A call that is not to a compiled tool of the snapshot `call_tool`
    /// loaded: a runtime tool, or a refusal. It loads the snapshot again and
    /// decides on that one alone, so a replacement in between gives the
    /// outcome of a call made after it.
    async fn call_elsewhere(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let cell = self.cell(&context.extensions)?;
        let current = cell.current();
        let sink = cell.decisions.get().cloned();
        // A call of the activation tool: its disclosure, taken only then.
        let activation = cell
            .disclosure()
            .filter(|disclosure| request.name == disclosure.tool_name())
            .cloned();
        drop(cell);
        // Each decision below, told to the decision log and the call's
        // span, on the state it was decided on; why a call was refused is
        // worked out once, and only if one of them listens.
        let decide = |tool: &str, refused: &dyn Fn() -> Option<&'static str>| {
            let once = std::cell::OnceCell::new();
            let refused = || *once.get_or_init(refused);
            if let Some(sink) = &sink {
                sink.decided(CallDecision::new(tool, current.revision, refused()));
            }
            telemetry::decided(refused);
        };
        if let Some(disclosure) = activation {
            let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
            let (added, held) = self
                .activate(&disclosure, &current, &arguments, &context)
                .await?;
            let answer = serde_json::json!({ "activated": added });
            let mut result = CallToolResult::success(vec![ContentBlock::text(answer.to_string())]);
            // A 2026-07-28 client's set in force now, to send from then on.
            result.meta = held;
            return Ok(result.into());
        }
        if let Some(searching) = current.searching()
            && let Some(meta) = searching.meta(&request.name)
        {
            let inner = match meta {
                Meta::Search => {
                    return Ok(searching
                        .search(current.reachable(), request.arguments)
                        .into());
                }
                Meta::Call => match proxied_request(searching, request, not_in_profile)? {
                    Ok(inner) => inner,
                    Err(refused) => return Ok(refused.into()),
                },
            };
            drop(current);
            // The named tool's own dispatch, refusals and all: boxed, as
            // this future would otherwise hold itself.
            let call: ProxiedCall<'_> = Box::pin(ServerHandler::call_tool(self, inner, context));
            return call.await;
        }
        // A presented name is called by its canonical one; a canonical name
        // that is served stays itself (no name presents as another's).
        // What the client sent is kept for the refusals, which name it.
        let mut request = request;
        let sent = match current.unpresent(&request.name) {
            Some(canonical) if !current.serves(&request.name) => {
                Some(std::mem::replace(&mut request.name, canonical.into()))
            }
            _ => None,
        };
        let tools = current.tools;
        if let Some(position) = tools.position(&request.name) {
            decide(&request.name, &|| None);
            let call = ToolCallContext::new(&self.shared.handler, request, context);
            return dispatch::as_router_answers((tools.route(position).call)(call).await);
        }
        // A runtime tool the context enables; its catalog is the one loaded
        // above, whatever is installed meanwhile.
        #[cfg(feature = "runtime-tools")]
        if let Some(entry) = current.runtime.entry(&request.name) {
            decide(&request.name, &|| None);
            let mut context = context;
            // The handler may need to know whom it serves (a forwarding
            // backend, say): the context of the profile this call runs on.
            context.extensions.insert(*current.profile.context());
            return crate::catalog::call(entry, request, context)
                .await
                .map(CallToolResponse::from);
        }
        let withheld = current.withheld(&request.name)
            || sent.as_deref().is_some_and(|sent| current.withheld(sent));
        let sent = sent.as_deref().unwrap_or(&request.name);
        if withheld {
            decide(&request.name, &|| Some("kill_switch"));
            telemetry::refused(Refusal::Killed);
            tracing::debug!(tool = %Clipped(sent), "refused a tool the operator disabled");
            return Err(disabled_by_operator(sent));
        }
        decide(&request.name, &|| {
            Some(hidden_because(&current, &request.name))
        });
        telemetry::refused(Refusal::Hidden);
        tracing::debug!(tool = %Clipped(sent), "refused a tool outside the current profile");
        Err(not_in_profile(sent))
    }
}

/// Why `current` does not serve the compiled tool `name`, for a refused
/// call's span: its context's policy or allow list removed it from an
/// enabled group, or no enabled group has it. Explained only for a
/// decision log or a span a subscriber listens to.
fn hidden_because<S: Vocabulary>(current: &Current<S>, name: &str) -> &'static str {
    use crate::policy::Restriction;
    let explanation = S::registry().explain_under(current.profile.context(), current.killed);
    match explanation
        .removed()
        .iter()
        .find(|removed| removed.tool() == name)
    {
        Some(removed) if removed.restrictions().contains(Restriction::NotAllowed) => "allow_list",
        Some(_) => "policy",
        None => "not_in_profile",
    }
}

impl<S: Vocabulary + ServerHandler> ServerHandler for ProfiledServer<S> {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.shared.handler.get_info();
        advertise_tools::<S>(&mut info.capabilities);
        info
    }

    // The handler's own `initialize` and `discover` run (whatever they
    // record or negotiate); the result gains the tools capability this server
    // adds, which the handler's info lacks.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let cell = self.cell(&context.extensions)?;
        let peer = context.peer.clone();
        let grouping = cell.groups() && grouping::declared(Some(&request.capabilities));
        let mut result = self.shared.handler.initialize(request, context).await?;
        advertise_tools::<S>(&mut result.capabilities);
        if grouping {
            grouping::declare(&mut result.capabilities);
        }
        // Registered before the answer leaves, so no replacement can fall
        // between the client's first `tools/list` and its registration.
        let _ = self
            .session
            .get_or_init(|| cell.sessions.register(peer, grouping));
        Ok(result)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let grouping = self
            .cell(&context.extensions)
            .is_ok_and(|cell| serves_grouping(&cell, &context));
        let mut result = self.shared.handler.discover(context).await?;
        advertise_tools::<S>(&mut result.capabilities);
        if grouping {
            grouping::declare(&mut result.capabilities);
        }
        Ok(result)
    }

    /// `groups/list` for a session served the grouping extension; any
    /// other request (or that one, for any other session) is the
    /// handler's.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if let Some(answer) = self.answer_groups_request(&request, &context).await {
            return answer;
        }
        self.shared
            .handler
            .on_custom_request(request, context)
            .await
    }

    #[cfg_attr(
        feature = "metrics",
        tracing::instrument(
            level = "debug",
            name = "mcp_profiles.list",
            skip_all,
            fields(profile = tracing::field::Empty, principal = tracing::field::Empty)
        )
    )]
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cell = self.cell(&context.extensions)?;
        let current = cell.current();
        #[cfg(feature = "metrics")]
        telemetry::record_profile(&tracing::Span::current(), || {
            Some((*current.profile.context(), None))
        });
        let (listed, meta) = self.tools_answered(&cell, &current, &context)?;
        let mut result = ListToolsResult::with_all_items(listed)
            .with_ttl_ms(cell.list_ttl_ms())
            // The list depends on who asks: never share it across principals.
            .with_cache_scope(CacheScope::Private);
        result.meta = meta;
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match &self.shared.source {
            Source::Single(cell) => cell.current().tool(name).cloned(),
            // Without a request there is nothing to resolve.
            Source::Resolver(_) => None,
        }
    }

    // Not an `async fn`: the lookup borrows the name, and a local borrowed
    // inside a future keeps its own copy there; here it is borrowed before
    // the future exists, which then holds only what `#[tool_handler]`'s
    // does. A call to anything but a compiled tool is boxed, so it does not
    // grow the future either (`BENCHMARKS.md`, "Dispatch"). What metrics
    // add (the call's span, a compiled tool's count and duration) is
    // `telemetry::call`'s layer, zero-sized without them.
    #[inline]
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + MaybeSendFuture + '_ {
        // The call runs on the snapshot loaded here, whatever replaces it
        // meanwhile: a plain reference, as snapshots live as long as the
        // process. One lookup finds the route (`crate::dispatch`), in the
        // call's span, so a resolver can record whom it serves in it.
        let (span, compiled) = CallSpan::around(
            &request.name,
            || self.compiled(&context.extensions, &request.name),
            || self.served_of(&context.extensions),
        );
        async move {
            match compiled {
                Some((route, meter)) => {
                    let timer = meter.start();
                    let call = ToolCallContext::new(&self.shared.handler, request, context);
                    dispatch::as_router_answers(span.observe(timer, (route.call)(call)).await)
                }
                None => {
                    // Boxed in its own statement: as a temporary of the
                    // awaiting one, the unboxed future would keep a slot.
                    let elsewhere = span.boxed(self.call_elsewhere(request, context));
                    elsewhere.await
                }
            }
        }
    }

    fn on_initialized(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        // Registered at `initialize`; a session that skipped it has no cell.
        if let Some(session) = self.session.get() {
            session.mark_ready();
        }
        self.shared.handler.on_initialized(context)
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        let mut result = self.shared.handler.negotiate_initialize(request)?;
        advertise_tools::<S>(&mut result.capabilities);
        Ok(result)
    }

    /// Accepts `toolsListChanged` on top of whatever the handler accepts, and
    /// `promptsListChanged` and `resourcesListChanged` when `S` has prompt
    /// or resource groups.
    ///
    /// Always `Some`: this server implements `subscriptions/listen` (it
    /// advertises `tools.listChanged`), so a stream asking only for what the
    /// handler does not serve is acknowledged with what is accepted (maybe
    /// nothing), never refused as an unknown method.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = self
            .shared
            .handler
            .accepted_subscription_filter(requested)
            .unwrap_or_default();
        let ours = requested_kinds(requested).intersect(served_kinds::<S>());
        if ours.contains(Kinds::TOOLS) {
            accepted.tools_list_changed = Some(true);
        }
        if ours.contains(Kinds::PROMPTS) {
            accepted.prompts_list_changed = Some(true);
        }
        if ours.contains(Kinds::RESOURCES) {
            accepted.resources_list_changed = Some(true);
        }
        // rmcp acknowledges next, then calls `listen`: note where the
        // stream starts, so `listen` can make up a change in between. Every
        // stream, since one may ask for groups in its `_meta`, which only
        // `listen` sees.
        self.listening.acknowledging(changes_so_far());
        Some(accepted)
    }

    /// A stream that accepted `toolsListChanged` (or the prompt or resource
    /// list of a server with such groups) gets one list_changed of that kind
    /// per effective replacement of its principal's profile until it closes,
    /// and, served the grouping extension and asking in its `_meta`
    /// ([`GROUPS_LIST_CHANGED_KEY`](crate::GROUPS_LIST_CHANGED_KEY)), one
    /// `groups/list_changed` per change of its groups; the handler serves
    /// the rest of the stream.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let since = self.listening.registering(changes_so_far());
        let request = context.request_context();
        let asks_for_groups = grouping::asks_for_groups(&request.meta)?;
        let lists = requested_kinds(context.accepted()).intersect(served_kinds::<S>());
        let _subscription = if lists != Kinds::NONE || asks_for_groups {
            let cell = self.cell(&request.extensions)?;
            let grouping = serves_grouping(&cell, request);
            let kinds = lists
                .with(lists.memberships(), grouping)
                .with(Kinds::GROUPS, grouping && asks_for_groups);
            let stream = Stream {
                sink: context.sink().clone(),
                peer: request.peer.clone(),
            };
            (kinds != Kinds::NONE)
                .then(|| cell.sessions.register_subscription(stream, kinds, since))
        } else {
            None
        };
        self.shared.handler.listen(context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        if !served_kinds::<S>().contains(Kinds::PROMPTS) {
            return self.shared.handler.list_prompts(request, context).await;
        }
        let cell = self.cell(&context.extensions)?;
        let current = cell.current();
        let (listed, meta) = answered(
            &cell,
            &current,
            &context,
            Listed::Prompts,
            |grouped| &grouped.prompts,
            &current.content.prompts.listed,
        );
        let mut result = ListPromptsResult::with_all_items(listed);
        result.meta = meta;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if !served_kinds::<S>().contains(Kinds::PROMPTS) {
            return self.shared.handler.get_prompt(request, context).await;
        }
        // The prompt runs on the view loaded here, whatever replaces it.
        let prompts = self.cell(&context.extensions)?.current().content.prompts;
        prompts::get(prompts, &self.shared.handler, request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if !served_kinds::<S>().contains(Kinds::RESOURCES) {
            return self.shared.handler.list_resources(request, context).await;
        }
        let cell = self.cell(&context.extensions)?;
        let current = cell.current();
        let (listed, meta) = answered(
            &cell,
            &current,
            &context,
            Listed::Resources,
            |grouped| &grouped.resources,
            &current.content.resources.listed.0,
        );
        let mut result = ListResourcesResult::with_all_items(listed);
        result.meta = meta;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        if !served_kinds::<S>().contains(Kinds::RESOURCES) {
            return self
                .shared
                .handler
                .list_resource_templates(request, context)
                .await;
        }
        let cell = self.cell(&context.extensions)?;
        let current = cell.current();
        let (listed, meta) = answered(
            &cell,
            &current,
            &context,
            Listed::Templates,
            |grouped| &grouped.templates,
            &current.content.resources.listed.1,
        );
        let mut result = ListResourceTemplatesResult::with_all_items(listed);
        result.meta = meta;
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if !served_kinds::<S>().contains(Kinds::RESOURCES) {
            return self.shared.handler.read_resource(request, context).await;
        }
        let view = self.cell(&context.extensions)?.current().content.resources;
        resources::read(view, &self.shared.handler, request.uri, context)
            .await
            .map(ReadResourceResponse::from)
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if served_kinds::<S>().contains(Kinds::RESOURCES) {
            let view = self.cell(&context.extensions)?.current().content.resources;
            if resources::find(view, &request.uri).is_none() {
                return Err(resources::not_found(&request.uri));
            }
        }
        self.shared.handler.subscribe(request, context).await
    }

    // Everything else is the handler's; forward.rs lists every method of the
    // trait and which of the two answers it.
    forward_to_handler!();
}
