//! Groups on the wire: MCP's draft grouping extension
//! ([`GROUPING_EXTENSION`], repository `experimental-ext-grouping`), served
//! from the registry, for the sessions whose client declares it.
//!
//! With [`ProfileController::set_grouping`](crate::ProfileController::set_grouping)
//! on, a client that declares the extension in its capabilities
//! (`capabilities.extensions["io.modelcontextprotocol/grouping"]`) gets:
//!
//! - the extension declared back in the server's capabilities, with
//!   `listChanged`;
//! - `groups/list`: the groups its profile enables, and only those (a group
//!   the profile does not enable is never named), each with its `title` and
//!   `description` as declared (`#[tool_group(title = ..., description =
//!   ...)]`);
//! - every listed tool's membership in its `_meta`
//!   ([`GROUP_MEMBERSHIP_KEY`]): each enabled group that brings it, so a
//!   tool an `include` shares belongs to every such group; and each listed
//!   group's: the enabled groups that include it (`include(...)`), so
//!   composed groups nest (never in a cycle, nor in themselves:
//!   [`RegistryError::GroupCycle`](crate::RegistryError::GroupCycle));
//! - the installed runtime catalog's own groups (`RuntimeGroup`, feature
//!   `runtime-tools`), each listed while the session lists one of its
//!   tools, its tools marked with it;
//! - `notifications/groups/list_changed` once per replacement (or catalog
//!   install) that changes the enabled groups, none otherwise: to 2025-era
//!   sessions, and to 2026-07-28 `subscriptions/listen` streams that ask
//!   for it in their `_meta` ([`GROUPS_LIST_CHANGED_KEY`]; never to one
//!   that does not: rmcp's client fails a stream that carries a
//!   notification it did not ask for);
//! - a listed tool's, prompt's or resource's membership change without a
//!   change of its list told as that list's `list_changed`, as the
//!   extension asks.
//!
//! A client that does not declare it sees exactly what it saw without:
//! no capability, no `_meta` membership, `groups/list` unknown. Groups
//! describe the profile; they are never an access boundary: what a session
//! may call is its profile's, as before.
//!
//! The group list and the membership-marked tool list are built once per
//! served state, on first use, never per request.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, JsonObject, MetaObject, Prompt, Resource, ResourceTemplate,
    ServerCapabilities, Tool,
};
use serde_json::{Value, json};

use crate::{Group, Profile, Vocabulary};

/// The extension's identifier, under `capabilities.extensions`.
pub const GROUPING_EXTENSION: &str = "io.modelcontextprotocol/grouping";

/// The `_meta` key naming the groups a listed primitive belongs to.
pub const GROUP_MEMBERSHIP_KEY: &str = "io.modelcontextprotocol/groups";

/// The `_meta` key a 2026-07-28 `subscriptions/listen` request sets to
/// `true` to hear `notifications/groups/list_changed` on its stream.
///
/// The request's filter is where a stream names what it hears, but MCP's
/// filter has no key for groups (the extension defines none) and SDKs drop
/// keys they do not know, so the stream asks in its `_meta`, which every
/// SDK carries. Heard when the server serves the extension to the stream's
/// client (it declares the extension in its request's capabilities); the
/// acknowledgement cannot say so (its filter has no key either).
///
/// ```json
/// {"method": "subscriptions/listen", "params": {
///   "_meta": {"mcp-profiles/groups/listChanged": true, "...": "..."},
///   "notifications": {"toolsListChanged": true}}}
/// ```
pub const GROUPS_LIST_CHANGED_KEY: &str = "mcp-profiles/groups/listChanged";

