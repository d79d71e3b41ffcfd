//! `configuration-settings`: declared settings of workspaces, repositories
//! and agent profiles, found by their definitions and read or changed one
//! record (target) at a time. Secrets are written, never read back.

mod listing;
mod registry;
mod targets;

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use listing::{list_settings_resources, search_settings};
use registry::{Definition, definition, definition_for, resource_schema};
pub(super) use registry::{ResourceType, check_settings};
use targets::{SettingsTarget, Target, resolve};

use crate::server::Kandev;
use crate::store::{BadField, Board, Object};
use crate::tools::numbers::{MAX_SETTINGS_PAGE, settings_limit};
use crate::tools::{ToolResult, respond};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// What to look for among the setting definitions.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchSettings {
    /// Text to find in a setting's key, domain or summary; all settings when omitted.
    pub query: Option<String>,
    /// Only settings of this domain, such as `agents`.
    pub domain: Option<String>,
    /// Only settings of `workspace`, `repository` or `agent_profile` targets.
    pub resource_type: Option<String>,
    /// At most this many settings; 20 by default.
    #[serde(default, deserialize_with = "settings_limit")]
    #[schemars(range(min = 1, max = MAX_SETTINGS_PAGE))]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// The setting to explain, and optionally an operation on a target to judge.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DescribeSetting {
    /// The setting's key, such as `agent.max_turns`.
    pub key: String,
    /// A record the operation would act on; its current value is shown too.
    pub target: Option<SettingsTarget>,
    /// Where the caller works: `{"workspace_id": ...}` allows only that workspace's records.
    pub context: Option<Object>,
    /// The operation to judge: `read` (the default), `update` or `create`.
    pub operation: Option<Operation>,
    /// Also return the schema of every setting of the same resource type.
    pub include_resource_schema: Option<bool>,
}

/// What a caller means to do with a setting.
#[derive(Clone, Copy, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    #[default]
    Read,
    Update,
    Create,
}

/// The settings to read from one record.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetSettings {
    /// The record to read.
    pub target: SettingsTarget,
    /// The settings' keys (see search_settings_kandev), each once.
    pub keys: Vec<String>,
}

/// Changes to one record's settings.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSettings {
    /// The record to change.
    pub target: SettingsTarget,
    /// New values by key; `null` unsets one. All are checked before any is written.
    pub changes: Object,
    /// `{"dry_run": true}` checks the changes and writes nothing.
    pub options: Option<Object>,
}

/// Which settings targets to list.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSettingsResources {
    /// `workspace`, `repository` or `agent_profile`.
    pub resource_type: String,
    /// Only records of this workspace.
    pub workspace_id: Option<String>,
    /// Text to find in a record's name or ID.
    pub query: Option<String>,
    /// At most this many records; 20 by default.
    #[serde(default, deserialize_with = "settings_limit")]
    #[schemars(range(min = 1, max = MAX_SETTINGS_PAGE))]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

// ---------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------

/// The one key an object argument (`context`, `options`) may hold, if it
/// is there; any other key is refused naming `field`.
fn only_key<'a>(
    field: &'static str,
    object: Option<&'a Object>,
    key: &str,
) -> Result<Option<&'a Value>, BadField> {
    let Some(object) = object else {
        return Ok(None);
    };
    if let Some(other) = object.keys().find(|other| *other != key) {
        return Err(BadField::new(
            field,
            format!("unknown key `{other}`; the only one is `{key}`"),
        ));
    }
    Ok(object.get(key))
}

/// The workspace a describe `context` confines the caller to, if any.
fn context_workspace(board: &Board, context: Option<&Object>) -> Result<Option<String>, BadField> {
    match only_key("context", context, "workspace_id")? {
        None => Ok(None),
        Some(Value::String(id)) => Ok(Some(board.workspace("context", id.trim())?.id.clone())),
        Some(other) => Err(BadField::new(
            "context",
            format!("`workspace_id` is a string, not {other}"),
        )),
    }
}

/// Whether `operation` on `definition` is allowed for a caller confined to
/// `caller_workspace`, on `target` when one is named; and why.
fn authority(
    definition: &Definition,
    operation: Operation,
    target: Option<&Target>,
    caller_workspace: Option<&str>,
) -> Value {
    let (allowed, reason) = match (operation, target) {
        (
            _,
            Some(Target {
                workspace_id: Some(workspace),
                ..
            }),
        ) if caller_workspace.is_some_and(|caller| caller != workspace) => (
            false,
            format!("the target is in workspace `{workspace}`, outside the caller's"),
        ),
        (Operation::Create, _) if definition.resource_type == ResourceType::AgentProfile => (
            true,
            "give it in create_agent_profile_kandev's `settings`".to_owned(),
        ),
        (Operation::Create, _) => (
            false,
            format!(
                "{} records are not created through these tools; update an existing one",
                definition.resource_type.name()
            ),
        ),
        (Operation::Update, _) => (
            true,
            "update_settings_kandev on one target; `null` unsets it".to_owned(),
        ),
        (Operation::Read, _) if definition.sensitive => (
            true,
            "get_settings_kandev says whether it is set, never its value".to_owned(),
        ),
        (Operation::Read, _) => (true, "get_settings_kandev".to_owned()),
    };
    json!({ "operation": operation, "allowed": allowed, "reason": reason })
}

