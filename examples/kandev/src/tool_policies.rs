//! Kandev's two per-session tool policies, as its launch metadata carries
//! them, onto typed contexts:
//!
//! - a **coordinator binding** (`CoordinatorToolPolicy`): which of the
//!   coordinator group's 13 tools a coordinator session gets (default: the
//!   phase-1 seven), with the binding's ids and revision; applied as the
//!   `coordinator` group's allow list;
//! - a **managed policy** (`ManagedToolPolicy`): at most 16 plugin tools by
//!   plugin-local name; forces the `managed-conversation` surface and is
//!   applied as the context's runtime allow list (exposed names).
//!
//! Both are decoded strictly (an unknown or missing field, a bad value: an
//! error naming it) and validated as Kandev validates them; the names are
//! checked again by the library (universe, duplicates, bound).

use std::fmt;

use mcp_profiles::ProfileContext;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::plugins::exposed_name;
use crate::server::{Kandev, Surface};

/// Task metadata key of a coordinator conversation's binding.
pub const COORDINATOR_METADATA_KEY: &str = "kandev.coordinator_tool_policy";
/// Task metadata key of a managed conversation's policy.
pub const MANAGED_METADATA_KEY: &str = "kandev.managed_tool_policy";

/// The coordinator group's name, whose allow list a binding sets.
const COORDINATOR_GROUP: &str = "coordinator";

/// Which coordinator tools a coordinator session is bound to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoordinatorToolPolicy {
    /// Must be 1.
    pub version: i64,
    /// The coordinator the session acts for.
    pub coordinator_id: String,
    /// The workspace it coordinates.
    pub workspace_id: String,
    /// The conversation task the session runs on.
    pub conversation_task_id: String,
    /// At least 0.
    pub policy_revision: i64,
    /// Coordinator tool names (canonical, `_kandev`).
    pub tool_names: Vec<String>,
}

/// Which plugin tools a managed conversation may see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManagedToolPolicy {
    /// The plugin whose tools the conversation may use.
    pub plugin_id: String,
    /// The plugin's installation.
    pub installation_id: String,
    /// The workspace the conversation belongs to.
    pub workspace_id: String,
    /// The plugin instance's key.
    pub instance_key: String,
    /// Not 0.
    pub conversation_revision: u64,
    /// Not 0.
    pub approval_revision: u64,
    /// 64 lowercase hex digits.
    pub manifest_digest: String,
    /// Plugin-local names, at most 16, each `^[a-z0-9][a-z0-9_]{0,31}$`.
    #[serde(default)]
    pub agent_tool_names: Vec<String>,
}

/// The most plugin tools a managed policy may allow.
pub const MANAGED_MAX_TOOLS: usize = 16;

/// A policy that Kandev would refuse, naming the field and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolPolicyError {
    /// `coordinator_tool_policy` or `managed_tool_policy`.
    pub policy: &'static str,
    /// What is wrong, naming the field.
    pub message: String,
}

impl fmt::Display for ToolPolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.policy, self.message)
    }
}

impl std::error::Error for ToolPolicyError {}

impl ToolPolicyError {
    fn new(policy: &'static str, message: impl Into<String>) -> Self {
        ToolPolicyError {
            policy,
            message: message.into(),
        }
    }
}

impl CoordinatorToolPolicy {
    const NAME: &'static str = "coordinator_tool_policy";

    /// Kandev's `Validate`: version 1, ids present, revision not negative;
    /// the names are the library's to check when applied.
    pub fn validate(&self) -> Result<(), ToolPolicyError> {
        let fail = |message: String| Err(ToolPolicyError::new(Self::NAME, message));
        if self.version != 1 {
            return fail(format!("`version` must be 1, got {}", self.version));
        }
        for (field, value) in [
            ("coordinator_id", &self.coordinator_id),
            ("workspace_id", &self.workspace_id),
            ("conversation_task_id", &self.conversation_task_id),
        ] {
            if value.trim().is_empty() {
                return fail(format!("`{field}` must not be empty"));
            }
        }
        if self.policy_revision < 0 {
            return fail(format!(
                "`policy_revision` must be 0 or more, got {}",
                self.policy_revision
            ));
        }
        Ok(())
    }

    /// `context` bound to this policy's tools (the coordinator group's
    /// allow list); a name outside the group's universe, a duplicate or a
    /// list past its bound is an error naming it.
    pub fn apply(
        &self,
        context: ProfileContext<Kandev>,
    ) -> Result<ProfileContext<Kandev>, ToolPolicyError> {
        self.validate()?;
        context
            .with_allowed(
                COORDINATOR_GROUP,
                self.tool_names.iter().map(String::as_str),
            )
            .map_err(|error| ToolPolicyError::new(Self::NAME, format!("`tool_names`: {error}")))
    }
}