/// Whether a `subscriptions/listen` request's `meta` asks for
/// `groups/list_changed` ([`GROUPS_LIST_CHANGED_KEY`]); an error naming the
/// value when it is neither `true` nor `false`.
pub(crate) fn asks_for_groups(meta: &MetaObject) -> Result<bool, rmcp::ErrorData> {
    match meta.0.get(GROUPS_LIST_CHANGED_KEY) {
        None => Ok(false),
        Some(Value::Bool(asks)) => Ok(*asks),
        Some(other) => Err(rmcp::ErrorData::invalid_params(
            format!(
                "`_meta[\"{GROUPS_LIST_CHANGED_KEY}\"]` must be true or false, not {}",
                crate::clipped::Clipped(&other.to_string())
            ),
            None,
        )),
    }
}

/// The request that lists the groups.
pub(crate) const LIST_GROUPS: &str = "groups/list";

/// The notification that the group list changed.
pub(crate) const GROUPS_LIST_CHANGED: &str = "notifications/groups/list_changed";

/// Whether a client with `capabilities` declared the extension.
pub(crate) fn declared(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|capabilities| capabilities.extensions.as_ref())
        .is_some_and(|extensions| extensions.contains_key(GROUPING_EXTENSION))
}

/// Declares the extension, with `listChanged`, in `capabilities`.
pub(crate) fn declare(capabilities: &mut ServerCapabilities) {
    let mut settings = JsonObject::new();
    settings.insert("listChanged".to_owned(), Value::Bool(true));
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(GROUPING_EXTENSION.to_owned(), settings);
}

/// What one served state answers a client that declared the extension.
#[derive(Debug, PartialEq)]
pub(crate) struct Grouped {
    /// `groups/list`'s `groups`: the enabled tool, prompt and resource
    /// groups, by name.
    pub groups: Value,
    /// `tools/list`, each tool of a group marked with its groups.
    pub tools: Arc<[Tool]>,
    /// `prompts/list`, `resources/list` and `resources/templates/list`,
    /// each item marked with its group.
    pub prompts: Vec<Prompt>,
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
}

/// One state's lists as every client is answered: what [`Grouped::of`]
/// marks.
pub(crate) struct Lists<'a> {
    pub tools: &'a [Tool],
    /// A listed tool's canonical name, when it is listed under another.
    pub canonical: &'a dyn Fn(&str) -> Option<String>,
    pub prompts: &'a [Prompt],
    pub resources: &'a [Resource],
    pub templates: &'a [ResourceTemplate],
    /// The installed runtime catalog's groups with a served tool.
    pub catalog: &'a [CatalogGroup],
}

/// A group of the installed runtime catalog (`RuntimeGroup`) as one
/// served state has it: with a tool the state serves (listed by grouping
/// while one of them is listed; activatable under disclosure).
pub(crate) struct CatalogGroup {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Its tools the state serves, by canonical name.
    pub tools: Vec<String>,
}

impl CatalogGroup {
    /// `group` of `catalog`, with its tools in `served`.
    #[cfg(feature = "runtime-tools")]
    pub fn served<S: Vocabulary>(
        group: &crate::RuntimeGroup,
        catalog: &crate::Catalog<S>,
        served: &std::collections::HashSet<&str>,
    ) -> Self {
        let in_group = |tool: &&crate::RuntimeTool<S>| tool.groups().any(|of| of == group.name());
        CatalogGroup {
            name: group.name().to_owned(),
            title: group.title().map(str::to_owned),
            description: group.description().map(str::to_owned),
            tools: catalog
                .tools()
                .filter(in_group)
                .map(crate::RuntimeTool::name)
                .filter(|name| served.contains(name))
                .map(str::to_owned)
                .collect(),
        }
    }
}

/// The groups named in `_meta` of each member, by member.
type Members<'a> = BTreeMap<&'a str, Vec<&'a str>>;

