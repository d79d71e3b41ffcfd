//! Progressive disclosure within the profile ([`Disclosure`]): a session
//! first lists its always-listed groups and one activation tool; further
//! groups of its profile are activated by the model (that tool) or a
//! groups-aware client (the request [`ACTIVATE_GROUPS`]) and from then on
//! listed as native tools with their own schemas.
//!
//! **The prompt cache is kept**: `tools/list` is append-only in activation
//! order. Every answer after an activation begins with the previous
//! answer's tools, byte for byte, and an activation sends exactly one
//! `tools/list_changed` to its session. Only removals (a replacement, a
//! policy, the kill switch) rewrite earlier entries, told as before.
//!
//! An installed runtime catalog's own groups (`RuntimeGroup`) are
//! activated like the profile's, while one of their tools is served; a
//! catalog tool in no group is not disclosed (it runs when called by name).
//!
//! The profile stays the ceiling: a group the profile does not enable
//! cannot be activated (the request is refused naming it, and nothing is
//! activated), and a replacement that removes a group drops it from the
//! list. Disclosure is listing, never access: a tool of the profile not
//! listed yet is still served when called by name, as under tool search.
//!
//! A 2025-era session (an `initialize` handshake) keeps its activations.
//! A 2026-07-28 request belongs to no session, so its client keeps them:
//! it opts in by sending its activated groups, in activation order, in each
//! request's `_meta` under [`ACTIVE_GROUPS_KEY`] (`[]` at first), and is
//! answered the listing they make, the key echoing the set in force (a
//! group the profile no longer enables dropped); an activation (the tool or
//! the request) answers the new set under the same key, for the client to
//! send from then on. Append-only holds as for a session: the list for a
//! longer set begins with the list for the shorter, byte for byte. A
//! 2026-07-28 request without the key lists every tool, as before.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

use crate::grouping::CatalogGroup;
use crate::{Profile, Vocabulary};

/// The request a groups-aware client activates groups with:
/// `{"groups": ["name", ...]}`, answered `{"activated": [...]}` (the
/// groups newly listed).
pub const ACTIVATE_GROUPS: &str = "mcp-profiles/groups/activate";

/// The `_meta` key of a 2026-07-28 request's activated groups (in
/// activation order), and of the answers telling the set in force.
pub const ACTIVE_GROUPS_KEY: &str = "mcp-profiles/groups/active";

/// The activation tool's name unless told otherwise.
pub const ACTIVATION_TOOL: &str = "activate_tool_groups";

/// How a controller's sessions disclose their profile's tools: the groups
/// listed from the start, and the name of the tool that lists more.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Desk;
/// #     impl rmcp::ServerHandler for Desk {}
/// # }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Triage }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use mcp_profiles::{ACTIVATION_TOOL, Disclosure};
///
/// let disclosure = Disclosure::<Desk>::new(); // only the activation tool at first
/// assert_eq!(disclosure.tool_name(), ACTIVATION_TOOL);
/// // A group the server does not declare is an error naming it.
/// let unknown = Disclosure::<Desk>::new().always_listing(["tickets"]).unwrap_err();
/// assert!(unknown.to_string().starts_with("unknown tool group `tickets`"));
/// ```
pub struct Disclosure<S: Vocabulary> {
    always: Vec<&'static str>,
    tool: String,
    vocabulary: std::marker::PhantomData<fn() -> S>,
}

/// A group name the registry does not declare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGroup {
    /// The name given.
    pub group: String,
    /// The registry's tool groups.
    pub declared: Vec<String>,
}

impl std::fmt::Display for UnknownGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown tool group `{}`; declared: {}",
            crate::Clipped(&self.group),
            self.declared.join(", ")
        )
    }
}

impl std::error::Error for UnknownGroup {}

/// A disclosure whose activation tool's name is a tool's already.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameTaken {
    /// The name.
    pub name: String,
}

impl std::fmt::Display for NameTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the activation tool's name `{}` is a tool's already",
            crate::Clipped(&self.name)
        )
    }
}