impl ManagedToolPolicy {
    const NAME: &'static str = "managed_tool_policy";

    /// Kandev's `Validate`.
    pub fn validate(&self) -> Result<(), ToolPolicyError> {
        let fail = |message: String| Err(ToolPolicyError::new(Self::NAME, message));
        for (field, value) in [
            ("plugin_id", &self.plugin_id),
            ("installation_id", &self.installation_id),
            ("workspace_id", &self.workspace_id),
            ("instance_key", &self.instance_key),
        ] {
            if value.is_empty() || value.trim() != value || value.contains('\0') {
                return fail(format!(
                    "`{field}` must be non-empty, without surrounding whitespace or NUL; got {value:?}"
                ));
            }
        }
        for (field, value) in [
            ("conversation_revision", self.conversation_revision),
            ("approval_revision", self.approval_revision),
        ] {
            if value == 0 {
                return fail(format!("`{field}` must not be 0"));
            }
        }
        let digest = &self.manifest_digest;
        if digest.len() != 64
            || !digest
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            return fail(format!(
                "`manifest_digest` must be 64 lowercase hex digits, got {digest:?}"
            ));
        }
        if self.agent_tool_names.len() > MANAGED_MAX_TOOLS {
            return fail(format!(
                "`agent_tool_names` holds {} names; at most {MANAGED_MAX_TOOLS}",
                self.agent_tool_names.len()
            ));
        }
        for (position, name) in self.agent_tool_names.iter().enumerate() {
            if !is_local_name(name) {
                return fail(format!(
                    "`agent_tool_names`: {name:?} is not a plugin-local tool name \
                     (a lowercase letter or digit, then up to 31 of `a-z`, `0-9`, `_`)"
                ));
            }
            if self.agent_tool_names[..position].contains(name) {
                return fail(format!("`agent_tool_names`: {name:?} is listed twice"));
            }
        }
        Ok(())
    }

    /// `context` moved to the managed surface, serving only the allowed
    /// plugin tools (by their exposed names); its capabilities, providers
    /// and policy are kept.
    pub fn apply(
        &self,
        context: ProfileContext<Kandev>,
    ) -> Result<ProfileContext<Kandev>, ToolPolicyError> {
        self.validate()?;
        let exposed: Vec<String> = self
            .agent_tool_names
            .iter()
            .map(|local| exposed_name(&self.plugin_id, local))
            .collect();
        context
            .with_surface(Surface::ManagedConversation)
            .with_runtime_allowed(exposed.iter().map(String::as_str))
            .map_err(|error| ToolPolicyError::new(Self::NAME, error.to_string()))
    }
}

/// `^[a-z0-9][a-z0-9_]{0,31}$`
fn is_local_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    matches!(bytes.first(), Some(b'a'..=b'z' | b'0'..=b'9'))
        && bytes.len() <= 32
        && bytes
            .iter()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// A task's tool policy, as its metadata holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskToolPolicy {
    /// The task is a coordinator conversation bound to these tools.
    Coordinator(CoordinatorToolPolicy),
    /// The task is a managed conversation allowed these plugin tools.
    Managed(ManagedToolPolicy),
}

