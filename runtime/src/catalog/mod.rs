//! Runtime tool groups: tools a backend learns at run time (plugin tools),
//! under the same vocabulary, rules and guarantees as `#[tool_group]`.
//!
//! A [`Catalog`] is verified once, when it is built (`validate.rs`), and
//! is then a cheap handle: installing it on any number of controllers
//! shares its definitions, compiled schemas and handlers. What one session
//! sees of it is a `View` (`view.rs`), shared by every session with the same
//! compiled tools and the same enabled runtime tools; calls are validated
//! and dispatched by `call.rs`.

mod call;
mod groups;
mod validate;
mod view;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::rule::RuleMasks;
use crate::{Rule, Vocabulary};

pub(crate) use call::call;
pub use groups::RuntimeGroup;
pub use validate::{CatalogError, CatalogErrors};
pub(crate) use view::{Runtime, View};

/// Why a catalog's wire form could not be decoded: the decoder's own error.
pub type CatalogDecodeError = Box<dyn std::error::Error + Send + Sync>;

/// Turns a principal's stored catalog (its JSON wire form, whatever the
/// backend chose) into a verified [`Catalog`] whose handlers serve that
/// principal's calls: how a store of many agents (`mcp-profiles-serve`)
/// keeps runtime catalogs it cannot otherwise read.
///
/// A store decodes a catalog when it is put (a catalog it cannot decode is
/// refused and nothing is stored) and again on every instance that serves
/// the principal. It should be deterministic: the same wire form must give
/// the same tools on every instance.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use std::sync::Arc;
/// use mcp_profiles::{Catalog, CatalogDecoder, Rule, RuntimeTool};
/// use mcp_profiles::rmcp::model::CallToolResult;
///
/// // The wire form here: `{"revision": N, "tools": ["name", ...]}`.
/// let decoder: CatalogDecoder<Demo> = Arc::new(|_principal, wire| {
///     let revision = wire["revision"].as_u64().ok_or("`revision` must be a number")?;
///     let names = wire["tools"].as_array().ok_or("`tools` must be a list")?;
///     let tools = names.iter().map(|name| {
///         let name = name.as_str().unwrap_or_default().to_owned();
///         let schema = serde_json::json!({"type": "object"}).as_object().unwrap().clone();
///         RuntimeTool::new(name, "a tool", schema, Rule::always(), |_, _| async {
///             Ok(CallToolResult::success(vec![]))
///         })
///     });
///     Ok(Catalog::new("wire", revision, tools)?)
/// });
/// // Hand it to a store: `mcp_profiles_serve::ProfileStore::default().with_catalogs(decoder)`.
/// # drop(decoder);
/// ```
pub type CatalogDecoder<S> =
    Arc<dyn Fn(&str, &Value) -> Result<Catalog<S>, CatalogDecodeError> + Send + Sync>;

/// The future a runtime tool's handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<CallToolResult, ErrorData>> + Send>>;

/// A runtime tool's handler: its validated arguments and the request's
/// context in, the call's result out.
///
/// The request context's extensions hold the [`ProfileContext`](crate::ProfileContext)
/// of the profile the call runs on (`context.extensions.get::<ProfileContext<S>>()`),
/// so one handler can serve sessions of several surfaces and still tell
/// them apart.
pub type RuntimeHandler =
    Arc<dyn Fn(JsonObject, RequestContext<RoleServer>) -> HandlerFuture + Send + Sync>;

/// One tool learnt at run time: its definition, its enablement rule in the
/// server's vocabulary, and its handler.
///
/// The definition is what `tools/list` shows: name, description, input
/// schema, optional output schema and annotations (read-only, destructive,
/// idempotent and open-world hints). The rule has the same forms as
/// `#[tool_group]`'s and decodes strictly from JSON with
/// [`Rule::from_json`].
pub struct RuntimeTool<S: Vocabulary> {
    tool: Tool,
    rule: Rule<S>,
    handler: RuntimeHandler,
    /// The catalog's groups it is in (see [`RuntimeGroup`]).
    groups: Vec<String>,
}