impl std::error::Error for NameTaken {}

impl<S: Vocabulary> std::fmt::Debug for Disclosure<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Disclosure")
            .field("always", &self.always)
            .field("tool", &self.tool)
            .finish()
    }
}

impl<S: Vocabulary> Clone for Disclosure<S> {
    fn clone(&self) -> Self {
        Disclosure {
            always: self.always.clone(),
            tool: self.tool.clone(),
            vocabulary: std::marker::PhantomData,
        }
    }
}

impl<S: Vocabulary> Default for Disclosure<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Vocabulary> Disclosure<S> {
    /// Disclosure with no group listed from the start: only the
    /// activation tool ([`ACTIVATION_TOOL`]).
    pub fn new() -> Self {
        Disclosure {
            always: Vec::new(),
            tool: ACTIVATION_TOOL.to_owned(),
            vocabulary: std::marker::PhantomData,
        }
    }

    /// These tool groups listed from the start (where the profile enables
    /// them); an undeclared name is an error naming it.
    pub fn always_listing<N: AsRef<str>>(
        mut self,
        groups: impl IntoIterator<Item = N>,
    ) -> Result<Self, UnknownGroup> {
        let registry = S::registry();
        for name in groups {
            let name = name.as_ref();
            let group = registry.group(name).ok_or_else(|| UnknownGroup {
                group: name.to_owned(),
                declared: registry.group_names(),
            })?;
            if !self.always.contains(&group.name()) {
                self.always.push(group.name());
            }
        }
        Ok(self)
    }

    /// The activation tool's name.
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// Refuses a disclosure whose activation tool's name a compiled tool
    /// of `S` has.
    pub fn check(&self) -> Result<(), NameTaken> {
        let taken = S::registry()
            .groups()
            .iter()
            .any(|group| group.tools().contains(&self.tool.as_str()));
        match taken {
            true => Err(NameTaken {
                name: self.tool.clone(),
            }),
            false => Ok(()),
        }
    }

    /// What a session that activated `activated` (in order) lists, from
    /// `listed` (what it would list without disclosure) under `profile`
    /// and the installed catalog's groups `catalog`: the activation tool,
    /// the always-listed groups' tools by name, then each activated group's
    /// tools not listed yet, group by group.
    pub(crate) fn listing(
        &self,
        profile: &Profile<S>,
        catalog: &[CatalogGroup],
        listed: &[Tool],
        canonical: &dyn Fn(&str) -> Option<String>,
        activated: &[Arc<str>],
    ) -> Vec<Tool> {
        let registry = S::registry();
        let enabled: HashSet<&str> = profile.groups().collect();
        let by_name: HashMap<String, &Tool> = listed
            .iter()
            .map(|tool| {
                (
                    canonical(&tool.name).unwrap_or_else(|| tool.name.to_string()),
                    tool,
                )
            })
            .collect();
        let find = |name: &str| by_name.get(name).copied();
        let mut shown: HashSet<&str> = HashSet::new();
        let mut tools = vec![self.activation_tool(profile, catalog)];
        let mut always: Vec<&Tool> = Vec::new();
        for group in self.always.iter().filter(|g| enabled.contains(**g)) {
            for &tool in registry.group(group).map_or(&[][..], |g| g.tools()) {
                if let Some(found) = find(tool).filter(|_| shown.insert(tool)) {
                    always.push(found);
                }
            }
        }
        always.sort_by(|a, b| a.name.cmp(&b.name));
        tools.extend(always.into_iter().cloned());
        for group in activated.iter() {
            // A group the profile enables, or one of the installed catalog.
            let members: Vec<&str> = match enabled.contains(&**group) {
                true => registry
                    .group(group)
                    .map_or(Vec::new(), |g| g.tools().to_vec()),
                false => catalog
                    .iter()
                    .find(|of| of.name == **group)
                    .map_or(Vec::new(), |of| {
                        of.tools.iter().map(String::as_str).collect()
                    }),
            };
            for tool in members {
                if let Some(found) = find(tool).filter(|_| shown.insert(tool)) {
                    tools.push(found.clone());
                }
            }
        }
        tools
    }