impl TaskToolPolicy {
    /// The policy `metadata` holds, if any: under
    /// [`COORDINATOR_METADATA_KEY`] or [`MANAGED_METADATA_KEY`], as a JSON
    /// object or a string of one (Kandev accepts both). A value that does
    /// not decode or validate, or both keys at once, is an error: a launch
    /// is never silently unrestricted.
    pub fn from_metadata(
        metadata: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Option<Self>, ToolPolicyError> {
        let read = |key: &str,
                    policy: &'static str|
         -> Result<Option<serde_json::Value>, ToolPolicyError> {
            match metadata.get(key) {
                None => Ok(None),
                Some(serde_json::Value::String(text)) => {
                    serde_json::from_str(text).map(Some).map_err(|error| {
                        ToolPolicyError::new(
                            policy,
                            format!("task metadata `{key}` is not JSON: {error}"),
                        )
                    })
                }
                Some(value) => Ok(Some(value.clone())),
            }
        };
        let coordinator = read(COORDINATOR_METADATA_KEY, CoordinatorToolPolicy::NAME)?;
        let managed = read(MANAGED_METADATA_KEY, ManagedToolPolicy::NAME)?;
        let policy = match (coordinator, managed) {
            (None, None) => return Ok(None),
            (Some(_), Some(_)) => {
                return Err(ToolPolicyError::new(
                    CoordinatorToolPolicy::NAME,
                    "a task carries a coordinator binding or a managed policy, not both",
                ));
            }
            (Some(binding), None) => {
                TaskToolPolicy::Coordinator(decode(CoordinatorToolPolicy::NAME, binding)?)
            }
            (None, Some(policy)) => {
                TaskToolPolicy::Managed(decode(ManagedToolPolicy::NAME, policy)?)
            }
        };
        // Checked in full (names included) before anyone relies on it.
        policy.apply(ProfileContext::new(Surface::KanbanTask))?;
        Ok(Some(policy))
    }

    /// Where the policy goes in task metadata, and its canonical JSON.
    pub fn metadata_entry(&self) -> (&'static str, serde_json::Value) {
        let value = match self {
            TaskToolPolicy::Coordinator(binding) => serde_json::to_value(binding),
            TaskToolPolicy::Managed(policy) => serde_json::to_value(policy),
        };
        let key = match self {
            TaskToolPolicy::Coordinator(_) => COORDINATOR_METADATA_KEY,
            TaskToolPolicy::Managed(_) => MANAGED_METADATA_KEY,
        };
        (key, value.expect("plain data serialises"))
    }

    /// What a session of the task gets: a coordinator conversation is a
    /// session on the `coordinator` surface bound to its tools (no
    /// capability: Kandev's coordinator mode grants none), a managed one
    /// `resolved` moved to `managed-conversation` with its plugin tools.
    /// `resolved`'s policy is kept either way.
    pub fn apply(
        &self,
        resolved: ProfileContext<Kandev>,
    ) -> Result<ProfileContext<Kandev>, ToolPolicyError> {
        match self {
            TaskToolPolicy::Coordinator(binding) => binding
                .apply(ProfileContext::new(Surface::Coordinator).with_policy(resolved.policy())),
            TaskToolPolicy::Managed(policy) => policy.apply(resolved),
        }
    }
}

/// A context in the JSON form Kandev's launch metadata gives it: ours
/// (`surface`, `capabilities`, `providers`, `policy`, `allow`,
/// `runtime_allow`) plus at most one of Kandev's `coordinator_tool_policy`
/// (on the `coordinator` surface) and `managed_tool_policy` (which forces
/// the `managed-conversation` surface).
///
/// ```
/// let json = r#"{"surface":"coordinator","coordinator_tool_policy":{
///     "version":1,"coordinator_id":"c-1","workspace_id":"ws-1",
///     "conversation_task_id":"task-1","policy_revision":3,
///     "tool_names":["list_tasks_kandev","propose_task_kandev"]}}"#;
/// let context = kandev_mcp::tool_policies::context_from_json(json)?;
/// assert_eq!(
///     context.allowed("coordinator"),
///     Some(&["list_tasks_kandev", "propose_task_kandev"][..])
/// );
/// # Ok::<(), kandev_mcp::tool_policies::ContextJsonError>(())
/// ```
pub fn context_from_json(json: &str) -> Result<ProfileContext<Kandev>, ContextJsonError> {
    match serde_json::from_str::<Members>(json) {
        Ok(members) if members.has_policy() => from_members(members),
        // Ours alone, or not an object: the library decodes the text as
        // given, so its errors (a repeated field too) point into it.
        _ => Ok(ProfileContext::from_json(json)?),
    }
}

/// A context from its members: Kandev's policies set apart, the rest
/// decoded by the library from their text as written.
fn from_members(Members(members): Members) -> Result<ProfileContext<Kandev>, ContextJsonError> {
    let (mut coordinator, mut managed, mut rest) = (None, None, Vec::new());
    for (key, value) in members {
        let (slot, policy) = match key.as_str() {
            CoordinatorToolPolicy::NAME => (&mut coordinator, CoordinatorToolPolicy::NAME),
            ManagedToolPolicy::NAME => (&mut managed, ManagedToolPolicy::NAME),
            _ => {
                rest.push((key, value));
                continue;
            }
        };
        if slot.replace(value).is_some() {
            return Err(ContextJsonError::Policy(ToolPolicyError::new(
                policy,
                "given twice",
            )));
        }
    }
    // The other members, each as written, for the library's strict decoder.
    let rest: Vec<String> = rest
        .iter()
        .map(|(key, value)| format!("{}:{}", serde_json::Value::from(key.as_str()), value.get()))
        .collect();
    let context = ProfileContext::from_json(&format!("{{{}}}", rest.join(",")))?;
    match (coordinator, managed) {
        (None, None) => Ok(context),
        (Some(_), Some(_)) => Err(ContextJsonError::Policy(ToolPolicyError::new(
            CoordinatorToolPolicy::NAME,
            "a context carries a coordinator binding or a managed policy, not both",
        ))),
        (Some(binding), None) => {
            let binding: CoordinatorToolPolicy = decode_raw(CoordinatorToolPolicy::NAME, &binding)?;
            if context.surface() != Surface::Coordinator {
                return Err(ContextJsonError::Policy(ToolPolicyError::new(
                    CoordinatorToolPolicy::NAME,
                    format!(
                        "binds a session on the `coordinator` surface, and this one is on `{}`",
                        context.surface()
                    ),
                )));
            }
            Ok(binding.apply(context)?)
        }
        (None, Some(policy)) => {
            let policy: ManagedToolPolicy = decode_raw(ManagedToolPolicy::NAME, &policy)?;
            Ok(policy.apply(context)?)
        }
    }
}

/// The members of a JSON object in order, each value's text as written
/// (so nothing a strict decoder would refuse, such as a repeated field, is
/// lost on the way).
struct Members(Vec<(String, Box<RawValue>)>);

impl Members {
    /// Whether a Kandev policy is among them.
    fn has_policy(&self) -> bool {
        self.0
            .iter()
            .any(|(key, _)| key == CoordinatorToolPolicy::NAME || key == ManagedToolPolicy::NAME)
    }
}

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a profile context object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// A context in Kandev's JSON form (see [`context_from_json`]) as a field
/// of a larger body, such as the gateway's `{"profile": ..., "version": N}`.
#[derive(Debug)]
pub struct KandevContext(pub ProfileContext<Kandev>);

impl<'de> Deserialize<'de> for KandevContext {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Member by member, so a body that is no object is refused at its
        // first token, as the library's own decoder does.
        from_members(Members::deserialize(deserializer)?)
            .map(KandevContext)
            .map_err(serde::de::Error::custom)
    }
}