impl<S: Vocabulary> Clone for RuntimeTool<S> {
    fn clone(&self) -> Self {
        RuntimeTool {
            tool: self.tool.clone(),
            rule: self.rule,
            handler: Arc::clone(&self.handler),
            groups: self.groups.clone(),
        }
    }
}

impl<S: Vocabulary> fmt::Debug for RuntimeTool<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeTool")
            .field("tool", &self.tool)
            .field("rule", &self.rule)
            .field("groups", &self.groups)
            .finish_non_exhaustive()
    }
}

impl<S: Vocabulary> RuntimeTool<S> {
    /// A tool called `name`, enabled by `rule`, whose calls `handler`
    /// answers once their arguments match `input_schema`.
    ///
    /// Nothing is checked here: [`Catalog::new`] verifies every tool of a
    /// catalog together.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: JsonObject,
        rule: Rule<S>,
        handler: F,
    ) -> Self
    where
        F: Fn(JsonObject, RequestContext<RoleServer>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
    {
        RuntimeTool {
            tool: Tool::new(name.into(), description.into(), input_schema),
            rule,
            handler: Arc::new(move |arguments, context| Box::pin(handler(arguments, context))),
            groups: Vec::new(),
        }
    }

    /// Puts the tool in the catalog's group `group` (see
    /// [`Catalog::grouped`]), and in each other it is put in: a client of
    /// MCP's grouping extension sees it in each.
    #[must_use]
    pub fn in_group(mut self, group: impl Into<String>) -> Self {
        let group = group.into();
        if !self.groups.contains(&group) {
            self.groups.push(group);
        }
        self
    }

    /// The catalog's groups it is in.
    pub fn groups(&self) -> impl ExactSizeIterator<Item = &str> {
        self.groups.iter().map(String::as_str)
    }

    /// Declares the structure of the tool's structured results.
    #[must_use]
    pub fn with_output_schema(mut self, schema: JsonObject) -> Self {
        self.tool.output_schema = Some(Arc::new(schema));
        self
    }

    /// Sets the tool's annotations (behaviour hints for clients).
    #[must_use]
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The definition `tools/list` shows.
    pub fn definition(&self) -> &Tool {
        &self.tool
    }

    /// The enablement rule.
    pub fn rule(&self) -> Rule<S> {
        self.rule
    }

    /// Whether two tools have the same definition and rule (handlers are
    /// code and not compared).
    fn same_definition(&self, other: &Self) -> bool {
        self.tool == other.tool && self.rule == other.rule && self.groups == other.groups
    }
}

/// A verified tool of a catalog, with its compiled input schema.
pub(crate) struct Entry<S: Vocabulary> {
    tool: RuntimeTool<S>,
    rule: RuleMasks,
    arguments: jsonschema::Validator,
    /// The tool's metric handles, registered when the catalog is verified.
    #[cfg(feature = "metrics")]
    meter: crate::telemetry::ToolMeter,
}

/// A versioned, verified set of runtime tools for server type `S`.
///
/// Built with [`Catalog::new`], which verifies it all or nothing, and
/// installed with [`ProfileController::install`](crate::ProfileController::install).
/// Cloning is a reference count: a backend serving many agents builds one
/// catalog and installs a clone on each controller (each agent's, for a
/// `ProfileStore`), so schemas are compiled once and every session with the
/// same tools shares one list.
///
/// A catalog is versioned by a *generation* (say, one per backend process
/// or configuration epoch) and a *revision* within it: a controller ignores
/// a catalog whose revision is not newer than the installed one of the same
/// generation, so late or repeated deliveries cannot roll it back.
pub struct Catalog<S: Vocabulary> {
    inner: Arc<Inner<S>>,
}

