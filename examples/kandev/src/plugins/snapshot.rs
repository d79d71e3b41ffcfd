//! Kandev's plugin-tool snapshot: the JSON the backend sends, decoded
//! strictly and checked by Kandev's rules before anything is installed.

use std::fmt;

use rmcp::model::JsonObject;
use serde::{Deserialize, Serialize};

use super::names::exposed_name;
use crate::Surface;

/// A plugin-tool catalog as Kandev's backend sends it.
///
/// Unknown fields are refused. `revision` defaults to 0, `tools` to none,
/// `input_schema` to an object schema accepting any object, the hints to
/// `false`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// The backend's catalog epoch; required and non-empty.
    #[serde(default)]
    pub generation: String,
    /// Orders catalogs within a generation.
    #[serde(default)]
    pub revision: u64,
    /// The tools.
    #[serde(default)]
    pub tools: Vec<PluginTool>,
}

/// One plugin tool of a [`Snapshot`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginTool {
    /// The plugin's id; required.
    #[serde(default)]
    pub plugin_id: String,
    /// The plugin's name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_display_name: Option<String>,
    /// The tool's name inside its plugin; required.
    #[serde(default)]
    pub local_name: String,
    /// The tool's MCP name: [`exposed_name`]`(plugin_id, local_name)`.
    #[serde(default)]
    pub exposed_name: String,
    /// What the tool does; required.
    #[serde(default)]
    pub description: String,
    /// Where the tool is offered: some of [`PLUGIN_SURFACES`].
    #[serde(default)]
    pub surfaces: Vec<String>,
    /// JSON Schema (2020-12) of the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<JsonObject>,
    /// JSON Schema of the structured result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// The tool does not change anything.
    #[serde(default)]
    pub read_only_hint: bool,
    /// The tool may destroy data.
    #[serde(default)]
    pub destructive_hint: bool,
    /// Repeating a call has no further effect.
    #[serde(default)]
    pub idempotent_hint: bool,
    /// The tool reaches outside Kandev.
    #[serde(default)]
    pub open_world_hint: bool,
}

/// The surfaces a plugin tool may declare: Kandev's `SurfaceKanban`,
/// `SurfaceOffice` and `SurfaceManaged` (whose value, `managed-conversation`,
/// is assumed, not verified). Never `automation` or `coordinator`, where
/// Kandev registers no plugin tool.
pub const PLUGIN_SURFACES: [Surface; 3] = [
    Surface::KanbanTask,
    Surface::OfficeTask,
    Surface::ManagedConversation,
];

/// [`PLUGIN_SURFACES`] as an error lists them.
const EXPECTED: &str = "kanban-task, office-task or managed-conversation";

/// Why a snapshot was refused: every problem found, each naming its tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotError {
    problems: Vec<String>,
}

impl SnapshotError {
    pub(crate) fn new(problems: Vec<String>) -> Self {
        SnapshotError { problems }
    }

    /// Each problem, in the order found.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "plugin-tool snapshot refused: {}",
            self.problems.join("; ")
        )
    }
}

impl std::error::Error for SnapshotError {}

/// At most this much of a caller's string is quoted back in an error.
const ECHO: usize = 64;

/// `value` quoted, cut at [`ECHO`] characters.
fn quoted(value: &str) -> String {
    let mut shown: String = value.chars().take(ECHO).collect();
    if shown.len() < value.len() {
        shown.push('…');
    }
    format!("`{shown}`")
}

impl Snapshot {
    /// Decodes `json` strictly (objects only, no unknown or repeated
    /// field) and checks it by Kandev's rules.
    pub fn decode(json: &[u8]) -> Result<Snapshot, SnapshotError> {
        let refused = |err: serde_json::Error| SnapshotError::new(vec![err.to_string()]);
        let snapshot: Snapshot = serde_json::from_slice(json).map_err(refused)?;
        // serde also reads a struct from an array of its fields; the wire
        // form is objects only.
        let shape: serde_json::Value = serde_json::from_slice(json).map_err(refused)?;
        let tools = shape.get("tools").and_then(serde_json::Value::as_array);
        if !shape.is_object() || tools.is_some_and(|tools| tools.iter().any(|t| !t.is_object())) {
            return Err(SnapshotError::new(vec![
                "a snapshot and each of its tools must be JSON objects".to_owned(),
            ]));
        }
        snapshot.check()?;
        Ok(snapshot)
    }

    /// Checks Kandev's rules: a generation; each tool's plugin id, local
    /// name, exposed name and description present; the exposed name the one
    /// Kandev derives; surfaces non-empty, distinct and plugin surfaces.
    /// Name uniqueness, name characters and schemas are checked when the
    /// catalog is built, as for any runtime tool.
    pub fn check(&self) -> Result<(), SnapshotError> {
        let mut problems = Vec::new();
        if self.generation.is_empty() {
            problems.push("`generation` is required".to_owned());
        }
        for (index, tool) in self.tools.iter().enumerate() {
            let name = if tool.exposed_name.is_empty() {
                format!("tools[{index}]")
            } else {
                format!("tools[{index}] {}", quoted(&tool.exposed_name))
            };
            tool.check(&name, &mut problems);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(SnapshotError::new(problems))
        }
    }
}

impl PluginTool {
    fn check(&self, name: &str, problems: &mut Vec<String>) {
        for (field, value) in [
            ("plugin_id", &self.plugin_id),
            ("local_name", &self.local_name),
            ("exposed_name", &self.exposed_name),
            ("description", &self.description),
        ] {
            if value.is_empty() {
                problems.push(format!("{name}: `{field}` is required"));
            }
        }
        if !self.plugin_id.is_empty() && !self.local_name.is_empty() {
            let expected = exposed_name(&self.plugin_id, &self.local_name);
            if !self.exposed_name.is_empty() && expected != self.exposed_name {
                problems.push(format!(
                    "{name}: `exposed_name` must be `{expected}`, Kandev's name for this plugin id and local name"
                ));
            }
        }
        if self.surfaces.is_empty() {
            problems.push(format!(
                "{name}: `surfaces` must name at least one of {EXPECTED}"
            ));
        }
        for (position, surface) in self.surfaces.iter().enumerate() {
            if self.surfaces[..position].contains(surface) {
                problems.push(format!("{name}: surface {} listed twice", quoted(surface)));
            } else if !PLUGIN_SURFACES.iter().any(|s| s.to_string() == *surface) {
                problems.push(format!(
                    "{name}: unknown surface {} (expected {EXPECTED})",
                    quoted(surface)
                ));
            }
        }
    }

    /// The surfaces the tool is served on, typed: the declared ones. On
    /// `managed-conversation` a session still sees only the plugin tools
    /// its managed policy allows (the context's runtime allow list, which
    /// the vocabulary requires there: none without a policy). Call on a
    /// checked snapshot.
    pub fn served_surfaces(&self) -> Vec<Surface> {
        PLUGIN_SURFACES
            .into_iter()
            .filter(|surface| self.surfaces.contains(&surface.to_string()))
            .collect()
    }
}
