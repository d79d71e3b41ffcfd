//! The control API: a backend's path to the agents a deployment serves,
//! for any server's vocabulary, on its own listener, JSON in and out, every
//! route behind the control token, its OpenAPI 3.1 document generated from
//! the same types the handlers read and answer.
//!
//! | route | body | answer |
//! |---|---|---|
//! | `PUT /api/v1/agents/{principal}` | `{"profile": CONTEXT}`, optionally `"version": N` | `{"principal", "profile", "tools", "changed", "version"}` |
//! | `GET /api/v1/agents/{principal}` | — | `{"principal", "profile", "tools", "version"}` |
//! | `DELETE /api/v1/agents/{principal}` | — | `{"principal", "removed": true}` |
//! | `POST /api/v1/tokens` | `{"token", "principal"}` | `{"principal", "granted": true}` |
//! | `POST /api/v1/tokens/revoke` | `{"token"}` | `{"revoked": bool}` |
//! | `GET /api/v1/kill-switch` | — | `{"deny", "version"}` |
//! | `PUT /api/v1/kill-switch` | `{"deny": [NAME, ...], "version": N}` | `{"deny", "version"}` |
//! | `GET /api/v1/audit?principal=&since=&before=&order=&limit=` | — | `{"records", "next"}`, see [`audit`] |
//! | `GET /api/v1/agents/{principal}/exposure?at=MS` or `?revision=N` | — | `{"principal", "at", "agent", "kill_switch", "tools", "evidence"}`: what it could reach then, from the audit trail ([`crate::exposure::past`]) |
//! | `GET /api/v1/openapi.json` | — | the API's OpenAPI 3.1 document |
//!
//! With [`ControlApi::with_catalogs`] (feature `runtime-tools`), each
//! agent's runtime catalog too: see [`catalogs`].
//!
//! **Propagation.** Every change (an agent put or deleted, a token granted
//! or revoked, the kill switch) is answered once every instance sharing the
//! store confirms that it applies it (`Mcp-Profiles-Applied: N`), or, when
//! a live one did not within the store's wait, with 202, the same body and
//! `Mcp-Profiles-Pending` naming it (see [`propagated`]); a change the
//! store's replicas had not confirmed is 202 with `Mcp-Profiles-Unconfirmed`
//! (made and in force; a failover may undo it). Every change is
//! recorded in the store's audit trail in the same step: who made it (the
//! control token's name), the request's id (its `X-Request-Id`, or a fresh
//! one, answered back), what it replaced and made, and the tools it added
//! and removed. Tokens travel only in bodies, are recorded only as a short
//! SHA-256 fingerprint and never appear in an answer or a log line.
//!
//! **Compare-and-set.** With `"version"` an agent's `PUT` is applied only if
//! the agent is at that version now (0: only if it does not exist), else
//! 409. The kill switch's `PUT` always is one: it replaces the whole list,
//! and an unconditional put would let one operator's list silently drop a
//! tool another had just killed.
//!
//! **Refusals.** Every refusal answers `{"error", "code", "status",
//! "pointer"}` ([`Refusal`], the codes in [`codes`]): 401 for a missing or
//! wrong control token, 400 for a malformed body or an unknown field or
//! name (naming it), 404 for an agent that does not exist or no route, 405,
//! 409, 413 past [`MAX_BODY_BYTES`], 415 for a body not declared JSON, 503
//! when the store is unreachable (nothing changed). A principal is 1 to 128
//! characters of `A-Z a-z 0-9 . _ @ -`, never `.` or `..`.
//!
//! **Extensions.** An application adds its own routes, described in the
//! same document and behind the same token ([`ControlApi::route`]), its own
//! profile form ([`ControlApi::context_form`]), and routes with their own
//! authentication, such as an admin page ([`ControlApi::merge`]).
//!
//! **One agent.** A single-agent server (one MCP session's profile, no
//! agent tokens) serves the same API over a store holding its one agent,
//! with [`ControlApi::serving_one`]: no agent is created or deleted and
//! no token granted through it; everything else is as above.
//!
//! ```
//! # mod server {
//! #     #[derive(Clone)] pub struct Desk;
//! #     impl rmcp::ServerHandler for Desk {}
//! # }
//! # use server::Desk;
//! # mcp_profiles::vocabulary! {
//! #     server Desk;
//! #     #[surfaces] pub enum Surface { Triage }
//! #     #[capabilities] pub enum Capability {}
//! #     #[providers] pub enum Provider {}
//! # }
//! use std::sync::Arc;
//! use mcp_profiles_serve::{AgentStore, MemoryStore};
//! use mcp_profiles_serve::control::ControlApi;
//!
//! let store: Arc<dyn AgentStore<Desk>> = Arc::new(MemoryStore::<Desk>::default());
//! let api = ControlApi::new(store, "control-secret")
//!     .titled("help desk: control API", "Agents and their tokens.");
//! // The router (serve it with `http::Serve::on(addr).app(router)`) and its document.
//! let (router, document) = api.described();
//! assert!(document["paths"]["/api/v1/agents/{principal}"]["put"].is_object());
//! # drop(router);
//! ```

