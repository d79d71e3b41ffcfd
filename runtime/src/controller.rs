//! The profile cell of one agent instance and its controller: the backend's
//! only handle for changing what the agent can reach. The operator's kill
//! switch (`kill`) is part of it: each cell reads the switch it is attached
//! to, and the switch replaces the profile of every cell attached to it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use arc_swap::ArcSwap;
use crossbeam_utils::atomic::AtomicCell;

#[cfg(feature = "runtime-tools")]
use crate::catalog::{Catalog, InstallOutcome, Installation, Runtime, RuntimeDiff};
use crate::disclosure::Disclosure;
use crate::exposure::Digests;
use crate::grouping::{CatalogGroup, Grouped, Lists};
use crate::notification::{Kinds, Sessions};
use crate::presentation::Presentation;
use crate::presentation_error::PresentationError;
use crate::search::{Searching, ToolSearch};
use crate::snapshot::{Content, Served, Snapshots, ToolSnapshot};
#[cfg(feature = "runtime-tools")]
use crate::telemetry::Install;
use crate::telemetry::{self, Outcome};
use crate::{DenyList, Explanation, Profile, ProfileContext, Registry, ToolDiff, Vocabulary};

mod groups;
mod kill;
mod revision;
mod search;

pub use kill::{KillSwitch, KillSwitchChange};
pub use revision::AtRevision;
use revision::Revise;

/// What the sessions serve right now.
pub(crate) struct Current<S: Vocabulary> {
    pub profile: Profile<S>,
    pub tools: &'static ToolSnapshot<S>,
    /// The prompts and resources of the profile's prompt and resource groups.
    pub content: Content<S>,
    /// The operator's kill list this was built under.
    pub killed: DenyList<S>,
    /// Compiled tools only the kill list removed, sorted.
    withheld: Arc<[&'static str]>,
    /// The installed catalog and what the profile's context sees of it.
    #[cfg(feature = "runtime-tools")]
    pub runtime: Runtime<S>,
    /// The attached presentation and `tools/list` under it.
    presented: Option<Presented>,
    /// The attached tool search and what it makes of this state.
    search: Option<Search<S>>,
    /// The revision of the profile (context and catalog) this serves.
    pub revision: u64,
    /// The digests of this state's lists, each made on first use.
    digests: Digests,
    /// What this state answers a client of the grouping extension, made on
    /// first use.
    grouped: OnceLock<Grouped>,
    /// The installed catalog's groups as this state serves them, made on
    /// first use.
    catalog_groups: OnceLock<Vec<CatalogGroup>>,
}

/// A tool search and, where it applies to the profile, what `tools/list`
/// answers under it.
struct Search<S: Vocabulary> {
    config: Arc<ToolSearch<S>>,
    active: Option<Searching>,
}

/// A presentation and the list it presents.
struct Presented {
    presentation: Presentation,
    list: Arc<[rmcp::model::Tool]>,
}

impl<S: Vocabulary> Current<S> {
    /// `tools/list`: where tool search applies, what it lists; else every
    /// tool served ([`reachable`](Self::reachable)).
    pub fn list(&self) -> &[rmcp::model::Tool] {
        match self.searching() {
            Some(searching) => searching.listed(),
            None => self.reachable(),
        }
    }

    /// Every tool served: the compiled tools, plus the visible runtime
    /// ones, under the attached presentation; what search finds among.
    pub fn reachable(&self) -> &[rmcp::model::Tool] {
        match &self.presented {
            Some(presented) => &presented.list,
            None => self.canonical_list(),
        }
    }

    /// The tool search in force for this profile, if any.
    pub fn searching(&self) -> Option<&Searching> {
        self.search.as_ref()?.active.as_ref()
    }

    /// The attached tool search, whether or not it applies here.
    fn search_config(&self) -> Option<Arc<ToolSearch<S>>> {
        self.search.as_ref().map(|search| search.config.clone())
    }

    /// This state under `config` (none: no search): presented first, so
    /// search lists and finds tools by the names they are called by.
    fn searching_with(mut self, config: Option<Arc<ToolSearch<S>>>) -> Self {
        self.search = config.map(|config| {
            let active = config.applies_to(self.profile.context()).then(|| {
                Searching::new(&config, self.reachable(), |name| {
                    match self.unpresent(name) {
                        Some(canonical) => std::borrow::Cow::Owned(canonical),
                        None => std::borrow::Cow::Borrowed(name),
                    }
                })
            });
            Search { config, active }
        });
        self
    }

    /// The same profile, tools and catalog, listed under `presentation`
    /// and `search`.
    fn relisted(
        &self,
        presentation: Option<Presentation>,
        search: Option<Arc<ToolSearch<S>>>,
    ) -> Current<S> {
        Current {
            profile: self.profile.clone(),
            tools: self.tools,
            content: self.content,
            killed: self.killed,
            withheld: self.withheld.clone(),
            #[cfg(feature = "runtime-tools")]
            runtime: self.runtime.clone(),
            presented: None,
            search: None,
            revision: self.revision,
            digests: Digests::default(),
            grouped: OnceLock::new(),
            catalog_groups: OnceLock::new(),
        }
        .listed_under(presentation, search)
    }