    /// The groups a session may activate: every group `profile` enables
    /// not listed from the start, then each of the installed catalog's
    /// groups `catalog` (those with a tool listed).
    pub(crate) fn activatable<'a>(
        &self,
        profile: &'a Profile<S>,
        catalog: &'a [CatalogGroup],
    ) -> Vec<&'a str> {
        profile
            .groups()
            .filter(|group| !self.always.contains(group))
            .chain(catalog.iter().map(|group| &*group.name))
            .collect()
    }

    /// The activation tool for `profile` and `catalog`: its input names the
    /// groups it may activate.
    fn activation_tool(&self, profile: &Profile<S>, catalog: &[CatalogGroup]) -> Tool {
        let schema = json!({
            "type": "object",
            "properties": {
                "groups": {
                    "type": "array",
                    "items": {"type": "string", "enum": self.activatable(profile, catalog)},
                    "description": "The tool groups to list from now on."
                }
            },
            "required": ["groups"],
        });
        let Value::Object(schema) = schema else {
            unreachable!("an object literal")
        };
        Tool::new(
            self.tool.clone(),
            "List more of this session's tools: the tools of the named groups are \
             listed from now on, with their own schemas.",
            Arc::<JsonObject>::new(schema),
        )
    }
}

/// One session's activated groups, in activation order.
#[derive(Debug, Default)]
pub(crate) struct Activated(Mutex<Vec<Arc<str>>>);

impl Activated {
    /// What a 2026-07-28 request's client holds (`meta`'s
    /// [`ACTIVE_GROUPS_KEY`]), those `activatable` names kept in order:
    /// `None` when it sends none; an error when it is not a list of names.
    pub fn held(
        meta: &rmcp::model::MetaObject,
        activatable: &[&str],
    ) -> Result<Option<Self>, rmcp::ErrorData> {
        let Some(held) = meta.0.get(ACTIVE_GROUPS_KEY) else {
            return Ok(None);
        };
        let held: Vec<String> = serde_json::from_value(held.clone()).map_err(|_| {
            rmcp::ErrorData::invalid_params(
                format!("`_meta[\"{ACTIVE_GROUPS_KEY}\"]` must be a list of tool group names"),
                None,
            )
        })?;
        let activated = Activated::default();
        let kept: Vec<String> = held
            .into_iter()
            .filter(|group| activatable.contains(&group.as_str()))
            .collect();
        activated
            .activate(&kept, activatable)
            .expect("only activatable groups are kept");
        Ok(Some(activated))
    }

    /// The `_meta` telling a 2026-07-28 client the groups activated so
    /// far ([`ACTIVE_GROUPS_KEY`]).
    pub fn meta(&self) -> rmcp::model::MetaObject {
        let held: Vec<String> = self.get().iter().map(|group| group.to_string()).collect();
        let mut meta = rmcp::model::MetaObject::default();
        meta.0
            .insert(ACTIVE_GROUPS_KEY.to_owned(), Value::from(held));
        meta
    }

    /// The groups activated so far.
    pub fn get(&self) -> Vec<Arc<str>> {
        self.lock().clone()
    }

    /// Activates `groups`, all or none: each must be one `activatable`
    /// names, else the first that is not is the error. The groups newly
    /// activated, in order.
    pub fn activate(&self, groups: &[String], activatable: &[&str]) -> Result<Vec<String>, String> {
        if let Some(outside) = groups.iter().find(|g| !activatable.contains(&g.as_str())) {
            return Err(outside.clone());
        }
        let mut activated = self.lock();
        let mut added = Vec::new();
        for group in groups {
            if !activated.iter().any(|a| **a == **group) {
                activated.push(Arc::from(group.as_str()));
                added.push(group.clone());
            }
        }
        Ok(added)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<str>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