fn describe_setting(board: &Board, args: DescribeSetting) -> Result<Value, BadField> {
    let definition = definition("key", args.key.trim())?;
    let caller_workspace = context_workspace(board, args.context.as_ref())?;
    let target = args
        .target
        .as_ref()
        .map(|target| resolve(board, target))
        .transpose()?;
    if let Some(target) = &target
        && target.resource_type != definition.resource_type
    {
        return Err(BadField::new(
            "target.resource_type",
            format!(
                "`{}` configures {} targets, not {}",
                definition.key,
                definition.resource_type.name(),
                target.resource_type.name()
            ),
        ));
    }
    let mut operations = vec!["read", "update"];
    if definition.resource_type == ResourceType::AgentProfile {
        operations.push("create");
    }
    let mut answer = definition.summary_json();
    answer["schema"] = definition.schema();
    answer["operations"] = json!(operations);
    answer["authority"] = authority(
        definition,
        args.operation.unwrap_or_default(),
        target.as_ref(),
        caller_workspace.as_deref(),
    );
    if let Some(target) = &target {
        let stored = board
            .settings
            .get(&target.settings_key())
            .and_then(|values| values.get(definition.key));
        answer["target"] = target.to_json();
        answer["current"] = definition.shown(stored);
    }
    if args.include_resource_schema == Some(true) {
        answer["resource_schema"] = resource_schema(definition.resource_type);
    }
    Ok(answer)
}

/// Checks a list of keys (or changes) for `target`: at least one, at most
/// a page, each a setting of the target's type.
fn definitions_for<'a>(
    field: &'static str,
    keys: impl ExactSizeIterator<Item = &'a String>,
    target: &Target,
) -> Result<Vec<&'static Definition>, BadField> {
    if keys.len() == 0 {
        return Err(BadField::new(field, "name at least one setting"));
    }
    if keys.len() as u64 > MAX_SETTINGS_PAGE {
        return Err(BadField::new(
            field,
            format!(
                "{} settings; one call takes at most {MAX_SETTINGS_PAGE}",
                keys.len()
            ),
        ));
    }
    let mut found: Vec<&'static Definition> = Vec::new();
    for key in keys {
        let definition = definition_for(field, key.trim(), target.resource_type)?;
        if found.iter().any(|seen| seen.key == definition.key) {
            return Err(BadField::new(field, format!("`{key}` is named twice")));
        }
        found.push(definition);
    }
    Ok(found)
}

fn get_settings(board: &Board, args: GetSettings) -> Result<Value, BadField> {
    let target = resolve(board, &args.target)?;
    let definitions = definitions_for("keys", args.keys.iter(), &target)?;
    let stored = board.settings.get(&target.settings_key());
    let settings: Vec<Value> = definitions
        .iter()
        .map(|definition| definition.shown(stored.and_then(|values| values.get(definition.key))))
        .collect();
    Ok(json!({ "target": target.to_json(), "settings": settings }))
}

/// `options.dry_run`, refusing any other option.
fn dry_run(options: Option<&Object>) -> Result<bool, BadField> {
    match only_key("options", options, "dry_run")? {
        None => Ok(false),
        Some(Value::Bool(dry_run)) => Ok(*dry_run),
        Some(other) => Err(BadField::new(
            "options",
            format!("`dry_run` is true or false, not {other}"),
        )),
    }
}

fn update_settings(board: &mut Board, args: UpdateSettings) -> Result<Value, BadField> {
    let target = resolve(board, &args.target)?;
    let dry_run = dry_run(args.options.as_ref())?;
    let definitions = definitions_for("changes", args.changes.keys(), &target)?;
    let mut values = board
        .settings
        .get(&target.settings_key())
        .cloned()
        .unwrap_or_default();
    for (definition, value) in definitions.iter().zip(args.changes.values()) {
        if value.is_null() {
            values.remove(definition.key);
        } else {
            definition.check("changes", value)?;
            values.insert(definition.key.to_owned(), value.clone());
        }
    }
    let settings: Vec<Value> = definitions
        .iter()
        .map(|definition| definition.shown(values.get(definition.key)))
        .collect();
    if !dry_run {
        let key = target.settings_key();
        if values.is_empty() {
            board.settings.remove(&key);
        } else {
            if !board.settings.contains_key(&key) {
                board.make_room("changes", 1)?;
            }
            board.settings.insert(key, values);
        }
    }
    Ok(json!({ "target": target.to_json(), "dry_run": dry_run, "settings": settings }))
}

// ---------------------------------------------------------------------------
// The tool group
// ---------------------------------------------------------------------------

#[tool_group(name = "configuration-settings", surfaces = ["configuration", "external"])]
impl Kandev {
    #[tool(
        name = "search_settings_kandev",
        description = "Finds setting definitions by metadata without reading stored values.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_search_settings(
        &self,
        Parameters(args): Parameters<SearchSettings>,
    ) -> ToolResult {
        respond(search_settings(args))
    }

    #[tool(
        name = "describe_setting_kandev",
        description = "Explains one setting: targets, schema, authority and allowed operations.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_describe_setting(
        &self,
        Parameters(args): Parameters<DescribeSetting>,
    ) -> ToolResult {
        respond(describe_setting(&self.store.lock(), args))
    }

    #[tool(
        name = "get_settings_kandev",
        description = "Reads stored settings for one authorized target, with secrets masked.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_get_settings(&self, Parameters(args): Parameters<GetSettings>) -> ToolResult {
        respond(get_settings(&self.store.lock(), args))
    }

    #[tool(
        name = "update_settings_kandev",
        description = "Applies domain-validated setting changes to one authorized target in one write.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_settings(
        &self,
        Parameters(args): Parameters<UpdateSettings>,
    ) -> ToolResult {
        self.on_board(|board| update_settings(board, args))
    }

    #[tool(
        name = "list_settings_resources_kandev",
        description = "Lists authorized targets of one settings resource type, bounded and paged.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_settings_resources(
        &self,
        Parameters(args): Parameters<ListSettingsResources>,
    ) -> ToolResult {
        respond(list_settings_resources(&self.store.lock(), args))
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