    /// This state listed under `presentation` and `search`.
    fn listed_under(
        self,
        presentation: Option<Presentation>,
        search: Option<Arc<ToolSearch<S>>>,
    ) -> Self {
        self.presenting(presentation).searching_with(search)
    }

    /// Whether sessions must hear of the change from `self` to `new`:
    /// under search, when what is listed changed; otherwise when the
    /// served tools changed (`served_changed`).
    fn tools_changed(&self, new: &Current<S>, served_changed: bool) -> bool {
        if self.searching().is_some() || new.searching().is_some() {
            self.list() != new.list()
        } else {
            served_changed
        }
    }

    /// The groups this state enables and its tools marked with them, for
    /// a client of the grouping extension.
    pub fn grouped(&self) -> &Grouped {
        self.grouped.get_or_init(|| {
            let (resources, templates) = &self.content.resources.listed;
            let lists = Lists {
                tools: self.list(),
                canonical: &|name| self.unpresent(name),
                prompts: &self.content.prompts.listed,
                resources,
                templates,
                catalog: self.catalog_groups(),
            };
            Grouped::of(&self.profile, &lists)
        })
    }

    /// The installed catalog's groups with a tool this state serves, each
    /// with those tools: what grouping lists and disclosure activates.
    pub(crate) fn catalog_groups(&self) -> &[CatalogGroup] {
        self.catalog_groups.get_or_init(|| {
            #[cfg(feature = "runtime-tools")]
            if let Some(catalog) = self.runtime.catalog() {
                let served: std::collections::HashSet<&str> = self
                    .canonical_list()
                    .iter()
                    .map(|tool| &*tool.name)
                    .collect();
                return catalog
                    .groups()
                    .map(|group| CatalogGroup::served(group, catalog, &served))
                    .filter(|group| !group.tools.is_empty())
                    .collect();
            }
            Vec::new()
        })
    }

    /// The listed tools under their canonical names, sorted.
    fn canonical_list(&self) -> &[rmcp::model::Tool] {
        #[cfg(feature = "runtime-tools")]
        return self.runtime.list(self.tools);
        #[cfg(not(feature = "runtime-tools"))]
        return &self.tools.tools;
    }

    /// This state under `presentation` (none: canonical names). The
    /// presented list of a compiled snapshot alone is cached by the
    /// presentation; one merged with runtime tools is built here, once per
    /// replacement or install.
    fn presenting(mut self, presentation: Option<Presentation>) -> Self {
        #[cfg(feature = "runtime-tools")]
        let merged = self.runtime.merged();
        #[cfg(not(feature = "runtime-tools"))]
        let merged = false;
        let snapshot = (!merged).then_some(std::ptr::from_ref(self.tools) as usize);
        self.presented = presentation.map(|presentation| Presented {
            list: presentation.list(self.canonical_list(), snapshot),
            presentation,
        });
        self
    }

    /// The attached presentation.
    fn presentation(&self) -> Option<&Presentation> {
        self.presented.as_ref().map(|p| &p.presentation)
    }

    /// The canonical name of the tool a client called `sent` by its
    /// presented name: `None` without a presentation, or when no name
    /// presents as `sent` (a canonical name, or an unknown one). Whether
    /// that tool is served is the caller's to check.
    pub fn unpresent(&self, sent: &str) -> Option<String> {
        let presentation = self.presentation()?;
        let canonical = presentation.unpresent(sent)?;
        (presentation.present(&canonical) == sent).then_some(canonical)
    }

    /// Whether a tool is served under the canonical name `name`.
    pub fn serves(&self, name: &str) -> bool {
        #[cfg(feature = "runtime-tools")]
        if self.runtime.entry(name).is_some() {
            return true;
        }
        self.tools.serves(name)
    }

    /// Whether only the operator's kill switch keeps `name` from being
    /// served: the profile would serve it otherwise.
    pub fn withheld(&self, name: &str) -> bool {
        if self.withheld.binary_search(&name).is_ok() {
            return true;
        }
        #[cfg(feature = "runtime-tools")]
        return self.runtime.withheld(name);
        #[cfg(not(feature = "runtime-tools"))]
        return false;
    }

    /// The listed tool called `name`, by its listed (presented) name or
    /// its canonical one.
    pub fn tool(&self, name: &str) -> Option<&rmcp::model::Tool> {
        let find = |list: &'_ [rmcp::model::Tool]| {
            list.binary_search_by(|tool| (*tool.name).cmp(name)).ok()
        };
        for list in [self.list(), self.reachable()] {
            if let Some(index) = find(list) {
                return Some(&list[index]);
            }
        }
        let canonical = self.canonical_list();
        find(canonical).map(|index| &canonical[index])
    }
}

/// What a swap does to the installed catalog: `None` (the default) keeps
/// it, `Some` installs that one (or none).
#[cfg(feature = "runtime-tools")]
type CatalogSwap<S> = Option<Option<Catalog<S>>>;
/// Without runtime tools there is no catalog to keep or change.
#[cfg(not(feature = "runtime-tools"))]
type CatalogSwap<S> = std::marker::PhantomData<S>;

