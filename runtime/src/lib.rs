// The crate docs are README.md, so that every example in it is a doctest.
// Its examples need stdio and runtime tools, so other feature sets get a
// pointer to it instead.
// The README links items on docs.rs, for GitHub and crates.io; the link
// definitions below come first and win (CommonMark keeps the first), so
// rustdoc resolves, and checks, the same names as intra-doc links.
//! [`Registry`]: crate::Registry
//! [`Registry::linked`]: crate::Registry::linked
//! [`Rule`]: crate::Rule
//! [`Profile`]: crate::Profile
//! [`ProfileContext`]: crate::ProfileContext
//! [`ProfileController`]: crate::ProfileController
//! [`ProfileController::replace`]: crate::ProfileController::replace
//! [`ProfileController::update`]: crate::ProfileController::update
//! [`ProfileController::set_list_ttl`]: crate::ProfileController::set_list_ttl
//! [`ProfileController::with_kill_switch`]: crate::ProfileController::with_kill_switch
//! [`ProfileController::explain`]: crate::ProfileController::explain
//! [`Registry::explain`]: crate::Registry::explain
//! [`Policy`]: crate::Policy
//! [`AllowError`]: crate::AllowError
//! [`ProfileContext::with_allowed`]: crate::ProfileContext::with_allowed
//! [`ProfileContext::with_runtime_allowed`]: crate::ProfileContext::with_runtime_allowed
//! [`Replacement`]: crate::Replacement
//! [`DenyList`]: crate::DenyList
//! [`KillSwitch`]: crate::KillSwitch
//! [`ProfiledServer`]: crate::ProfiledServer
//! [`ProfiledServer::resolving`]: crate::ProfiledServer::resolving
//! [`ProfileResolver`]: crate::ProfileResolver
//! [`Vocabulary`]: crate::Vocabulary
//! [`tool_group`]: crate::tool_group
//! [`vocabulary!`]: crate::vocabulary!
#![cfg_attr(
    feature = "runtime-tools",
    doc = "[`Catalog`]: crate::Catalog",
    doc = "[`Catalog::new`]: crate::Catalog::new",
    doc = "[`RuntimeTool`]: crate::RuntimeTool",
    doc = "[`Rule::from_json`]: crate::Rule::from_json",
    doc = "[`Registry::assemble`]: crate::Registry::assemble",
    doc = "[`ProfileController::install`]: crate::ProfileController::install",
    doc = "[`ProfileController::tools`]: crate::ProfileController::tools"
)]
#![cfg_attr(
    feature = "testing",
    doc = "[`Registry::builder`]: crate::Registry::builder"
)]
#![doc = ""]
#![cfg_attr(
    all(feature = "stdio", feature = "runtime-tools"),
    doc = include_str!("../README.md")
)]
#![cfg_attr(
    not(all(feature = "stdio", feature = "runtime-tools")),
    doc = "Typed tool profiles for MCP servers built on rmcp. The guide, with \
           every example, is `README.md`: these docs with the features `stdio` \
           and `runtime-tools` on, as on docs.rs."
)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_debug_implementations)]

// Generated code names this crate `::mcp_profiles`; let that resolve here too.
extern crate self as mcp_profiles;

mod assembly;
#[cfg(feature = "runtime-tools")]
mod catalog;
mod clipped;
mod compose;
mod content;
mod context;
mod controller;
mod cost;
mod decisions;
mod disclosure;
mod dispatch;
mod errors;
mod exposure;
mod forward;
mod grouping;
mod listening;
mod measure;
mod notification;
mod policy;
mod presentation;
mod presentation_error;
mod prompts;
mod registry;
mod registry_error;
mod resolve;
mod resources;
mod rule;
mod search;
mod server;
mod snapshot;
mod sorted;
mod telemetry;
mod tool_name;
mod vocabulary;
mod wire_schema;

pub use assembly::{Explanation, Profile, RemovedTool, ToolDiff};
#[cfg(feature = "runtime-tools")]
pub use catalog::{
    Catalog, CatalogDecodeError, CatalogDecoder, CatalogError, CatalogErrors, HandlerFuture,
    InstallOutcome, Installation, RuntimeDiff, RuntimeGroup, RuntimeHandler, RuntimeTool,
};
pub use clipped::Clipped;
pub use context::{ContextError, ProfileContext};
pub use controller::{AtRevision, KillSwitch, KillSwitchChange, ProfileController, Replacement};
#[cfg(feature = "tokens")]
pub use cost::MaxCost;
pub use decisions::{CallDecision, DecisionSink};
pub use disclosure::{
    ACTIVATE_GROUPS, ACTIVATION_TOOL, ACTIVE_GROUPS_KEY, Disclosure, NameTaken, UnknownGroup,
};
pub use errors::Errors;
pub use exposure::{EXPOSURE_META_KEY, Exposure, ListDigest};
pub use grouping::{GROUP_MEMBERSHIP_KEY, GROUPING_EXTENSION, GROUPS_LIST_CHANGED_KEY};
#[cfg(feature = "tokens")]
pub use measure::TOKEN_ESTIMATOR;
pub use measure::{ListCost, ToolCost};
pub use policy::{
    AllowError, AllowLists, DenyList, Policy, PolicyError, Restriction, Restrictions,
};
pub use presentation::Presentation;
pub use presentation_error::PresentationError;
#[cfg(feature = "testing")]
pub use registry::RegistryBuilder;
pub use registry::{Group, Registry};
pub use registry_error::{RegistryError, RegistryErrors};
pub use resolve::{ProfileHandle, ProfileResolver};
pub use rule::{Decision, Rule, TermSet};
pub use search::{ToolSearch, ToolSearchError};
pub use server::ProfiledServer;
/// The names of the series the core records (feature `metrics`).
#[cfg(feature = "metrics")]
pub use telemetry::names as metric_names;
pub use vocabulary::{Term, TermKind, UnknownName};

