//! `configuration-agents` and `configuration-mcp`: agents, their profiles
//! and each profile's MCP setup.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::settings::{ResourceType, check_settings};
use super::{required_text, unless_blank};
use crate::server::Kandev;
use crate::store::{AgentProfile, BadField, Board, Object, check_document, check_name};
use crate::tools::{ToolResult, ok, respond};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// Changes to an agent.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateAgent {
    /// The agent to change.
    pub agent_id: String,
    /// Whether the agent can use MCP servers.
    pub supports_mcp: Option<bool>,
    /// Where the agent reads its MCP config; an empty string clears it.
    pub mcp_config_path: Option<String>,
}

/// A new agent profile.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateAgentProfile {
    /// The agent the profile belongs to.
    pub agent_id: String,
    /// The profile's name.
    pub name: String,
    /// The model the profile runs; the agent's default when omitted.
    pub model: Option<String>,
    /// Approve the agent's tool calls without asking; off by default.
    pub auto_approve: Option<bool>,
    /// The profile's complete settings by key; describe_setting_kandev
    /// (`include_resource_schema`) gives their schema.
    pub settings: Option<Object>,
}

/// The agent profile to delete.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteAgentProfile {
    /// The profile's ID; no running session may use it.
    pub profile_id: String,
}

/// The agent whose profiles to list.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListAgentProfiles {
    /// The agent's ID (see list_agents_kandev).
    pub agent_id: String,
}

/// Changes to an agent profile.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateAgentProfile {
    /// The profile to change.
    pub profile_id: String,
    /// Its new name.
    pub name: Option<String>,
    /// Its new model; an empty string returns to the agent's default.
    pub model: Option<String>,
    /// Approve the agent's tool calls without asking.
    pub auto_approve: Option<bool>,
}

/// The agent profile whose MCP setup to read.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetMcpConfig {
    /// The agent profile's ID.
    pub profile_id: String,
}

/// A new MCP setup for an agent profile.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMcpConfig {
    /// The agent profile's ID.
    pub profile_id: String,
    /// Turn MCP on or off for the profile.
    pub enabled: Option<bool>,
    /// The MCP servers by name, each an object; replaces the stored map.
    pub servers: Option<Object>,
}

// ---------------------------------------------------------------------------
// Agents, profiles and MCP
// ---------------------------------------------------------------------------

fn update_agent(board: &mut Board, args: UpdateAgent) -> Result<Value, BadField> {
    let agent = board
        .agents
        .get_mut(&args.agent_id)
        .ok_or_else(|| BadField::missing("agent_id", "agent", &args.agent_id))?;
    if let Some(supports_mcp) = args.supports_mcp {
        agent.supports_mcp = supports_mcp;
    }
    if let Some(path) = args.mcp_config_path {
        check_name("mcp_config_path", &path)?;
        agent.mcp_config_path = unless_blank(path.trim().to_owned());
    }
    Ok(json!({ "agent": agent }))
}

fn agent_profile_mut<'a>(
    board: &'a mut Board,
    profile_id: &str,
) -> Result<&'a mut AgentProfile, BadField> {
    board
        .agent_profiles
        .get_mut(profile_id)
        .ok_or_else(|| BadField::missing("profile_id", "agent profile", profile_id))
}

/// A model name checked; `None` for a blank one (the agent's default).
fn check_model(model: &str) -> Result<Option<String>, BadField> {
    check_name("model", model)?;
    Ok(unless_blank(model.trim().to_owned()))
}

fn create_agent_profile(board: &mut Board, args: CreateAgentProfile) -> Result<Value, BadField> {
    if !board.agents.contains_key(&args.agent_id) {
        return Err(BadField::missing("agent_id", "agent", &args.agent_id));
    }
    let name = required_text("name", args.name)?;
    let model = args.model.map(|model| check_model(&model)).transpose()?;
    let settings = args.settings.unwrap_or_default();
    check_document("settings", &settings)?;
    check_settings("settings", ResourceType::AgentProfile, &settings)?;
    // The profile, and its settings when there are any.
    board.make_room("name", 1 + usize::from(!settings.is_empty()))?;
    let id = board.next_id("profile");
    let profile = AgentProfile {
        id: id.clone(),
        agent_id: args.agent_id,
        name,
        model: model.flatten(),
        auto_approve: args.auto_approve.unwrap_or(false),
    };
    board.agent_profiles.insert(id.clone(), profile.clone());
    if !settings.is_empty() {
        let key = ResourceType::AgentProfile.settings_key(&id);
        board.settings.insert(key, settings.clone());
    }
    Ok(json!({ "profile": profile, "settings_set": settings.keys().collect::<Vec<_>>() }))
}

fn delete_agent_profile(board: &mut Board, args: DeleteAgentProfile) -> Result<Value, BadField> {
    agent_profile_mut(board, &args.profile_id)?;
    if let Some(session) = board.sessions.values().find(|session| {
        session.running && session.agent_profile_id.as_deref() == Some(args.profile_id.as_str())
    }) {
        return Err(BadField::new(
            "profile_id",
            format!(
                "session `{}` of task `{}` is running with this profile",
                session.id, session.task_id
            ),
        ));
    }
    board.agent_profiles.remove(&args.profile_id);
    board.mcp_configs.remove(&args.profile_id);
    let settings = ResourceType::AgentProfile.settings_key(&args.profile_id);
    board.settings.remove(&settings);
    Ok(json!({ "deleted": args.profile_id }))
}