/// State shared by the controller and every session of one agent instance.
pub(crate) struct Cell<S: Vocabulary> {
    /// Routes and shared snapshots of the server type.
    serving: &'static Snapshots<S>,
    current: ArcSwap<Current<S>>,
    /// `current.tools` again, for dispatch: a snapshot lives as long as
    /// the process, so a call reads it with one plain atomic load, where
    /// `ArcSwap`'s load also writes (and then clears) a slot of its own.
    /// Stored with `current`, by [`Cell::publish`].
    compiled: AtomicCell<&'static ToolSnapshot<S>>,
    /// Serialises replacements, so each one's notifications follow its swap
    /// and an [`update`](ProfileController::update) reads what it replaces.
    replacing: Mutex<()>,
    pub sessions: Arc<Sessions>,
    /// The `ttlMs` put on `tools/list` results.
    list_ttl_ms: AtomicU64,
    /// Whether list answers carry their [`Exposure`](crate::Exposure).
    stamp_exposure: AtomicBool,
    /// Whether sessions whose client declares MCP's grouping extension are
    /// served it (see [`crate::grouping`]).
    grouping: AtomicBool,
    /// How sessions disclose the profile's tools, if progressively.
    disclosure: OnceLock<Arc<Disclosure<S>>>,
    /// Where call decisions go, if anywhere.
    pub decisions: crate::decisions::Sink,
    /// The operator's switch this cell is attached to.
    kill: KillSwitch<S>,
}

impl<S: Vocabulary> Cell<S> {
    pub fn list_ttl_ms(&self) -> u64 {
        self.list_ttl_ms.load(Ordering::Relaxed)
    }

    /// Whether sessions whose client declares the grouping extension are
    /// served it.
    pub fn groups(&self) -> bool {
        self.grouping.load(Ordering::Relaxed)
    }

    /// How sessions disclose the profile's tools, if progressively.
    pub fn disclosure(&self) -> Option<&Arc<Disclosure<S>>> {
        self.disclosure.get()
    }

    /// Whether list answers carry their exposure in `_meta`.
    pub fn stamps_exposure(&self) -> bool {
        self.stamp_exposure.load(Ordering::Relaxed)
    }

    /// The current profile and tools; a call keeps the snapshot it loaded.
    pub fn current(&self) -> Arc<Current<S>> {
        self.current.load_full()
    }

    /// The current compiled tools alone: one atomic load, for dispatch.
    #[inline]
    pub fn compiled(&self) -> &'static ToolSnapshot<S> {
        self.compiled.load()
    }

    /// Makes `current` what every session serves; the caller holds the
    /// replacement lock. The snapshot for dispatch goes first: a call
    /// racing this swap may see either state, and once the swap is done
    /// (before any notification is sent) every call sees the new one.
    fn publish(&self, current: Current<S>) {
        self.compiled.store(current.tools);
        self.current.store(Arc::new(current));
    }
}

/// The backend's handle on one agent instance's profile.
///
/// Replacing the profile swaps the whole tool set atomically for every
/// session of every [`ProfiledServer`](crate::ProfiledServer) made from this
/// controller, and queues exactly one `notifications/tools/list_changed` per
/// initialised session when the tool set changed (none when it did not).
/// Calls already running finish on the snapshot they started with.
/// Replacements are serialised.
///
/// Nothing on the MCP side holds a controller: sessions can read the profile,
/// never change it.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability { Refund }
/// #     #[providers] pub enum Provider {}
/// # }
/// # use rmcp::{ErrorData, model::CallToolResult, tool};
/// # #[mcp_profiles::tool_group(name = "refunds", capability = "refund")]
/// # impl Demo {
/// #     #[tool(description = "Refund")]
/// #     async fn issue_refund(&self) -> Result<CallToolResult, ErrorData> { todo!() }
/// # }
/// use mcp_profiles::{ProfileContext, ProfileController};
///
/// let controller = ProfileController::<Demo>::new(ProfileContext::new(Surface::Ticket));
/// let server = controller.server(Demo); // serve it over stdio, HTTP, ...
///
/// let refunding = ProfileContext::new(Surface::Ticket).with_capability(Capability::Refund)?;
/// let change = controller.replace(refunding);
/// assert_eq!(change.diff.added, ["issue_refund"]);
/// assert!(controller.replace(refunding).diff.is_empty()); // no change, no notification
/// # drop(server);
/// # Ok::<(), mcp_profiles::ContextError>(())
/// ```
pub struct ProfileController<S: Vocabulary> {
    cell: Arc<Cell<S>>,
}

impl<S: Vocabulary> std::fmt::Debug for ProfileController<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfileController")
            .field("context", self.cell.current().profile.context())
            .field("sessions", &self.cell.sessions.len())
            .finish_non_exhaustive()
    }
}

impl<S: Vocabulary> Clone for ProfileController<S> {
    fn clone(&self) -> Self {
        ProfileController {
            cell: Arc::clone(&self.cell),
        }
    }
}