mod agents;
pub mod answers;
pub mod audit;
mod auth;
mod body;
#[cfg(feature = "runtime-tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "runtime-tools")))]
pub mod catalogs;
pub mod codes;
mod exposure;
pub mod openapi;
mod propagation;
mod refusal;

use std::marker::PhantomData;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post};
use mcp_profiles::{ProfileContext, Vocabulary};
use serde_json::{Value, json};

pub use agents::{MAX_PRINCIPAL_BYTES, MAX_TOKEN_BYTES, no_agent, path_principal, principal_name};
pub use answers::ContextForm;
pub use auth::{
    DEFAULT_TOKEN_NAME, REQUEST_ID, attributed, check_token, constant_time_eq, guarded, token_name,
};
pub use body::{MAX_BODY_BYTES, decode, decode_json, json_body};
pub use openapi::{Api, Operation};
pub use propagation::{
    APPLIED_HEADER, PENDING_HEADER, UNCONFIRMED_HEADER, confirmations, failed, propagated,
};
pub use refusal::{MAX_ECHOED_PATH_BYTES, Refusal, method_not_allowed, no_route};

use crate::AgentStore;
use agents::Shared;

/// Where the control API serves its OpenAPI document.
pub const OPENAPI_PATH: &str = "/api/v1/openapi.json";

const AGENT: &str = "/api/v1/agents/{principal}";
const TOKENS: &str = "/api/v1/tokens";
const REVOKE: &str = "/api/v1/tokens/revoke";
const KILL_SWITCH: &str = "/api/v1/kill-switch";
const AUDIT: &str = "/api/v1/audit";
const EXPOSURE: &str = "/api/v1/agents/{principal}/exposure";

/// The control API over an [`AgentStore`] of any vocabulary `S`, reading
/// agents' profiles in the form `F` (the vocabulary's own
/// [`ProfileContext`] unless [`context_form`](Self::context_form) says
/// otherwise). See the [module docs](self) for its routes.
pub struct ControlApi<S: Vocabulary, F = ProfileContext<S>> {
    store: Arc<dyn AgentStore<S>>,
    token: String,
    actor: String,
    title: String,
    description: String,
    /// The application's routes, behind the token, and their description.
    extensions: Api<()>,
    /// Routes with their own authentication, merged as they are.
    merged: Vec<Router>,
    /// The one agent a single-agent server serves, if it is one.
    only: Option<Arc<str>>,
    form: PhantomData<fn() -> F>,
}

impl<S: Vocabulary, F> std::fmt::Debug for ControlApi<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControlApi")
            .field("actor", &self.actor)
            .field("title", &self.title)
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

impl<S: Vocabulary> ControlApi<S> {
    /// The control API over `store`, every route behind `token`, its
    /// changes recorded as [`DEFAULT_TOKEN_NAME`]'s.
    ///
    /// # Panics
    ///
    /// If `token` is empty.
    pub fn new(store: Arc<dyn AgentStore<S>>, token: &str) -> Self {
        assert!(!token.is_empty(), "the control API needs a token");
        ControlApi {
            store,
            token: token.to_owned(),
            actor: DEFAULT_TOKEN_NAME.to_owned(),
            title: "control API".to_owned(),
            description: "Agents, their tokens and the operator's kill switch, for every \
                instance sharing the store, with the audit trail of every change. Every route \
                takes the control token as a bearer token."
                .to_owned(),
            extensions: Api::default(),
            merged: Vec::new(),
            only: None,
            form: PhantomData,
        }
    }
}