fn list_agent_profiles(board: &Board, args: ListAgentProfiles) -> Result<Value, BadField> {
    if !board.agents.contains_key(&args.agent_id) {
        return Err(BadField::missing("agent_id", "agent", &args.agent_id));
    }
    let profiles: Vec<_> = board
        .agent_profiles
        .values()
        .filter(|profile| profile.agent_id == args.agent_id)
        .collect();
    Ok(json!({ "profiles": profiles }))
}

fn update_agent_profile(board: &mut Board, args: UpdateAgentProfile) -> Result<Value, BadField> {
    agent_profile_mut(board, &args.profile_id)?;
    let name = args
        .name
        .map(|name| required_text("name", name))
        .transpose()?;
    let model = args.model.map(|model| check_model(&model)).transpose()?;
    let profile = agent_profile_mut(board, &args.profile_id)?;
    if let Some(name) = name {
        profile.name = name;
    }
    if let Some(model) = model {
        profile.model = model;
    }
    if let Some(auto_approve) = args.auto_approve {
        profile.auto_approve = auto_approve;
    }
    Ok(json!({ "profile": profile }))
}

/// An agent profile's MCP setup, with whether its agent can use MCP at all.
fn mcp_config(board: &Board, profile_id: &str) -> Result<Value, BadField> {
    let profile = board
        .agent_profiles
        .get(profile_id)
        .ok_or_else(|| BadField::missing("profile_id", "agent profile", profile_id))?;
    let config = board
        .mcp_configs
        .get(profile_id)
        .cloned()
        .unwrap_or_default();
    let supports_mcp = board
        .agents
        .get(&profile.agent_id)
        .is_some_and(|agent| agent.supports_mcp);
    Ok(json!({
        "profile_id": profile_id,
        "agent_id": profile.agent_id,
        "supports_mcp": supports_mcp,
        "enabled": config.enabled,
        "servers": config.servers,
    }))
}

fn update_mcp_config(board: &mut Board, args: UpdateMcpConfig) -> Result<Value, BadField> {
    let agent_id = agent_profile_mut(board, &args.profile_id)?.agent_id.clone();
    if args.enabled == Some(true)
        && board
            .agents
            .get(&agent_id)
            .is_some_and(|agent| !agent.supports_mcp)
    {
        return Err(BadField::new(
            "enabled",
            format!("agent `{agent_id}` does not support MCP"),
        ));
    }
    if let Some(servers) = &args.servers {
        check_document("servers", servers)?;
    }
    if !board.mcp_configs.contains_key(&args.profile_id) {
        board.make_room("profile_id", 1)?;
    }
    if let Some((name, _)) = args
        .servers
        .iter()
        .flatten()
        .find(|(_, server)| !server.is_object())
    {
        return Err(BadField::new(
            "servers",
            format!("server `{name}` is not a JSON object"),
        ));
    }
    let config = board
        .mcp_configs
        .entry(args.profile_id.clone())
        .or_default();
    if let Some(enabled) = args.enabled {
        config.enabled = enabled;
    }
    if let Some(servers) = args.servers {
        config.servers = servers;
    }
    mcp_config(board, &args.profile_id)
}

// ---------------------------------------------------------------------------
// The tool groups
// ---------------------------------------------------------------------------

#[tool_group(name = "configuration-agents", surfaces = ["configuration", "external"])]
impl Kandev {
    #[tool(
        name = "list_agents_kandev",
        description = "Returns each configured agent and the profiles it has.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_agents(&self) -> ToolResult {
        ok(self.list_agents())
    }

    #[tool(
        name = "update_agent_kandev",
        description = "Changes an agent's MCP support flag or MCP config file path.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_agent(&self, Parameters(args): Parameters<UpdateAgent>) -> ToolResult {
        self.on_board(|board| update_agent(board, args))
    }

    #[tool(
        name = "create_agent_profile_kandev",
        description = "Adds a profile to an agent; model and a full settings object are optional.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn config_create_agent_profile(
        &self,
        Parameters(args): Parameters<CreateAgentProfile>,
    ) -> ToolResult {
        self.on_board(|board| create_agent_profile(board, args))
    }

    #[tool(
        name = "delete_agent_profile_kandev",
        description = "Removes an agent profile unless a running session depends on it.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_delete_agent_profile(
        &self,
        Parameters(args): Parameters<DeleteAgentProfile>,
    ) -> ToolResult {
        self.on_board(|board| delete_agent_profile(board, args))
    }
}

#[tool_group(name = "configuration-mcp", surfaces = ["configuration", "external"])]
impl Kandev {
    #[tool(
        name = "list_agent_profiles_kandev",
        description = "Returns the profiles defined for one agent.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_agent_profiles(
        &self,
        Parameters(args): Parameters<ListAgentProfiles>,
    ) -> ToolResult {
        respond(list_agent_profiles(&self.store.lock(), args))
    }

    #[tool(
        name = "update_agent_profile_kandev",
        description = "Changes an agent profile's name, model or auto-approve flag.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_agent_profile(
        &self,
        Parameters(args): Parameters<UpdateAgentProfile>,
    ) -> ToolResult {
        self.on_board(|board| update_agent_profile(board, args))
    }

    #[tool(
        name = "get_mcp_config_kandev",
        description = "Reads the MCP server setup attached to an agent profile.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_get_mcp_config(
        &self,
        Parameters(args): Parameters<GetMcpConfig>,
    ) -> ToolResult {
        respond(mcp_config(&self.store.lock(), &args.profile_id))
    }

    #[tool(
        name = "update_mcp_config_kandev",
        description = "Replaces an agent profile's MCP on/off flag and server map.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_update_mcp_config(
        &self,
        Parameters(args): Parameters<UpdateMcpConfig>,
    ) -> ToolResult {
        self.on_board(|board| update_mcp_config(board, args))
    }
}