/// The outcome of one replacement.
#[non_exhaustive]
pub struct Replacement<S: Vocabulary> {
    /// The profile before.
    pub old: Profile<S>,
    /// The profile now in force.
    pub new: Profile<S>,
    /// Tools added and removed; empty when the tool set did not change.
    pub diff: ToolDiff,
    /// Runtime tools gained, lost and redefined: the installed catalog's
    /// tools that the old and the new context enable.
    #[cfg(feature = "runtime-tools")]
    pub runtime: RuntimeDiff,
    /// Whether the visible prompts changed (of `#[prompt_group]`s):
    /// sessions were sent one `notifications/prompts/list_changed` (a
    /// session served the grouping extension is also sent one when only a
    /// prompt's groups changed).
    pub prompts_changed: bool,
    /// Whether the visible resources or templates changed (of
    /// `#[resource_group]`s): sessions were sent one
    /// `notifications/resources/list_changed` (a session served the
    /// grouping extension is also sent one when only a resource's groups
    /// changed).
    pub resources_changed: bool,
    /// How many sessions were sent a list_changed (of any kind).
    pub notified_sessions: usize,
    /// Why [`replace_with_catalog`](ProfileController::replace_with_catalog)
    /// refused the catalog, and with it the whole replacement: one of its
    /// tools collides with another under the attached presentation.
    /// Nothing changed: `old` and `new` are the profile in force.
    #[cfg(feature = "runtime-tools")]
    pub refused: Option<PresentationError>,
}

impl<S: Vocabulary> std::fmt::Debug for Replacement<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("Replacement");
        f.field("old", &self.old)
            .field("new", &self.new)
            .field("diff", &self.diff);
        #[cfg(feature = "runtime-tools")]
        f.field("runtime", &self.runtime);
        f.field("prompts_changed", &self.prompts_changed)
            .field("resources_changed", &self.resources_changed)
            .field("notified_sessions", &self.notified_sessions);
        #[cfg(feature = "runtime-tools")]
        f.field("refused", &self.refused);
        f.finish()
    }
}

impl<S: Vocabulary> Replacement<S> {
    /// Whether the tool set changed.
    pub fn changed(&self) -> bool {
        #[cfg(feature = "runtime-tools")]
        if !self.runtime.is_empty() {
            return true;
        }
        !self.diff.is_empty()
    }
}

impl<S: Vocabulary> ProfileController<S> {
    /// A new agent instance serving `initial`, built over `S`'s registry,
    /// with a [`KillSwitch`] of its own ([`kill_switch`](Self::kill_switch)).
    ///
    /// Routes and schemas of `S` are built once per process, a group's when a
    /// profile first enables it; every controller shares them.
    pub fn new(initial: ProfileContext<S>) -> Self {
        Self::with_kill_switch(initial, &KillSwitch::new())
    }

    /// A new agent instance serving `initial` under the operator's `switch`,
    /// which it shares with every other controller attached to it: how a
    /// backend serving many agents kills a tool for all of them at once.
    pub fn with_kill_switch(initial: ProfileContext<S>, switch: &KillSwitch<S>) -> Self {
        let serving = Snapshots::of();
        let cell = switch.attach(|killed| {
            let Served {
                profile,
                tools,
                content,
                withheld,
            } = serving.serve(&initial, killed);
            Arc::new(Cell {
                serving,
                compiled: AtomicCell::new(tools),
                current: ArcSwap::from_pointee(Current {
                    profile,
                    tools,
                    content,
                    killed,
                    withheld,
                    #[cfg(feature = "runtime-tools")]
                    runtime: Runtime::empty(),
                    presented: None,
                    search: None,
                    revision: 1,
                    digests: Digests::default(),
                    grouped: OnceLock::new(),
                    catalog_groups: OnceLock::new(),
                }),
                replacing: Mutex::new(()),
                sessions: Arc::default(),
                list_ttl_ms: AtomicU64::new(0),
                stamp_exposure: AtomicBool::new(false),
                grouping: AtomicBool::new(false),
                disclosure: OnceLock::new(),
                decisions: crate::decisions::Sink::new(),
                kill: switch.clone(),
            })
        });
        ProfileController { cell }
    }

    pub(crate) fn from_cell(cell: Arc<Cell<S>>) -> Self {
        ProfileController { cell }
    }

    /// The cell this controller replaces the profile of.
    pub(crate) fn cell(&self) -> &Arc<Cell<S>> {
        &self.cell
    }

    /// The operator's switch this controller is attached to: setting it
    /// replaces the profile of every controller attached to it.
    pub fn kill_switch(&self) -> KillSwitch<S> {
        self.cell.kill.clone()
    }