impl<S: Vocabulary, F: ContextForm<S>> ControlApi<S, F> {
    /// Reads agents' profiles in the form `G` (a legacy shape, a policy
    /// document of the application's own), whose schema the OpenAPI
    /// document holds.
    pub fn context_form<G: ContextForm<S>>(self) -> ControlApi<S, G> {
        ControlApi {
            store: self.store,
            token: self.token,
            actor: self.actor,
            title: self.title,
            description: self.description,
            extensions: self.extensions,
            merged: self.merged,
            only: self.only,
            form: PhantomData,
        }
    }

    /// The API of a single-agent server, whose store holds the one agent
    /// its sessions are served by, `principal` (added before the API
    /// starts): the API neither creates nor deletes an agent (a `PUT`
    /// naming another principal is 404, `DELETE` is not served) and grants
    /// no token (the token routes are not served: such a server
    /// authenticates no agent token). Every other route is as for a
    /// deployment of many agents.
    pub fn serving_one(mut self, principal: &str) -> Self {
        self.only = Some(Arc::from(principal));
        self
    }

    /// Records its changes under `name` (see [`token_name`], which checks
    /// a name first).
    pub fn recorded_as(mut self, name: &str) -> Self {
        name.clone_into(&mut self.actor);
        self
    }

    /// The OpenAPI document's title and description.
    pub fn titled(mut self, title: &str, description: &str) -> Self {
        title.clone_into(&mut self.title);
        description.clone_into(&mut self.description);
        self
    }

    /// Serves `handler` at `path`, behind the control token and attributed
    /// like the API's own routes, with its `operations` in the document.
    /// The handler has its own state (`MethodRouter::with_state`); it
    /// answers refusals with [`Refusal`] and reads bodies with [`decode`].
    ///
    /// # Panics
    ///
    /// When the router is built, if `path` is one of the API's own (as
    /// axum does for any route given twice).
    pub fn route(
        mut self,
        path: &str,
        operations: impl IntoIterator<Item = Operation>,
        handler: MethodRouter,
    ) -> Self {
        self.extensions = self.extensions.route(path, operations, handler);
        self
    }

    /// Describes `operations` at `path`, served by a router given to
    /// [`merge`](Self::merge) (or beside this one on the same listener).
    pub fn beside(mut self, path: &str, operations: impl IntoIterator<Item = Operation>) -> Self {
        self.extensions = self.extensions.beside(path, operations);
        self
    }

    /// Adds a security scheme that described operations may name (an
    /// admin page's cookie, say).
    pub fn security_scheme(mut self, name: &str, scheme: Value) -> Self {
        self.extensions = self.extensions.security_scheme(name, scheme);
        self
    }

    /// Merges `router`, which authenticates its requests itself (an admin
    /// page's login, a public metrics route), into the listener's.
    pub fn merge(mut self, router: Router) -> Self {
        self.merged.push(router);
        self
    }

    /// The store it changes.
    pub fn store(&self) -> &Arc<dyn AgentStore<S>> {
        &self.store
    }

    /// The control token (for pages that log in with it).
    #[cfg_attr(not(any(feature = "admin", feature = "prometheus")), allow(dead_code))]
    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    /// The name its changes are recorded under.
    #[cfg_attr(not(feature = "admin"), allow(dead_code))]
    pub(crate) fn actor(&self) -> &str {
        &self.actor
    }

    /// The API's OpenAPI 3.1 document, as [`OPENAPI_PATH`] serves it.
    pub fn openapi(self) -> Value {
        self.described().1
    }

    /// The control listener's router: the API, the application's routes
    /// and merged routers, 404 and 405 answered as refusals.
    pub fn router(self) -> Router {
        self.described().0
    }

    /// The router and the document, built together.
    pub fn described(mut self) -> (Router, Value) {
        let shared = Shared::<S, F>::new(Arc::clone(&self.store), self.only.clone());
        let api = std::mem::take(&mut self.extensions);
        let (routes, document) =
            own_routes(api, shared).finish(OPENAPI_PATH, &self.title, &self.description);
        let mut router =
            guarded(routes, &self.token, &self.actor).layer(DefaultBodyLimit::max(MAX_BODY_BYTES));
        for merged in self.merged {
            router = router.merge(merged);
        }
        let router = router
            .fallback(no_route)
            .method_not_allowed_fallback(method_not_allowed)
            .layer(axum::middleware::from_fn(auth::refuse_repeated));
        (router, document)
    }
}