/// The library's context schema, with Kandev's two policies beside it
/// (at most one of them; the decoder refuses both).
/// The gateway's control API reads an agent's `"profile"` in this form.
impl mcp_profiles_serve::control::ContextForm<Kandev> for KandevContext {
    fn into_context(self) -> ProfileContext<Kandev> {
        self.0
    }
}

impl schemars::JsonSchema for KandevContext {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KandevContext".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = ProfileContext::<Kandev>::json_schema(generator);
        let coordinator = generator.subschema_for::<CoordinatorToolPolicy>();
        let managed = generator.subschema_for::<ManagedToolPolicy>();
        if let Some(properties) = schema
            .ensure_object()
            .get_mut("properties")
            .and_then(serde_json::Value::as_object_mut)
        {
            properties.insert("coordinator_tool_policy".into(), coordinator.into());
            properties.insert("managed_tool_policy".into(), managed.into());
        }
        schema.insert(
            "description".into(),
            "A profile context in Kandev's form: the library's, with a coordinator binding or a managed conversation's plugin-tool policy (not both).".into(),
        );
        schema
    }
}

fn decode<T: serde::de::DeserializeOwned>(
    policy: &'static str,
    value: serde_json::Value,
) -> Result<T, ToolPolicyError> {
    serde_json::from_value(value).map_err(|error| ToolPolicyError::new(policy, error.to_string()))
}

/// [`decode`] of a value's text as written (repeated fields refused).
fn decode_raw<T: serde::de::DeserializeOwned>(
    policy: &'static str,
    text: &RawValue,
) -> Result<T, ToolPolicyError> {
    serde_json::from_str(text.get())
        .map_err(|error| ToolPolicyError::new(policy, error.to_string()))
}

/// Why a context in Kandev's JSON form was refused.
#[derive(Debug)]
pub enum ContextJsonError {
    /// The context itself (surface, capabilities, ...).
    Context(mcp_profiles::ContextError),
    /// A coordinator binding or managed policy.
    Policy(ToolPolicyError),
}

impl fmt::Display for ContextJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContextJsonError::Context(error) => error.fmt(f),
            ContextJsonError::Policy(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ContextJsonError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ContextJsonError::Context(error) => Some(error),
            ContextJsonError::Policy(error) => Some(error),
        }
    }
}

impl From<mcp_profiles::ContextError> for ContextJsonError {
    fn from(error: mcp_profiles::ContextError) -> Self {
        ContextJsonError::Context(error)
    }
}

impl From<ToolPolicyError> for ContextJsonError {
    fn from(error: ToolPolicyError) -> Self {
        ContextJsonError::Policy(error)
    }
}

#[cfg(test)]
mod tests;