    /// Explains the profile in force: every group, on or off and why, and
    /// every tool of an enabled group that the context's policy or the
    /// operator's kill switch removed, and which part removed it.
    pub fn explain(&self) -> Explanation<'static, S> {
        let current = self.cell.current();
        self.registry()
            .explain_under(current.profile.context(), current.killed)
    }

    /// Serves the current context again under the kill list in force: the
    /// kill switch's step for this controller.
    pub(crate) fn reapply(&self) -> Replacement<S> {
        let guard = self.lock();
        let context = *self.cell.current().profile.context();
        let replacement = self.swap(context, CatalogSwap::default(), Revise::Keep);
        drop(guard);
        replacement
    }

    /// Sets how long clients may cache a `tools/list` result (`ttlMs`,
    /// scope `private`), for every session of this controller and every
    /// clone of it. The default, zero, is the only value that keeps a client
    /// that did not subscribe from serving a stale list after a replacement:
    /// replacements come at any time and only subscribers hear of them.
    /// Subscribed rmcp clients drop their cached list on `list_changed`, so
    /// a deployment whose clients all subscribe can raise it.
    pub fn set_list_ttl(&self, ttl: Duration) {
        let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        self.cell.list_ttl_ms.store(millis, Ordering::Relaxed);
    }

    /// [`set_list_ttl`](Self::set_list_ttl), returning the controller.
    #[deprecated(
        note = "use `set_list_ttl`: the TTL is shared by every clone of the controller, which a builder-style name hides"
    )]
    pub fn with_list_ttl(self, ttl: Duration) -> Self {
        self.set_list_ttl(ttl);
        self
    }

    /// The profile in force.
    pub fn current(&self) -> Profile<S> {
        self.cell.current().profile.clone()
    }

    /// The prompts sessions list now (of `#[prompt_group]`s the profile
    /// enables), sorted by name.
    pub fn prompts(&self) -> Vec<rmcp::model::Prompt> {
        self.cell.current().content.prompts.listed.clone()
    }

    /// The fixed resources sessions list now (of `#[resource_group]`s the
    /// profile enables), sorted by URI.
    pub fn resources(&self) -> Vec<rmcp::model::Resource> {
        self.cell.current().content.resources.listed.0.clone()
    }

    /// The resource templates sessions list now, sorted by template.
    pub fn resource_templates(&self) -> Vec<rmcp::model::ResourceTemplate> {
        self.cell.current().content.resources.listed.1.clone()
    }

    /// The registry profiles are assembled from.
    pub fn registry(&self) -> &'static Registry<S> {
        self.cell.serving.registry()
    }

    /// How many initialised sessions are live.
    pub fn session_count(&self) -> usize {
        self.cell.sessions.len()
    }

    /// Lists every tool under `presentation`'s name for it, for every
    /// session of this controller and every clone of it; a call by the
    /// presented name reaches the tool, and so does one by its canonical
    /// name (which no other tool can present as). Replacing any earlier
    /// presentation, and sending one `tools/list_changed` per session when
    /// the listed names changed.
    ///
    /// Refused, changing nothing, unless it is collision-free over every
    /// compiled tool of the registry and every tool of the installed
    /// catalog: the error names both tools (see
    /// [`Presentation::verify`]). Catalogs installed later are checked
    /// against it likewise. Profiles, diffs, policies, the kill switch
    /// and [`explain`](Self::explain) keep canonical names.
    pub fn set_presentation(&self, presentation: Presentation) -> Result<(), PresentationError> {
        let guard = self.lock();
        let previous = self.cell.current();
        let compiled = crate::presentation::compiled_names(self.registry());
        #[cfg(feature = "runtime-tools")]
        let runtime = previous.runtime.catalog().map(Catalog::tool_names);
        #[cfg(not(feature = "runtime-tools"))]
        let runtime = None::<std::iter::Empty<&str>>;
        presentation.verify_names(compiled.chain(runtime.into_iter().flatten()))?;
        if let Some(search) = previous.search_config() {
            search.check_names(self.served_names(&previous), Some(&presentation))?;
        }
        drop(previous);
        self.present_locked(Some(presentation));
        drop(guard);
        Ok(())
    }

    /// Lists canonical names again, with one `tools/list_changed` per
    /// session when that changed the listed names.
    pub fn clear_presentation(&self) {
        let guard = self.lock();
        self.present_locked(None);
        drop(guard);
    }

    /// The attached presentation, if any.
    pub fn presentation(&self) -> Option<Presentation> {
        self.cell.current().presentation().cloned()
    }

    /// Swaps in `presentation`; the caller holds the replacement lock.
    fn present_locked(&self, presentation: Option<Presentation>) {
        let cell = &self.cell;
        let previous = cell.current();
        let current = previous.relisted(presentation, previous.search_config());
        let (old, new) = (previous.list(), current.list());
        let changed = old.len() != new.len() || old.iter().zip(new).any(|(a, b)| a.name != b.name);
        drop(previous);
        cell.publish(current);
        let notified_sessions = if changed {
            cell.sessions.notify_all(Kinds::TOOLS)
        } else {
            0
        };
        tracing::info!(changed, notified_sessions, "tool name presentation set");
    }

    /// Replaces the profile with the one `context` assembles into.
    pub fn replace(&self, context: ProfileContext<S>) -> Replacement<S> {
        self.replace_revised(context, Revise::Next)
    }

    /// [`replace`](Self::replace), the new state numbered as `revise` says.
    fn replace_revised(&self, context: ProfileContext<S>, revise: Revise) -> Replacement<S> {
        let guard = self.lock();
        let replacement = self.swap(context, CatalogSwap::default(), revise);
        drop(guard);
        replacement
    }

    /// Replaces the profile and the installed catalog (`None`: none) in one
    /// swap, with one `list_changed` per session if what it sees changed.
    /// For a store that keeps both and orders them itself: the catalog is
    /// installed whatever its generation and revision.
    #[cfg(feature = "runtime-tools")]
    pub fn replace_with_catalog(
        &self,
        context: ProfileContext<S>,
        catalog: Option<Catalog<S>>,
    ) -> Replacement<S> {
        self.replace_with_catalog_revised(context, catalog, Revise::Next)
    }

    /// [`replace_with_catalog`](Self::replace_with_catalog), the new state
    /// numbered as `revise` says.
    #[cfg(feature = "runtime-tools")]
    fn replace_with_catalog_revised(
        &self,
        context: ProfileContext<S>,
        catalog: Option<Catalog<S>>,
        revise: Revise,
    ) -> Replacement<S> {
        let guard = self.lock();
        if let Err(refused) = self.admit(catalog.as_ref()) {
            drop(guard);
            telemetry::replacement(Outcome::Refused);
            let current = self.current();
            return Replacement {
                old: current.clone(),
                new: current,
                diff: ToolDiff::default(),
                runtime: RuntimeDiff::default(),
                prompts_changed: false,
                resources_changed: false,
                notified_sessions: 0,
                refused: Some(refused),
            };
        }
        let replacement = self.swap(context, Some(catalog), revise);
        drop(guard);
        replacement
    }

    /// Replaces the profile with one computed from the current context, in
    /// one serialised step: no other replacement can fall between the read
    /// and the swap. If `change` fails, nothing changes and nothing is sent.
    ///
    /// This is the general form of the backend's live updates: grant a
    /// capability, switch the surface, attach providers, or map an
    /// application's own legacy inputs onto a context.
    ///
    /// ```
    /// # mod server {
    /// #     #[derive(Clone)] pub struct Demo;
    /// #     impl rmcp::ServerHandler for Demo {}
    /// # }
    /// # use server::Demo;
    /// # mcp_profiles::vocabulary! {
    /// #     server Demo;
    /// #     #[surfaces] pub enum Surface { Ticket, Chat }
    /// #     #[capabilities] pub enum Capability { Refund, #[exclusive_with(Refund)] ReadOnly }
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// # use rmcp::{ErrorData, model::CallToolResult, tool};
    /// # #[mcp_profiles::tool_group(name = "refunds", capability = "refund")]
    /// # impl Demo {
    /// #     #[tool(description = "Refund")]
    /// #     async fn issue_refund(&self) -> Result<CallToolResult, ErrorData> { todo!() }
    /// # }
    /// use mcp_profiles::{ProfileContext, ProfileController};
    ///
    /// let read_only = ProfileContext::new(Surface::Ticket).with_capability(Capability::ReadOnly)?;
    /// let controller = ProfileController::<Demo>::new(read_only);
    ///
    /// // Granting a refund to a read-only session is refused...
    /// let refused = controller.update(|current| current.with_capability(Capability::Refund));
    /// assert!(refused.is_err());
    /// assert_eq!(*controller.current().context(), read_only); // ...and changes nothing.
    ///
    /// let change = controller.update(|current| {
    ///     current.without_capability(Capability::ReadOnly).with_capability(Capability::Refund)
    /// })?;
    /// assert_eq!(change.diff.added, ["issue_refund"]);
    /// # Ok::<(), mcp_profiles::ContextError>(())
    /// ```
    pub fn update<E>(
        &self,
        change: impl FnOnce(&ProfileContext<S>) -> Result<ProfileContext<S>, E>,
    ) -> Result<Replacement<S>, E> {
        let guard = self.lock();
        let current = *self.cell.current().profile.context();
        let context = change(&current).inspect_err(|_| telemetry::replacement(Outcome::Refused))?;
        let replacement = self.swap(context, CatalogSwap::default(), Revise::Next);
        drop(guard);
        Ok(replacement)
    }

    /// Assembles, swaps and notifies; the caller holds the replacement lock.
    ///
    /// The kill list is read here, under that lock: a flip of the switch
    /// stores its list before it takes each controller's lock, so every
    /// swap after the store uses the new list.
    fn swap(
        &self,
        context: ProfileContext<S>,
        catalog: CatalogSwap<S>,
        revise: Revise,
    ) -> Replacement<S> {
        let cell = &self.cell;
        let previous = cell.current();
        let old = previous.profile.clone();
        #[cfg(feature = "metrics")]
        let _span = tracing::info_span!(
            "mcp_profiles.replace",
            old = %old.context(),
            profile = %context,
        )
        .entered();
        let killed = cell.kill.killed();
        let Served {
            profile: new,
            tools,
            content,
            withheld,
        } = cell.serving.serve(&context, killed);
        let diff = old.diff(&new);
        let prompts_changed = previous.content.prompts.differs(content.prompts);
        let resources_changed = previous.content.resources.differs(content.resources);
        #[cfg(feature = "runtime-tools")]
        let catalog = catalog.unwrap_or_else(|| previous.runtime.catalog().cloned());
        #[cfg(not(feature = "runtime-tools"))]
        let _ = catalog;
        #[cfg(feature = "runtime-tools")]
        let runtime = Runtime::new(catalog, &context, killed, tools);
        #[cfg(feature = "runtime-tools")]
        let runtime_diff = previous.runtime.diff(&runtime);
        #[cfg(feature = "runtime-tools")]
        let unchanged = diff.is_empty() && runtime_diff.is_empty();
        #[cfg(not(feature = "runtime-tools"))]
        let unchanged = diff.is_empty();
        let current = Current {
            profile: new.clone(),
            tools,
            content,
            killed,
            withheld,
            #[cfg(feature = "runtime-tools")]
            runtime,
            presented: None,
            search: None,
            revision: revise.after(previous.revision),
            digests: Digests::default(),
            grouped: OnceLock::new(),
            catalog_groups: OnceLock::new(),
        }
        .listed_under(previous.presentation().cloned(), previous.search_config());
        let tools_changed = previous.tools_changed(&current, !unchanged);
        // Only a cell serving the grouping extension builds what its
        // grouping sessions are answered, and only they hear of it.
        let grouping = cell.groups();
        let grouping_changes = match grouping {
            true => grouping_changes(previous.grouped(), current.grouped()),
            false => Kinds::NONE,
        };
        drop(previous);
        cell.publish(current);
        let kinds = grouping_changes
            .with(Kinds::TOOLS, tools_changed)
            .with(Kinds::PROMPTS, prompts_changed)
            .with(Kinds::RESOURCES, resources_changed);
        let notified_sessions = if kinds == Kinds::NONE {
            telemetry::replacement(Outcome::Unchanged);
            0
        } else {
            telemetry::replacement(Outcome::Changed);
            cell.sessions.notify_all(kinds)
        };
        tracing::info!(
            old = %old.context(),
            new = %new.context(),
            tools = new.tool_names().len(),
            added = diff.added.len(),
            removed = diff.removed.len(),
            notified_sessions,
            "tool profile replaced"
        );
        Replacement {
            old,
            new,
            diff,
            #[cfg(feature = "runtime-tools")]
            runtime: runtime_diff,
            prompts_changed,
            resources_changed,
            notified_sessions,
            #[cfg(feature = "runtime-tools")]
            refused: None,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.cell
            .replacing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// Runtime tool groups: a catalog installed on this controller joins the
/// compiled tools of every session it serves.
///
/// A backend that serves several controllers (one per agent, or the agents
/// of a `ProfileStore`) builds one [`Catalog`] and installs a clone on each:
/// verification and schema compilation happen once, in [`Catalog::new`],
/// and sessions with the same visible tools share one list.
///
/// [`Profile`], [`Registry::assemble`] and [`Registry::explain`] stay
/// compiled-only; [`tools`](Self::tools) is what sessions list.
#[cfg(feature = "runtime-tools")]
impl<S: Vocabulary> ProfileController<S> {
    /// Installs `catalog` for every session of this controller.
    ///
    /// Serialised with [`replace`](Self::replace) and
    /// [`update`](Self::update). A catalog whose revision is not newer than
    /// the installed one of the same generation is ignored; another
    /// generation always installs. Sessions are sent exactly one
    /// `tools/list_changed` when what they see changed (a runtime tool
    /// appeared, disappeared or was redefined), none otherwise. Calls already
    /// running finish on the catalog they started with.
    pub fn install(&self, catalog: &Catalog<S>) -> Installation {
        let guard = self.lock();
        if let Err(refused) = self.admit(Some(catalog)) {
            return self.refuse(catalog, refused);
        }
        let installed = self.cell.current().runtime.catalog().cloned();
        if let Some(installed) = installed.filter(|old| !old.superseded_by(catalog)) {
            telemetry::install(Install::IgnoredStale);
            tracing::debug!(
                generation = catalog.generation(),
                revision = catalog.revision(),
                installed = installed.revision(),
                "ignored a stale tool catalog"
            );
            return Installation {
                outcome: InstallOutcome::IgnoredStale,
                generation: installed.generation().to_owned(),
                revision: installed.revision(),
                diff: RuntimeDiff::default(),
                notified_sessions: 0,
                refused: None,
            };
        }
        self.set_catalog_locked(Some(catalog), guard, Revise::Next)
    }

    /// Installs `catalog` (`None`: none) whatever the installed one's
    /// generation and revision, with one `list_changed` per session whose
    /// visible tools changed. For a store whose own version order decides
    /// which catalog is newer; [`install`](Self::install) ignores stale ones.
    pub fn set_catalog(&self, catalog: Option<&Catalog<S>>) -> Installation {
        self.set_catalog_revised(catalog, Revise::Next)
    }

    /// [`set_catalog`](Self::set_catalog), the new state numbered as
    /// `revise` says.
    fn set_catalog_revised(&self, catalog: Option<&Catalog<S>>, revise: Revise) -> Installation {
        let guard = self.lock();
        if let Some(catalog) = catalog
            && let Err(refused) = self.admit(Some(catalog))
        {
            return self.refuse(catalog, refused);
        }
        self.set_catalog_locked(catalog, guard, revise)
    }

    /// Whether `catalog` may be installed under the attached presentation:
    /// none of its tools may present as another tool's name, compiled or
    /// runtime, nor as the name another tool presents as. The caller holds
    /// the replacement lock.
    fn admit(&self, catalog: Option<&Catalog<S>>) -> Result<(), PresentationError> {
        let current = self.cell.current();
        let Some(catalog) = catalog else {
            return Ok(());
        };
        if let Some(presentation) = current.presentation() {
            presentation.verify_catalog(catalog)?;
        }
        match current.search_config() {
            Some(search) => search.check_names(catalog.tool_names(), current.presentation()),
            None => Ok(()),
        }
    }

    /// The outcome of a catalog [`admit`](Self::admit) refused: nothing
    /// changed.
    fn refuse(&self, catalog: &Catalog<S>, refused: PresentationError) -> Installation {
        telemetry::install(Install::Refused);
        tracing::warn!(
            generation = catalog.generation(),
            revision = catalog.revision(),
            %refused,
            "refused a tool catalog"
        );
        let installed = self.catalog();
        Installation {
            outcome: InstallOutcome::Refused,
            generation: installed
                .as_ref()
                .map_or_else(String::new, |c| c.generation().to_owned()),
            revision: installed.map_or(0, |c| c.revision()),
            diff: RuntimeDiff::default(),
            notified_sessions: 0,
            refused: Some(refused),
        }
    }

    fn set_catalog_locked(
        &self,
        catalog: Option<&Catalog<S>>,
        guard: std::sync::MutexGuard<'_, ()>,
        revise: Revise,
    ) -> Installation {
        let cell = &self.cell;
        let previous = cell.current();
        let outcome = match (previous.runtime.catalog(), catalog) {
            (Some(old), Some(new)) if old.same_definitions(new) => InstallOutcome::Unchanged,
            (None, None) => InstallOutcome::Unchanged,
            _ => InstallOutcome::Installed,
        };
        telemetry::install(match outcome {
            InstallOutcome::Unchanged => Install::Unchanged,
            _ => Install::Installed,
        });
        let context = *previous.profile.context();
        // The compiled side stays as it is: only a swap reads the kill list
        // again, so the runtime side keeps to the list it was built under.
        let runtime = Runtime::new(catalog.cloned(), &context, previous.killed, previous.tools);
        let diff = previous.runtime.diff(&runtime);
        let current = Current {
            profile: previous.profile.clone(),
            tools: previous.tools,
            content: previous.content,
            killed: previous.killed,
            withheld: previous.withheld.clone(),
            runtime,
            presented: None,
            search: None,
            revision: revise.after(previous.revision),
            digests: Digests::default(),
            grouped: OnceLock::new(),
            catalog_groups: OnceLock::new(),
        }
        .listed_under(previous.presentation().cloned(), previous.search_config());
        let tools_changed = previous.tools_changed(&current, !diff.is_empty());
        // A catalog's own groups come and go with it (see `swap`).
        let grouping = cell.groups();
        let grouping_changes = match grouping {
            true => grouping_changes(previous.grouped(), current.grouped()),
            false => Kinds::NONE,
        };
        cell.publish(current);
        drop(previous);
        let kinds = grouping_changes.with(Kinds::TOOLS, tools_changed);
        let notified_sessions = if kinds == Kinds::NONE {
            0
        } else {
            cell.sessions.notify_all(kinds)
        };
        drop(guard);
        let (generation, revision) = catalog.map_or(("", 0), |catalog| {
            (catalog.generation(), catalog.revision())
        });
        tracing::info!(
            generation,
            revision,
            tools = catalog.map_or(0, |catalog| catalog.tools().len()),
            ?outcome,
            added = diff.added.len(),
            removed = diff.removed.len(),
            changed = diff.changed.len(),
            notified_sessions,
            "tool catalog installed"
        );
        Installation {
            outcome,
            generation: generation.to_owned(),
            revision,
            diff,
            notified_sessions,
            refused: None,
        }
    }

    /// The installed catalog, if any.
    pub fn catalog(&self) -> Option<Catalog<S>> {
        self.cell.current().runtime.catalog().cloned()
    }
}

/// What a grouping client is told of the change from `previous` to `next`:
/// [`Kinds::GROUPS`] when the group list changed, and each list whose
/// marked answer changed as its membership kind (its `list_changed`, whether
/// or not the list changed for other clients).
fn grouping_changes(previous: &Grouped, next: &Grouped) -> Kinds {
    Kinds::NONE
        .with(Kinds::GROUPS, previous.groups != next.groups)
        .with(Kinds::TOOL_MEMBERSHIP, previous.tools != next.tools)
        .with(Kinds::PROMPT_MEMBERSHIP, previous.prompts != next.prompts)
        .with(
            Kinds::RESOURCE_MEMBERSHIP,
            previous.resources != next.resources || previous.templates != next.templates,
        )
}