/// A link's parameters: the same principal as the request's.
fn principal() -> Value {
    json!({"principal": "$request.path.principal"})
}

/// The API's own routes, each described, added to `api`.
fn own_routes<S: Vocabulary, F: ContextForm<S>>(api: Api<()>, shared: Shared<S, F>) -> Api<()> {
    use answers::*;
    let single = shared.only.is_some();
    let mut put = openapi::put::<AgentChanged<S>>(
        "Creates or replaces an agent's profile (with `version`: a compare-and-set)",
    )
    .body::<AgentPut<F>>()
    .propagates()
    .refuses(&[409, 503])
    .link("ReadAgent", (Method::GET, AGENT), principal(), None)
    .link(
        "PutAgentAtVersion",
        (Method::PUT, AGENT),
        principal(),
        Some(json!({"profile": "$response.body#/profile", "version": "$response.body#/version"})),
    );
    let get_agent = openapi::get::<Agent<S>>("An agent").refuses(&[404, 503]);
    let agent = get(agents::get_agent::<S, F>).put(agents::put_agent::<S, F>);
    if single {
        // Only the agent served: a `PUT` of another is 404.
        let api = api.route(
            AGENT,
            [get_agent, put.refuses(&[404])],
            agent.with_state(shared.clone()),
        );
        return shared_routes(api, shared);
    }
    put = put
        .link(
            "GrantToken",
            (Method::POST, TOKENS),
            json!({}),
            Some(json!({"token": "stateful-token", "principal": "$request.path.principal"})),
        )
        .link("DeleteAgent", (Method::DELETE, AGENT), principal(), None);
    let api = api
        .route(
            AGENT,
            [
                get_agent,
                put,
                openapi::delete::<AgentRemoved>("Removes an agent and every token naming it")
                    .propagates()
                    .refuses(&[404, 503]),
            ],
            agent
                .delete(agents::delete_agent::<S, F>)
                .with_state(shared.clone()),
        )
        .route(
            TOKENS,
            [
                openapi::post::<Granted>("Lets a token act as a principal on every instance")
                    .body::<GrantBody>()
                    .propagates()
                    .refuses(&[503])
                    .link(
                        "RevokeToken",
                        (Method::POST, REVOKE),
                        json!({}),
                        Some(json!({"token": "$request.body#/token"})),
                    ),
            ],
            post(agents::grant::<S, F>).with_state(shared.clone()),
        )
        .route(
            REVOKE,
            [
                openapi::post::<Revoked>("Stops a token everywhere, ending what it opened")
                    .body::<RevokeBody>()
                    .propagates()
                    .refuses(&[503]),
            ],
            post(agents::revoke::<S, F>).with_state(shared.clone()),
        );
    shared_routes(api, shared)
}

/// The routes every API serves, a single agent's too.
fn shared_routes<S: Vocabulary, F: ContextForm<S>>(api: Api<()>, shared: Shared<S, F>) -> Api<()> {
    use answers::*;
    api
    .route(
        KILL_SWITCH,
        [
            openapi::get::<StoredKillSwitch>("The operator's kill switch")
                .refuses(&[503])
                .link(
                    "PutKillSwitchAtVersion",
                    (Method::PUT, KILL_SWITCH),
                    json!({}),
                    Some(json!({"deny": "$response.body#/deny", "version": "$response.body#/version"})),
                ),
            openapi::put::<StoredKillSwitch>(
                "Puts the operator's kill switch (always a compare-and-set)",
            )
            .body::<KillSwitchPut<S>>()
            .propagates()
            .refuses(&[409, 503]),
        ],
        get(agents::get_kill_switch::<S, F>)
            .put(agents::put_kill_switch::<S, F>)
            .with_state(shared.clone()),
    )
    .route(
        AUDIT,
        [audit::described(openapi::get::<AuditPage>("A page of the audit trail")).refuses(&[503])],
        get(agents::get_audit::<S, F>).with_state(shared.clone()),
    )
    .route(
        EXPOSURE,
        [exposure::described(openapi::get::<Exposed<S>>(
            "What the agent could reach at a past time or revision, from the audit trail",
        ))
        .refuses(&[404, 500, 503])],
        get(exposure::get_exposure::<S, F>).with_state(shared),
    )
}
