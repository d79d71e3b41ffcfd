//! What the control routes read and answer, as types: each handler builds
//! its answer from one of them, and the API description
//! ([`crate::openapi`]) holds their schemas, so the two cannot differ.

use mcp_profiles::{DenyList, Profile, ProfileContext, ProfileController};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::TaskState;
use crate::server::Kandev;
use crate::tool_policies::{CoordinatorToolPolicy, ManagedToolPolicy};

/// A profile and the tools a session lists under it.
#[derive(Serialize, JsonSchema)]
pub struct Profiled {
    /// The profile context.
    pub profile: ProfileContext<Kandev>,
    /// The tools a session lists now: the compiled tools the profile
    /// enables and the plugin tools it allows.
    pub tools: Vec<String>,
}

impl Profiled {
    /// `profile`, with the tools `controller` lists now.
    pub fn of(controller: &ProfileController<Kandev>, profile: &Profile<Kandev>) -> Self {
        Profiled {
            profile: *profile.context(),
            tools: controller
                .tools()
                .into_iter()
                .map(|tool| tool.name.into_owned())
                .collect(),
        }
    }
}

/// A replacement's answer: the profile now, and whether the tools a
/// session lists changed (each session was sent one `list_changed` then).
#[derive(Serialize, JsonSchema)]
pub struct Changed {
    #[serde(flatten)]
    pub now: Profiled,
    pub changed: bool,
}

/// `PUT /api/v1/mcp/mode`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModeBody {
    /// A legacy mode.
    #[schemars(schema_with = "modes")]
    pub mode: String,
    /// Grant no question capability.
    #[serde(default)]
    pub disable_ask_question: bool,
}

/// `PUT /api/v1/mcp/providers`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvidersBody {
    /// Provider names.
    #[schemars(schema_with = "providers")]
    pub mcp_providers: Vec<String>,
}

/// The legacy modes `PUT /api/v1/mcp/mode` takes.
fn modes(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = crate::legacy::mode_names().collect();
    schemars::json_schema!({"enum": names})
}

/// Kandev's provider names (a repeated one counts once, as Kandev's
/// backend sends them).
fn providers(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use mcp_profiles::{Term, Vocabulary};
    schemars::json_schema!({
        "type": "array",
        "items": {"enum": <<Kandev as Vocabulary>::Provider as Term>::NAMES},
    })
}

/// A policy as the control API shows it, every field present.
#[derive(Serialize, JsonSchema)]
pub struct PolicyState {
    pub read_only: bool,
    pub no_destructive: bool,
    pub deny: DenyList<Kandev>,
}

/// `GET /api/v1/mcp/policy`.
#[derive(Serialize, JsonSchema)]
pub struct PolicyAnswer {
    pub policy: PolicyState,
}

/// `PUT /api/v1/mcp/policy`.
#[derive(Serialize, JsonSchema)]
pub struct PolicyChanged {
    pub policy: PolicyState,
    #[serde(flatten)]
    pub change: Changed,
}

/// `PUT /api/v1/mcp/kill-switch`, and `GET`'s answer.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillSwitchBody {
    /// Tool and tool group names removed from every profile.
    pub deny: DenyList<Kandev>,
}

/// `PUT /api/v1/mcp/kill-switch`.
#[derive(Serialize, JsonSchema)]
pub struct KillSwitchChanged {
    pub deny: DenyList<Kandev>,
    #[serde(flatten)]
    pub change: Changed,
}

/// `PUT /api/v1/tasks/{id}/autopilot`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AutopilotBody {
    pub autopilot: bool,
}

/// `PUT /api/v1/tasks/{id}/title-owner`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TitleOwnerBody {
    /// The session that owns the title, or `null` to clear it. Required:
    /// a missing field is an error, not a silent clear.
    #[schemars(with = "Option<String>", required)]
    pub session: Value,
}

/// `PUT /api/v1/tasks/{id}/tool-policy`: a task's tool policy, saved in
/// its metadata as Kandev keeps it: a coordinator binding, a managed
/// policy, or neither (`{}` clears it); not both.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolPolicyBody {
    pub coordinator_tool_policy: Option<CoordinatorToolPolicy>,
    pub managed_tool_policy: Option<ManagedToolPolicy>,
}

/// A task route's answer: the task as saved and, when this process serves
/// it, the live profile's replacement.
#[derive(Serialize, JsonSchema)]
pub struct TaskChanged {
    pub task: TaskState,
    /// Whether this process serves the task (the fields below follow).
    pub live: bool,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub change: Option<Changed>,
}

/// `GET` of the plugin tools: the installed snapshot, or before the first
/// `{"generation": null, "revision": null, "tools": []}`.
#[derive(Serialize, JsonSchema)]
pub struct InstalledSnapshot {
    pub generation: Option<String>,
    pub revision: Option<u64>,
    pub tools: Vec<crate::plugins::PluginTool>,
}

impl InstalledSnapshot {
    /// `snapshot`, or the answer before the first.
    pub fn of(snapshot: Option<crate::plugins::Snapshot>) -> Self {
        match snapshot {
            Some(snapshot) => InstalledSnapshot {
                generation: Some(snapshot.generation),
                revision: Some(snapshot.revision),
                tools: snapshot.tools,
            },
            None => InstalledSnapshot {
                generation: None,
                revision: None,
                tools: Vec::new(),
            },
        }
    }
}

/// The gateway's plugin-tool answer.
#[derive(Serialize, JsonSchema)]
pub struct AgentPluginTools {
    pub principal: String,
    pub generation: String,
    pub revision: u64,
    /// What the agent's sessions list now.
    pub tools: Vec<String>,
    pub changed: bool,
    /// The agent's version.
    pub version: u64,
}
