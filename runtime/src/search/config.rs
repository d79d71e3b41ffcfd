//! What a server's tool search is: where it applies, what stays listed,
//! what its two tools are called and how many results a search returns.

use std::fmt;
use std::sync::Arc;

use rmcp::model::Tool;

use super::definitions;
use crate::presentation::compiled_names;
use crate::tool_name::check_name;
use crate::{Clipped, ProfileContext, Vocabulary};

/// Tool search for a controller's sessions
/// ([`ProfileController::set_tool_search`](crate::ProfileController::set_tool_search)):
/// where it applies, `tools/list` answers the tools of the always-listed
/// groups the profile enables and two tools of the server's — a search
/// over every tool the profile serves (names, descriptions, parameter
/// names; BM25) and a call proxy (a tool's name and arguments: the same
/// dispatch, and the same refusals, as a direct `tools/call`). Clients that
/// call tools they were not listed directly keep working.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Desk;
/// #     impl rmcp::ServerHandler for Desk {}
/// # }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Ticket, Admin }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// # use rmcp::{ErrorData, model::CallToolResult, tool};
/// # #[mcp_profiles::tool_group(name = "tickets", always)]
/// # impl Desk {
/// #     #[tool(description = "Read a ticket")]
/// #     async fn read_ticket(&self) -> Result<CallToolResult, ErrorData> { todo!() }
/// # }
/// use mcp_profiles::{ProfileContext, ProfileController, ToolSearch};
///
/// let search = ToolSearch::<Desk>::new()
///     .on_surfaces([Surface::Admin])
///     .always_listing(["tickets"])?;
/// let controller = ProfileController::<Desk>::new(ProfileContext::new(Surface::Admin));
/// controller.set_tool_search(search)?;
/// let listed: Vec<_> = controller.tools().into_iter().map(|tool| tool.name).collect();
/// assert_eq!(listed, ["call_tool", "read_ticket", "search_tools"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ToolSearch<S: Vocabulary> {
    /// `None`: every surface.
    surfaces: Option<Vec<S::Surface>>,
    /// Indices of the always-listed groups in the registry.
    always: Vec<usize>,
    /// Their tools, sorted: looked up on every replacement.
    always_tools: Vec<&'static str>,
    search: Arc<str>,
    call: Arc<str>,
    default_limit: usize,
    max_limit: usize,
    /// The search tool and the call proxy as listed: built when their
    /// names or limits are set, not on every replacement.
    tools: [Tool; 2],
}

impl<S: Vocabulary> Clone for ToolSearch<S> {
    fn clone(&self) -> Self {
        ToolSearch {
            surfaces: self.surfaces.clone(),
            always: self.always.clone(),
            always_tools: self.always_tools.clone(),
            search: self.search.clone(),
            call: self.call.clone(),
            default_limit: self.default_limit,
            max_limit: self.max_limit,
            tools: self.tools.clone(),
        }
    }
}

impl<S: Vocabulary> fmt::Debug for ToolSearch<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSearch")
            .field("surfaces", &self.surfaces)
            .field("always_listed", &self.always_listed().collect::<Vec<_>>())
            .field("search", &self.search)
            .field("call", &self.call)
            .field("default_limit", &self.default_limit)
            .field("max_limit", &self.max_limit)
            .finish()
    }
}

impl<S: Vocabulary> Default for ToolSearch<S> {
    fn default() -> Self {
        ToolSearch::new()
    }
}

/// The name of the search tool unless told.
pub const DEFAULT_SEARCH_NAME: &str = "search_tools";
/// The name of the call proxy unless told.
pub const DEFAULT_CALL_NAME: &str = "call_tool";

impl<S: Vocabulary> ToolSearch<S> {
    /// Search on every surface, no group always listed, the tools named
    /// `search_tools` and `call_tool`, 5 results unless a search asks for
    /// up to 20.
    pub fn new() -> Self {
        ToolSearch {
            surfaces: None,
            always: Vec::new(),
            always_tools: Vec::new(),
            search: Arc::from(DEFAULT_SEARCH_NAME),
            call: Arc::from(DEFAULT_CALL_NAME),
            default_limit: 5,
            max_limit: 20,
            tools: [Tool::default(), Tool::default()],
        }
        .with_tools()
    }

    /// This search with its two tools' definitions made anew.
    fn with_tools(mut self) -> Self {
        self.tools = [
            definitions::search_tool(&self.search, self.default_limit, self.max_limit),
            definitions::call_tool(&self.call, &self.search),
        ];
        self
    }

    /// Search only where the context's surface is one of `surfaces`;
    /// elsewhere `tools/list` lists every tool as without search.
    pub fn on_surfaces(mut self, surfaces: impl IntoIterator<Item = S::Surface>) -> Self {
        let mut surfaces: Vec<S::Surface> = surfaces.into_iter().collect();
        surfaces.sort_unstable();
        surfaces.dedup();
        self.surfaces = Some(surfaces);
        self
    }

