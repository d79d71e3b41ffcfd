//! What the control routes read and answer, as types: each handler builds
//! its answer from one of them, and the API's OpenAPI document holds their
//! schemas, so the two cannot differ.

use mcp_profiles::{DenyList, ProfileContext, Vocabulary};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::audit::AuditRecord;

/// An agent: its profile, its compiled tools and its version.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(bound = "")]
#[schemars(bound = "S: Vocabulary", rename = "Agent")]
pub struct Agent<S: Vocabulary> {
    /// The principal.
    pub principal: String,
    /// Its profile context.
    pub profile: ProfileContext<S>,
    /// The profile's compiled tools its sessions are served, under the
    /// operator's kill switch (a runtime catalog's are not among them).
    pub tools: Vec<String>,
    /// Grows by one with every replacement (profile or runtime catalog).
    pub version: u64,
}

/// `PUT /api/v1/agents/{principal}`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(bound = "")]
#[schemars(bound = "S: Vocabulary", rename = "AgentChanged")]
pub struct AgentChanged<S: Vocabulary> {
    /// The agent now.
    #[serde(flatten)]
    pub agent: Agent<S>,
    /// Whether its compiled tools changed (always for a new agent).
    pub changed: bool,
}

/// `PUT /api/v1/agents/{principal}`: a profile in the API's context form
/// (the vocabulary's own unless the application chose another).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "F: Deserialize<'de>")]
#[schemars(rename = "AgentPut")]
pub struct AgentPut<F> {
    /// The profile.
    pub profile: F,
    /// Replace only if the agent is at this version (0: only create);
    /// `null` is refused, not read as any version.
    #[serde(default, deserialize_with = "version")]
    #[schemars(with = "u64", transform = without_default)]
    pub version: Option<u64>,
}

/// `DELETE /api/v1/agents/{principal}`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentRemoved {
    /// The principal.
    pub principal: String,
    /// Always `true` (an agent that does not exist is 404).
    pub removed: bool,
}

/// `POST /api/v1/tokens`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrantBody {
    /// 1 to 1024 visible ASCII characters; never answered or logged.
    pub token: String,
    /// The principal it acts as; its agent must exist.
    pub principal: String,
}

impl std::fmt::Debug for GrantBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrantBody")
            .field("principal", &self.principal)
            .finish_non_exhaustive()
    }
}

/// `POST /api/v1/tokens`' answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Granted {
    /// The principal.
    pub principal: String,
    /// Always `true`.
    pub granted: bool,
}

/// `POST /api/v1/tokens/revoke`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevokeBody {
    /// The token to stop.
    pub token: String,
}

impl std::fmt::Debug for RevokeBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RevokeBody").finish_non_exhaustive()
    }
}

/// `POST /api/v1/tokens/revoke`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Revoked {
    /// Whether the token was granted.
    pub revoked: bool,
}

/// The operator's kill switch, as stored.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StoredKillSwitch {
    /// The tool and tool group names denied on every agent.
    pub deny: Vec<String>,
    /// 0 before the first put; the one to compare-and-set with.
    pub version: u64,
}

/// `PUT /api/v1/kill-switch`: always a compare-and-set.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(bound = "S: Vocabulary", rename = "KillSwitchPut")]
pub struct KillSwitchPut<S: Vocabulary> {
    /// Tool and tool group names to deny on every agent.
    #[schemars(with = "DenyList<S>")]
    pub deny: Vec<String>,
    /// The version now in force (0 before the first put); required.
    #[serde(deserialize_with = "version")]
    #[schemars(with = "u64")]
    pub version: Option<u64>,
    #[serde(skip)]
    #[schemars(skip)]
    vocabulary: std::marker::PhantomData<fn() -> S>,
}

/// `GET /api/v1/agents/{principal}/exposure`: what the principal could
/// reach at a past moment, rebuilt from the audit trail.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(bound = "")]
#[schemars(bound = "S: Vocabulary", rename = "PastExposure")]
pub struct Exposed<S: Vocabulary> {
    /// The principal.
    pub principal: String,
    /// The moment, in milliseconds since the Unix epoch: the one asked, or
    /// that of the change that made the revision asked.
    pub at: u64,
    /// Its agent then; `null`: it had none.
    pub agent: Option<PastAgent<S>>,
    /// The operator's kill switch then.
    pub kill_switch: StoredKillSwitch,
    /// The compiled tools the agent's sessions were served then, under
    /// that kill switch (a runtime catalog's are not among them).
    pub tools: Vec<String>,
    /// The numbers (`seq`) of the audit records this was read off.
    pub evidence: Vec<u64>,
}

impl<S: Vocabulary> From<crate::exposure::past::PastExposure<S>> for Exposed<S> {
    fn from(past: crate::exposure::past::PastExposure<S>) -> Self {
        let tools = past.tools();
        let (deny, version) = past.kill_switch;
        Exposed {
            principal: past.principal,
            at: past.at,
            agent: past
                .agent
                .map(|(profile, version)| PastAgent { profile, version }),
            kill_switch: StoredKillSwitch { deny, version },
            tools,
            evidence: past.evidence,
        }
    }
}

/// An agent at a past moment: its profile and version then.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(bound = "")]
#[schemars(bound = "S: Vocabulary", rename = "PastAgent")]
pub struct PastAgent<S: Vocabulary> {
    /// Its profile context then.
    pub profile: ProfileContext<S>,
    /// Its version then.
    pub version: u64,
}

/// `GET /api/v1/audit`: a page of records and where the next starts.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AuditPage {
    /// The records, in the order asked for.
    pub records: Vec<AuditRecord>,
    /// `since` (or `before`, newest first) for the next page; `null` at
    /// the end.
    pub next: Option<u64>,
}

/// A `"version"` that is there: a whole number from 0 to `u64::MAX`.
/// `null` is refused, not read as "any version", which would turn a
/// compare-and-set into an unconditional write.
pub(super) fn version<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    value.as_u64().map(Some).ok_or_else(|| {
        let text = value.to_string();
        let shown: String = text.chars().take(40).collect();
        let cut = if shown.len() < text.len() { "…" } else { "" };
        serde::de::Error::custom(format!(
            "`version` must be a whole number from 0 to {}, not {shown}{cut}",
            u64::MAX
        ))
    })
}

/// An optional field's schema without `"default": null`, for a field that
/// may be left out but never be `null`.
pub(super) fn without_default(schema: &mut schemars::Schema) {
    schema.remove("default");
}

/// A profile context form: what `PUT /api/v1/agents/{principal}` reads as
/// `"profile"`. The vocabulary's own [`ProfileContext`] is one; an
/// application with its own form (a legacy shape, a policy document of its
/// own) implements it for that type, whose schema the OpenAPI document then
/// holds.
pub trait ContextForm<S: Vocabulary>:
    serde::de::DeserializeOwned + JsonSchema + Send + 'static
{
    /// The context it stands for.
    fn into_context(self) -> ProfileContext<S>;
}

impl<S: Vocabulary> ContextForm<S> for ProfileContext<S> {
    fn into_context(self) -> ProfileContext<S> {
        self
    }
}