impl Grouped {
    /// The groups `profile` enables and `lists` marked with them.
    pub fn of<S: Vocabulary>(profile: &Profile<S>, lists: &Lists<'_>) -> Self {
        let registry = S::registry();
        let enabled: Vec<&Group<S>> = profile
            .groups()
            .filter_map(|name| registry.group(name))
            .collect();
        let mut tools: Members<'_> = BTreeMap::new();
        // A group is a member of each enabled group that includes it.
        let mut parents: Members<'_> = BTreeMap::new();
        let mut groups: BTreeMap<&str, Value> = BTreeMap::new();
        for group in &enabled {
            for tool in group.tools() {
                tools.entry(tool).or_default().push(group.name());
            }
            for included in group.includes() {
                parents.entry(included).or_default().push(group.name());
            }
            describe(
                &mut groups,
                group.name(),
                group.title(),
                group.description(),
            );
        }
        // A catalog's group is listed while one of its tools is in this
        // list (under tool search, the search tools are).
        let listed: std::collections::HashSet<String> = lists
            .tools
            .iter()
            .map(|tool| (lists.canonical)(&tool.name).unwrap_or_else(|| tool.name.to_string()))
            .collect();
        for group in lists.catalog {
            let members = group.tools.iter().filter(|tool| listed.contains(*tool));
            let mut enabled = false;
            for tool in members {
                tools.entry(tool).or_default().push(&group.name);
                enabled = true;
            }
            if enabled {
                let (title, description) = (group.title.as_deref(), group.description.as_deref());
                describe(&mut groups, &group.name, title, description);
            }
        }
        let prompt_groups = registry.prompts().described(profile.context());
        let resource_groups = registry.resources().described(profile.context());
        let (mut prompts, mut resources): (Members<'_>, Members<'_>) = Default::default();
        for (members, described) in [
            (&mut prompts, &prompt_groups),
            (&mut resources, &resource_groups),
        ] {
            for group in described {
                for item in group.items {
                    members.entry(item).or_default().push(group.name);
                }
                describe(&mut groups, group.name, group.title, group.description);
            }
        }
        for (name, listed) in &mut groups {
            if let Some(parents) = parents.get(name) {
                listed["_meta"] = json!({ GROUP_MEMBERSHIP_KEY: parents });
            }
        }
        let marked_tools = lists
            .tools
            .iter()
            .map(|tool| {
                let canonical = (lists.canonical)(&tool.name);
                let name = canonical.as_deref().unwrap_or(&tool.name);
                let mut tool = tool.clone();
                mark(&mut tool.meta, tools.get(name));
                tool
            })
            .collect();
        Grouped {
            groups: Value::Array(groups.into_values().collect()),
            tools: marked_tools,
            prompts: marked(lists.prompts, &prompts, |p| &p.name, |p| &mut p.meta),
            resources: marked(lists.resources, &resources, |r| &r.uri, |r| &mut r.meta),
            templates: marked(
                lists.templates,
                &resources,
                |t| &t.uri_template,
                |t| &mut t.meta,
            ),
        }
    }
}

/// Lists group `name` in `groups` (a name shared by a tool group and a
/// prompt or resource group is one group, described by the first that
/// says).
fn describe<'a>(
    groups: &mut BTreeMap<&'a str, Value>,
    name: &'a str,
    title: Option<&str>,
    description: Option<&str>,
) {
    let listed = groups
        .entry(name)
        .or_insert_with(|| json!({ "name": name }));
    for (key, text) in [("title", title), ("description", description)] {
        if let (Some(text), None) = (text, listed.get(key)) {
            listed[key] = Value::from(text);
        }
    }
}

/// `items`, each marked with the groups `members` names for its key.
fn marked<T: Clone>(
    items: &[T],
    members: &Members<'_>,
    key: impl Fn(&T) -> &String,
    meta: impl Fn(&mut T) -> &mut Option<MetaObject>,
) -> Vec<T> {
    items
        .iter()
        .map(|item| {
            let mut item = item.clone();
            let groups = members.get(key(&item).as_str());
            mark(meta(&mut item), groups);
            item
        })
        .collect()
}

/// Names `groups` (if any) in `meta`.
fn mark(meta: &mut Option<MetaObject>, groups: Option<&Vec<&str>>) {
    if let Some(groups) = groups {
        meta.get_or_insert_with(MetaObject::default)
            .0
            .insert(GROUP_MEMBERSHIP_KEY.to_owned(), json!(groups));
    }
}