    /// Lists the tools of `groups` (those the profile enables and serves)
    /// besides the two search tools. An unknown group is an error naming
    /// it, and the declared groups.
    pub fn always_listing<'a>(
        mut self,
        groups: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, ToolSearchError> {
        let registry = S::registry();
        for name in groups {
            let index = registry
                .groups()
                .iter()
                .position(|group| group.name() == name)
                .ok_or_else(|| ToolSearchError::UnknownGroup {
                    group: name.to_owned(),
                    declared: registry.group_names(),
                })?;
            self.always.push(index);
        }
        self.always.sort_unstable();
        self.always.dedup();
        let groups = registry.groups();
        self.always_tools = self
            .always
            .iter()
            .flat_map(|&index| groups[index].tools().iter().copied())
            .collect();
        self.always_tools.sort_unstable();
        self.always_tools.dedup();
        Ok(self)
    }

    /// Names the search tool `search` and the call proxy `call`: valid
    /// tool names, different from each other and from every compiled tool
    /// (a runtime catalog or a name presentation that would list a tool
    /// under either is refused when attached or installed).
    pub fn with_names(mut self, search: &str, call: &str) -> Result<Self, ToolSearchError> {
        for name in [search, call] {
            check_name(name).map_err(|why| ToolSearchError::InvalidName {
                name: name.to_owned(),
                why,
            })?;
            if compiled_names(S::registry()).any(|tool| tool == name) {
                return Err(ToolSearchError::CompiledTool {
                    name: name.to_owned(),
                });
            }
        }
        if search == call {
            return Err(ToolSearchError::SameName {
                name: search.to_owned(),
            });
        }
        self.search = Arc::from(search);
        self.call = Arc::from(call);
        Ok(self.with_tools())
    }

    /// Returns `default` results when a search does not say how many, and
    /// at most `max` when it does (1 ≤ `default` ≤ `max` ≤ 100).
    pub fn with_limits(mut self, default: usize, max: usize) -> Result<Self, ToolSearchError> {
        if !(1 <= default && default <= max && max <= 100) {
            return Err(ToolSearchError::InvalidLimits { default, max });
        }
        self.default_limit = default;
        self.max_limit = max;
        Ok(self.with_tools())
    }

    /// Whether search applies to `context`.
    pub fn applies_to(&self, context: &ProfileContext<S>) -> bool {
        self.surfaces
            .as_ref()
            .is_none_or(|surfaces| surfaces.binary_search(&context.surface()).is_ok())
    }

    /// The always-listed groups, in registry order.
    pub fn always_listed(&self) -> impl Iterator<Item = &'static str> + '_ {
        let groups = S::registry().groups();
        self.always.iter().map(move |&index| groups[index].name())
    }

    /// The search tool's name.
    pub fn search_name(&self) -> &str {
        &self.search
    }

    /// The call proxy's name.
    pub fn call_name(&self) -> &str {
        &self.call
    }

    /// The canonical names of the compiled tools a profile would always
    /// list: those of the always-listed groups, sorted.
    pub(crate) fn always_listed_tools(&self) -> &[&'static str] {
        &self.always_tools
    }

    /// The search tool and the call proxy as listed.
    pub(crate) fn tools(&self) -> &[Tool; 2] {
        &self.tools
    }

    /// The limits: results unless told, and at most.
    pub(crate) fn limits(&self) -> (usize, usize) {
        (self.default_limit, self.max_limit)
    }
}

/// A [`ToolSearch`] that cannot be: the value at fault and what would be
/// right.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolSearchError {
    /// An always-listed group the registry does not declare.
    UnknownGroup {
        /// The name given.
        group: String,
        /// The registry's groups.
        declared: Vec<String>,
    },
    /// A name for one of search's tools that is not a tool name.
    InvalidName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// A name for one of search's tools that a compiled tool has.
    CompiledTool {
        /// The name given.
        name: String,
    },
    /// The search tool and the call proxy given one name.
    SameName {
        /// The name given to both.
        name: String,
    },
    /// Limits outside 1 ≤ default ≤ max ≤ 100.
    InvalidLimits {
        /// The default given.
        default: usize,
        /// The maximum given.
        max: usize,
    },
}

impl fmt::Display for ToolSearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolSearchError::UnknownGroup { group, declared } => write!(
                f,
                "no tool group `{}` to always list; the groups are: {}",
                Clipped(group),
                declared.join(", ")
            ),
            ToolSearchError::InvalidName { name, why } => {
                write!(f, "`{}` cannot name a search tool: {why}", Clipped(name))
            }
            ToolSearchError::CompiledTool { name } => write!(
                f,
                "`{}` cannot name a search tool: a compiled tool has that name",
                Clipped(name)
            ),
            ToolSearchError::SameName { name } => write!(
                f,
                "the search tool and the call proxy are both named `{}`; give them two names",
                Clipped(name)
            ),
            ToolSearchError::InvalidLimits { default, max } => write!(
                f,
                "search limits {default} (default) and {max} (max) must hold 1 <= default <= max <= 100"
            ),
        }
    }
}

impl std::error::Error for ToolSearchError {}
