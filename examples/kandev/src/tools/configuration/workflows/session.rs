//! What a step with its own agent profile says about sessions: how they
//! start and end around a profile switch, and which session the step's
//! work goes to (its session target).

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};

use crate::store::{BadField, Board, Object};

/// The settings key of the session a step's work goes to.
pub(super) const SESSION_TARGET: &str = "session_target";

/// The settings key of a step's own agent profile.
pub(super) const AGENT_PROFILE: &str = "agent_profile_id";

/// How a step's session starts after a switch to the step's profile.
#[derive(Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionStartPolicy {
    Reuse,
    New,
}

/// What happens to a step's session when the task leaves for another profile.
#[derive(Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionEndPolicy {
    Complete,
    Park,
}

/// The session a step's work goes to.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionTarget {
    kind: SessionTargetKind,
    step_id: Option<String>,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum SessionTargetKind {
    Initial,
    Step,
}

/// Kandev's schema for `session_target`: an object or `null`.
pub(super) fn session_target_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": ["object", "null"],
        "properties": {
            "kind": { "type": "string", "enum": ["initial", "step"] },
            "step_id": { "type": "string" },
        },
        "required": ["kind"],
        "additionalProperties": false,
    })
}

/// Tells a field sent as `null` (`Some(None)`) from one left out (`None`,
/// by `#[serde(default)]`).
pub(super) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Where a step is, or will be once created: its workflow, its ID (none
/// while it is being created) and its column index.
#[derive(Clone, Copy)]
pub(super) struct Place<'a> {
    pub(super) workflow_id: &'a str,
    pub(super) step_id: Option<&'a str>,
    pub(super) index: u32,
}

/// The stored form of a step's session target (`null` clears it), checked
/// for the step at `place`.
pub(super) fn session_target(
    board: &Board,
    place: Place<'_>,
    target: Option<SessionTarget>,
) -> Result<Value, BadField> {
    let bad = |message: String| BadField::new(SESSION_TARGET, message);
    let Some(target) = target else {
        return Ok(Value::Null);
    };
    let step_id = target.step_id.map(|id| id.trim().to_owned());
    match (target.kind, step_id) {
        (SessionTargetKind::Initial, None) => Ok(json!({ "kind": "initial" })),
        (SessionTargetKind::Initial, Some(_)) => {
            Err(bad("an `initial` target takes no step_id".into()))
        }
        (SessionTargetKind::Step, None) => Err(bad("a `step` target needs step_id".into())),
        (SessionTargetKind::Step, Some(id)) => {
            let source = board.step(SESSION_TARGET, &id)?;
            if source.workflow_id != place.workflow_id {
                return Err(bad(format!(
                    "step `{id}` is not in workflow `{}`",
                    place.workflow_id
                )));
            }
            if Some(id.as_str()) == place.step_id || source.position >= place.index {
                return Err(bad(format!("step `{id}` does not come before this step")));
            }
            if !source.settings.contains_key(AGENT_PROFILE) {
                return Err(bad(format!("step `{id}` has no agent profile of its own")));
            }
            Ok(json!({ "kind": "step", "step_id": id }))
        }
    }
}

/// The step a step's settings name as their session target, if any.
pub(super) fn target_step(settings: &Object) -> Option<&str> {
    let target = settings.get(SESSION_TARGET)?;
    target.get("step_id")?.as_str()
}