struct Inner<S: Vocabulary> {
    generation: String,
    revision: u64,
    /// Sorted by name; names are unique.
    entries: Vec<Entry<S>>,
    /// Its own tool groups, sorted by name.
    groups: Vec<RuntimeGroup>,
    /// Views already built, keyed by compiled snapshot and enabled entries.
    views: Mutex<HashMap<view::Key, Arc<View>>>,
}

impl<S: Vocabulary> Clone for Catalog<S> {
    fn clone(&self) -> Self {
        Catalog {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<S: Vocabulary> fmt::Debug for Catalog<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog")
            .field("generation", &self.inner.generation)
            .field("revision", &self.inner.revision)
            .field("tools", &self.tool_names().collect::<Vec<_>>())
            .field("groups", &self.inner.groups)
            .finish()
    }
}

impl<S: Vocabulary> Catalog<S> {
    /// Verifies `tools` as generation `generation`, revision `revision`.
    ///
    /// All or nothing: every tool name follows MCP's rules (1 to 128
    /// characters of `A-Z a-z 0-9 _ - .`) and is unique in the catalog;
    /// every rule can be satisfied by some valid context; no valid context
    /// enables a runtime tool together with a compiled tool of the same name
    /// (the registry's exact check, reporting a witness context); and each
    /// input and output schema is an object schema that compiles as JSON
    /// Schema 2020-12, without fetching any remote `$ref`. The error lists
    /// every problem, each naming its tool.
    pub fn new(
        generation: impl Into<String>,
        revision: u64,
        tools: impl IntoIterator<Item = RuntimeTool<S>>,
    ) -> Result<Self, CatalogErrors> {
        Self::grouped(generation, revision, [], tools)
    }

    /// [`Catalog::new`], with the catalog's own tool `groups`: what a
    /// client of MCP's grouping extension is told its tools belong to
    /// ([`RuntimeTool::in_group`]). Verified with the tools, all or
    /// nothing: each group's name follows MCP's name rules, is unique and
    /// is no compiled group's; each has a tool; its title is one non-blank
    /// line and its description non-blank; each tool's groups are declared.
    ///
    /// ```
    /// # mod server {
    /// #     #[derive(Clone)] pub struct Demo;
    /// #     impl rmcp::ServerHandler for Demo {}
    /// # }
    /// # use server::Demo;
    /// # mcp_profiles::vocabulary! {
    /// #     server Demo;
    /// #     #[surfaces] pub enum Surface { Ticket }
    /// #     #[capabilities] pub enum Capability {}
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// use mcp_profiles::{Catalog, Rule, RuntimeGroup, RuntimeTool};
    /// use mcp_profiles::rmcp::model::CallToolResult;
    ///
    /// let schema = serde_json::json!({"type": "object"}).as_object().unwrap().clone();
    /// let search = RuntimeTool::<Demo>::new("search_issues", "Search issues", schema, Rule::always(), |_, _| async {
    ///     Ok(CallToolResult::success(vec![]))
    /// })
    /// .in_group("plugin.github");
    /// let github = RuntimeGroup::new("plugin.github").with_title("GitHub");
    /// let catalog = Catalog::grouped("plugins", 1, [github], [search]).unwrap();
    /// assert_eq!(catalog.groups().next().unwrap().name(), "plugin.github");
    ///
    /// // A tool in a group the catalog does not declare is refused.
    /// let schema = serde_json::json!({"type": "object"}).as_object().unwrap().clone();
    /// let stray = RuntimeTool::<Demo>::new("stray", "?", schema, Rule::always(), |_, _| async {
    ///     Ok(CallToolResult::success(vec![]))
    /// })
    /// .in_group("plugin.gitlab");
    /// let refused = Catalog::grouped("plugins", 2, [], [stray]).unwrap_err();
    /// assert_eq!(
    ///     refused.iter().next().unwrap().to_string(),
    ///     "runtime tool `stray` is in group `plugin.gitlab`, which the catalog does not declare"
    /// );
    /// ```
    pub fn grouped(
        generation: impl Into<String>,
        revision: u64,
        groups: impl IntoIterator<Item = RuntimeGroup>,
        tools: impl IntoIterator<Item = RuntimeTool<S>>,
    ) -> Result<Self, CatalogErrors> {
        let (registry, tools) = (S::registry(), tools.into_iter().collect::<Vec<_>>());
        let mut errors = Vec::new();
        let groups = groups::verify(registry, groups.into_iter().collect(), &tools, &mut errors);
        let entries = validate::verify(registry, tools, errors)?;
        Ok(Catalog {
            inner: Arc::new(Inner {
                generation: generation.into(),
                revision,
                entries,
                groups,
                views: Mutex::default(),
            }),
        })
    }

