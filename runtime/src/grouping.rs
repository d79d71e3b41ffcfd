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
//! - `notifications/groups/list_changed` once per replacement that changes
//!   the enabled groups, none otherwise (2025-era sessions: rmcp 3.11's
//!   `subscriptions/listen` streams carry no custom notification, so a
//!   2026-07-28 stream hears a membership change as its tools'
//!   `list_changed` only).
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

use rmcp::model::{ClientCapabilities, JsonObject, ServerCapabilities, Tool};
use serde_json::{Value, json};

use crate::{Group, Profile, Vocabulary};

/// The extension's identifier, under `capabilities.extensions`.
pub const GROUPING_EXTENSION: &str = "io.modelcontextprotocol/grouping";

/// The `_meta` key naming the groups a listed primitive belongs to.
pub const GROUP_MEMBERSHIP_KEY: &str = "io.modelcontextprotocol/groups";

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
    /// `groups/list`'s `groups`: the enabled groups, by name.
    pub groups: Value,
    /// `tools/list`, each tool of a group marked with its groups.
    pub tools: Arc<[Tool]>,
}

impl Grouped {
    /// The groups `profile` enables, and `listed` (its tools as listed,
    /// `canonical` giving a presented name's canonical one) each marked
    /// with them.
    pub fn of<S: Vocabulary>(
        profile: &Profile<S>,
        listed: &[Tool],
        canonical: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let registry = S::registry();
        let enabled: Vec<&Group<S>> = profile
            .groups()
            .filter_map(|name| registry.group(name))
            .collect();
        let mut membership: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        // A group is a member of each enabled group that includes it.
        let mut parents: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for group in &enabled {
            for tool in group.tools() {
                membership.entry(tool).or_default().push(group.name());
            }
            for included in group.includes() {
                parents.entry(included).or_default().push(group.name());
            }
        }
        let groups = enabled
            .iter()
            .map(|group| {
                let mut listed = json!({ "name": group.name() });
                if let Some(title) = group.title() {
                    listed["title"] = Value::from(title);
                }
                if let Some(description) = group.description() {
                    listed["description"] = Value::from(description);
                }
                if let Some(parents) = parents.get(group.name()) {
                    listed["_meta"] = json!({ GROUP_MEMBERSHIP_KEY: parents });
                }
                listed
            })
            .collect();
        let tools = listed
            .iter()
            .map(|tool| {
                let canonical = canonical(&tool.name);
                let name = canonical.as_deref().unwrap_or(&tool.name);
                let mut tool = tool.clone();
                if let Some(owners) = membership.get(name) {
                    let mut meta = tool.meta.take().unwrap_or_default();
                    meta.0
                        .insert(GROUP_MEMBERSHIP_KEY.to_owned(), json!(owners));
                    tool.meta = Some(meta);
                }
                tool
            })
            .collect();
        Grouped {
            groups: Value::Array(groups),
            tools,
        }
    }
}