pub use mcp_profiles_macros::{prompt_group, resource_group, tool_group, vocabulary};

/// The rmcp this crate is built against.
pub use rmcp;

// The trait every module names, defined at the root (which every module
// may import) rather than in `vocabulary`: it names the registry, and the
// registry names it back.
/// The profile vocabulary of a server type, and the way to its registry.
///
/// Implemented by [`vocabulary!`](crate::vocabulary) for the server type it
/// names, and only by it (the trait is sealed); tool groups of that server
/// are `#[tool_group]` impl blocks on it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no profile vocabulary",
    label = "`#[tool_group]` needs the vocabulary of `{Self}`",
    note = "declare it with `mcp_profiles::vocabulary! {{ server {Self}; ... }}` in the module that \
            defines `{Self}`, or import it from the module that declares it: importing the type \
            from there imports both"
)]
pub trait Vocabulary: vocabulary::sealed::VocabularySeal + Sized + Send + Sync + 'static {
    /// The server's surfaces; a context has exactly one.
    type Surface: Term;
    /// The server's additive capabilities.
    type Capability: Term;
    /// The providers a session can have attached.
    type Provider: Term;

    /// Pairs of capabilities that no context may hold together.
    const EXCLUSIVE: &'static [(Self::Capability, Self::Capability)];

    /// The most runtime tools a context's runtime allow list may name, as
    /// `#[runtime_allow_list(max = N)]` on the vocabulary's `server` line
    /// declares; `None` when it declares none, and then no context can set
    /// one (see [`ProfileContext::with_runtime_allowed`](crate::ProfileContext::with_runtime_allowed)).
    const RUNTIME_ALLOW_MAX: Option<usize> = None;

    /// The surfaces on which a context that sets no runtime allow list
    /// serves no runtime tool (rather than every one its rules enable), as
    /// `#[runtime_allow_list(max = N, required_on = [...])]` declares: a
    /// surface whose sessions must be granted their runtime tools one by
    /// one fails closed when the grant is missing.
    const RUNTIME_ALLOW_REQUIRED_ON: &'static [Self::Surface] = &[];

    /// Each budgeted surface with the most o200k_base tokens a context on
    /// it may list, as `#[budget(tokens = N)]` on a surface declares;
    /// each surface at most once, in declaration order. Checked over every
    /// valid context by `Registry::verify_budgets` (feature `tokens`),
    /// which the test `vocabulary!` adds runs; declaring one without the
    /// `tokens` feature is a compile error, so none goes unchecked.
    const TOKEN_BUDGETS: &'static [(Self::Surface, usize)] = &[];

    /// Whether the vocabulary declares its capabilities and providers
    /// additive (`#[additive]` on its `server` line): then the test
    /// `vocabulary!` adds proves, over every valid context, that adding a
    /// capability or a provider never removes a tool
    /// ([`Registry::verify_additive`]).
    const ADDITIVE: bool = false;

    /// The verified registry of every tool group linked into the program.
    ///
    /// Built and verified on first use.
    ///
    /// # Panics
    ///
    /// Panics on first use when the linked groups fail
    /// [verification](Registry::linked); tests call `Registry::linked()` to see
    /// the errors as a value instead.
    fn registry() -> &'static Registry<Self>;
}

/// Items used by generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::__mcp_profiles_token_budget as token_budget;
    pub use crate::compose::{
        Composed, GroupShape, Part, compose, exposed_by, has, routes as composed_routes,
    };
    pub use crate::content::ContentEntry;
    pub use crate::cost::verify_linked;
    pub use crate::policy::AllowSpec;
    pub use crate::registry::{GroupEntry, LinkedGroup, TOOL_GROUPS, linked_registry};
    pub use crate::resources::{ReadFuture, ResourceDef, ResourceRoute};
    pub use crate::rule::RuleMasks;
    pub use crate::vocabulary::sealed::{TermIndex, VocabularySeal};
    pub use crate::vocabulary::serde_term;
    pub use linkme;
    pub use mcp_profiles_macros::__register_tool_group as register_tool_group;
    pub use rmcp::handler::server::router::prompt::{IntoPromptRoute, PromptRoute};
    pub use rmcp::handler::server::router::tool::{IntoToolRoute, ToolRoute};
    pub use rmcp::service::{RequestContext, RoleServer};
    pub use serde;
}