    /// The catalog's own tool groups, sorted by name.
    pub fn groups(&self) -> impl ExactSizeIterator<Item = &RuntimeGroup> {
        self.inner.groups.iter()
    }

    /// The generation this catalog belongs to.
    pub fn generation(&self) -> &str {
        &self.inner.generation
    }

    /// The revision within its generation.
    pub fn revision(&self) -> u64 {
        self.inner.revision
    }

    /// Every tool, sorted by name.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &RuntimeTool<S>> {
        self.inner.entries.iter().map(|entry| &entry.tool)
    }

    /// Every tool name, sorted.
    pub fn tool_names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.tools().map(RuntimeTool::name)
    }

    /// Whether `newer` supersedes this catalog: another generation, or a
    /// higher revision of the same one.
    pub(crate) fn superseded_by(&self, newer: &Catalog<S>) -> bool {
        newer.inner.generation != self.inner.generation
            || newer.inner.revision > self.inner.revision
    }

    /// Whether both catalogs define the same tools with the same rules.
    pub(crate) fn same_definitions(&self, other: &Catalog<S>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
            || (self.inner.entries.len() == other.inner.entries.len()
                && self.inner.groups == other.inner.groups
                && self
                    .tools()
                    .zip(other.tools())
                    .all(|(a, b)| a.same_definition(b)))
    }

    fn entry(&self, index: usize) -> &Entry<S> {
        &self.inner.entries[index]
    }
}

/// What installing a catalog did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InstallOutcome {
    /// The catalog is now installed; its tools differ from the previous one's.
    Installed,
    /// The catalog was not newer than the installed one of its generation;
    /// nothing changed.
    IgnoredStale,
    /// The catalog's tools and rules equal the installed ones: its version
    /// (and handlers) are recorded, and nothing a client sees changed.
    Unchanged,
    /// The catalog was refused: under the controller's
    /// [`Presentation`](crate::Presentation), one of its tools would collide
    /// with another ([`Installation::refused`] names both). Nothing changed.
    Refused,
}

/// Runtime tools gained, lost and redefined in what a session sees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuntimeDiff {
    /// Visible now, not before; sorted.
    pub added: Vec<String>,
    /// Visible before, not now; sorted.
    pub removed: Vec<String>,
    /// Visible before and now, with another definition; sorted.
    pub changed: Vec<String>,
}

impl RuntimeDiff {
    /// Whether the visible runtime tools are the same.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The outcome of one [`ProfileController::install`](crate::ProfileController::install).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Installation {
    /// What happened.
    pub outcome: InstallOutcome,
    /// The installed generation afterwards.
    pub generation: String,
    /// The installed revision afterwards.
    pub revision: u64,
    /// How the controller's visible runtime tools changed.
    pub diff: RuntimeDiff,
    /// How many sessions were sent a list_changed (none when `diff` is
    /// empty, nor under tool search when what is listed stayed the same).
    pub notified_sessions: usize,
    /// Why the catalog was refused ([`InstallOutcome::Refused`]), naming
    /// the colliding tools.
    pub refused: Option<crate::PresentationError>,
}

impl Installation {
    /// Whether what the sessions see changed.
    pub fn changed(&self) -> bool {
        !self.diff.is_empty()
    }
}
