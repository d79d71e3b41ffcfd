//! `configuration-executors`: executors and their profiles.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{required_text, unless_blank};
use crate::server::Kandev;
use crate::store::{
    BadField, Board, ExecutorProfile, Object, check_document, check_name, check_text,
};
use crate::tools::shared::ExecutorRef;
use crate::tools::{ToolResult, ok, respond};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// A new executor profile.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateExecutorProfile {
    /// The executor the profile belongs to.
    pub executor_id: String,
    /// The profile's name.
    pub name: String,
    /// How MCP servers are handled in this executor.
    pub mcp_policy: Option<String>,
    /// Executor settings, stored as given.
    pub config: Option<Object>,
    /// Script run before the agent starts.
    pub prepare_script: Option<String>,
    /// Script run after the agent stops.
    pub cleanup_script: Option<String>,
}

/// Changes to an executor profile; an empty string clears a text field.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateExecutorProfile {
    /// The profile to change.
    pub profile_id: String,
    /// Its new name.
    pub name: Option<String>,
    /// How MCP servers are handled in this executor.
    pub mcp_policy: Option<String>,
    /// Executor settings, replacing the stored ones.
    pub config: Option<Object>,
    /// Script run before the agent starts.
    pub prepare_script: Option<String>,
    /// Script run after the agent stops.
    pub cleanup_script: Option<String>,
}

/// The executor profile to delete.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteExecutorProfile {
    /// The executor profile's ID.
    pub profile_id: String,
}

// ---------------------------------------------------------------------------
// Executors
// ---------------------------------------------------------------------------

fn list_executors(board: &Board) -> Value {
    json!({ "executors": board.executors.values().collect::<Vec<_>>() })
}

fn executor_profile_mut<'a>(
    board: &'a mut Board,
    profile_id: &str,
) -> Result<&'a mut ExecutorProfile, BadField> {
    board
        .executor_profiles
        .get_mut(profile_id)
        .ok_or_else(|| BadField::missing("profile_id", "executor profile", profile_id))
}

/// Checks the settings create and update share.
fn check_settings(
    mcp_policy: Option<&String>,
    config: Option<&Object>,
    scripts: [Option<&String>; 2],
) -> Result<(), BadField> {
    if let Some(policy) = mcp_policy {
        check_name("mcp_policy", policy)?;
    }
    if let Some(config) = config {
        check_document("config", config)?;
    }
    for (field, script) in ["prepare_script", "cleanup_script"]
        .into_iter()
        .zip(scripts)
    {
        if let Some(script) = script {
            check_text(field, script)?;
        }
    }
    Ok(())
}

fn create_executor_profile(
    board: &mut Board,
    args: CreateExecutorProfile,
) -> Result<Value, BadField> {
    check_settings(
        args.mcp_policy.as_ref(),
        args.config.as_ref(),
        [args.prepare_script.as_ref(), args.cleanup_script.as_ref()],
    )?;
    board.make_room("name", 1)?;
    if !board.executors.contains_key(&args.executor_id) {
        return Err(BadField::missing(
            "executor_id",
            "executor",
            &args.executor_id,
        ));
    }
    let name = required_text("name", args.name)?;
    let id = board.next_id("executor-profile");
    let profile = ExecutorProfile {
        id: id.clone(),
        executor_id: args.executor_id,
        name,
        mcp_policy: args.mcp_policy.and_then(unless_blank),
        config: args.config.unwrap_or_default(),
        prepare_script: args.prepare_script.and_then(unless_blank),
        cleanup_script: args.cleanup_script.and_then(unless_blank),
    };
    board.executor_profiles.insert(id, profile.clone());
    Ok(json!({ "profile": profile }))
}

fn update_executor_profile(
    board: &mut Board,
    args: UpdateExecutorProfile,
) -> Result<Value, BadField> {
    executor_profile_mut(board, &args.profile_id)?;
    check_settings(
        args.mcp_policy.as_ref(),
        args.config.as_ref(),
        [args.prepare_script.as_ref(), args.cleanup_script.as_ref()],
    )?;
    let name = args
        .name
        .map(|name| required_text("name", name))
        .transpose()?;
    let profile = executor_profile_mut(board, &args.profile_id)?;
    if let Some(name) = name {
        profile.name = name;
    }
    if let Some(policy) = args.mcp_policy {
        profile.mcp_policy = unless_blank(policy);
    }
    if let Some(config) = args.config {
        profile.config = config;
    }
    if let Some(script) = args.prepare_script {
        profile.prepare_script = unless_blank(script);
    }
    if let Some(script) = args.cleanup_script {
        profile.cleanup_script = unless_blank(script);
    }
    Ok(json!({ "profile": profile }))
}

fn delete_executor_profile(
    board: &mut Board,
    args: DeleteExecutorProfile,
) -> Result<Value, BadField> {
    executor_profile_mut(board, &args.profile_id)?;
    board.executor_profiles.remove(&args.profile_id);
    Ok(json!({ "deleted": args.profile_id }))
}

// ---------------------------------------------------------------------------
// The tool group
// ---------------------------------------------------------------------------

#[tool_group(name = "configuration-executors", surfaces = ["configuration", "external"])]
impl Kandev {
    #[tool(
        name = "list_executors_kandev",
        description = "Returns all configured executors.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_executors(&self) -> ToolResult {
        ok(list_executors(&self.store.lock()))
    }

    #[tool(
        name = "list_executor_profiles_kandev",
        description = "Returns the profiles defined for one executor.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_executor_profiles(
        &self,
        Parameters(args): Parameters<ExecutorRef>,
    ) -> ToolResult {
        respond(self.list_executor_profiles(args))
    }

    #[tool(
        name = "create_executor_profile_kandev",
        description = "Adds an executor profile with policy, settings and setup/teardown scripts.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn config_create_executor_profile(
        &self,
        Parameters(args): Parameters<CreateExecutorProfile>,
    ) -> ToolResult {
        self.on_board(|board| create_executor_profile(board, args))
    }

    #[tool(
        name = "update_executor_profile_kandev",
        description = "Changes fields of an existing executor profile.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_executor_profile(
        &self,
        Parameters(args): Parameters<UpdateExecutorProfile>,
    ) -> ToolResult {
        self.on_board(|board| update_executor_profile(board, args))
    }

    #[tool(
        name = "delete_executor_profile_kandev",
        description = "Removes an executor profile.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_delete_executor_profile(
        &self,
        Parameters(args): Parameters<DeleteExecutorProfile>,
    ) -> ToolResult {
        self.on_board(|board| delete_executor_profile(board, args))
    }
}
