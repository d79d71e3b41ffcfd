//! Verifying a catalog, all or nothing: names, schemas, rules, and no
//! runtime tool sharing a name with a compiled tool in any valid context.

use std::collections::{HashMap, HashSet};
use std::fmt;

use rmcp::model::JsonObject;
use serde_json::Value;

use super::{Entry, RuntimeTool};
use crate::tool_name::{MAX_NAME, check_name};
use crate::{Errors, ProfileContext, Registry, Vocabulary};

/// Checks every tool of a catalog against `registry`, reporting with
/// `errors` (its groups' problems, found first); the verified entries are
/// sorted by name.
pub(super) fn verify<S: Vocabulary>(
    registry: &Registry<S>,
    tools: Vec<RuntimeTool<S>>,
    mut errors: Vec<CatalogError>,
) -> Result<Vec<Entry<S>>, CatalogErrors> {
    let mut owners: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, group) in registry.groups().iter().enumerate() {
        for tool in group.tools() {
            owners.entry(tool).or_default().push(index);
        }
    }
    let mut seen: HashSet<String> = HashSet::with_capacity(tools.len());
    let mut entries = Vec::with_capacity(tools.len());
    for tool in tools {
        let name = tool.name().to_owned();
        if let Err(reason) = check_name(&name) {
            errors.push(CatalogError::InvalidName { tool: name, reason });
            continue;
        }
        if !seen.insert(name.clone()) {
            errors.push(CatalogError::DuplicateName { tool: name });
            continue;
        }
        let rule = *tool.rule.masks();
        if let Err(why) = registry.shape().witness(&rule) {
            errors.push(CatalogError::UnreachableRule {
                tool: name.clone(),
                reason: registry.describe(why),
            });
        } else {
            for &group in owners.get(name.as_str()).into_iter().flatten() {
                let group = &registry.groups()[group];
                let Some(witness) = registry.shape().joint_witness(group.rule().masks(), &rule)
                else {
                    continue;
                };
                errors.push(CatalogError::Collision {
                    tool: name.clone(),
                    group: group.name().to_owned(),
                    witness: ProfileContext::<S>::from_bits(witness).to_json(),
                });
            }
        }
        let definition = tool.definition();
        let output = definition.output_schema.as_deref();
        if let Err(reason) = compile(Schema::Output, output).map(drop) {
            errors.push(reason.of(&name));
        }
        match compile(Schema::Input, Some(&definition.input_schema)) {
            Ok(Some(arguments)) => entries.push(Entry {
                rule,
                arguments,
                #[cfg(feature = "metrics")]
                meter: crate::telemetry::ToolMeter::register(&name),
                tool,
            }),
            Ok(None) => unreachable!("an input schema is always given"),
            Err(reason) => errors.push(reason.of(&name)),
        }
    }
    Errors::check(errors)?;
    entries.sort_by(|a, b| a.tool.name().cmp(b.tool.name()));
    Ok(entries)
}

#[derive(Clone, Copy)]
enum Schema {
    Input,
    Output,
}

struct SchemaProblem {
    which: Schema,
    reason: String,
}

impl SchemaProblem {
    fn of(self, tool: &str) -> CatalogError {
        let which = match self.which {
            Schema::Input => "input",
            Schema::Output => "output",
        };
        CatalogError::InvalidSchema {
            tool: tool.to_owned(),
            schema: which,
            reason: self.reason,
        }
    }
}

/// Compiles an object schema as JSON Schema 2020-12.
///
/// MCP wants `"type": "object"` at the top of both schemas. Without the
/// `jsonschema` crate's retrieval features, a `$ref` to anything outside the
/// schema fails to compile instead of being fetched.
fn compile(
    which: Schema,
    schema: Option<&JsonObject>,
) -> Result<Option<jsonschema::Validator>, SchemaProblem> {
    let Some(schema) = schema else {
        return Ok(None);
    };
    let problem = |reason: String| SchemaProblem { which, reason };
    match schema.get("type") {
        Some(Value::String(kind)) if kind == "object" => {}
        Some(other) => {
            return Err(problem(format!(
                "its top-level `type` is {other}; MCP requires \"object\""
            )));
        }
        None => {
            return Err(problem(
                "it has no top-level `type`; MCP requires \"type\": \"object\"".to_owned(),
            ));
        }
    }
    jsonschema::draft202012::options()
        .build(&Value::Object(schema.clone()))
        .map(Some)
        .map_err(|error| {
            problem(format!(
                "it does not compile as JSON Schema 2020-12 at `{}`: {error}",
                display_path(&error.instance_path().to_string())
            ))
        })
}

/// A JSON pointer for messages: the root is `/`.
pub(super) fn display_path(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// One reason a catalog was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogError {
    /// The name breaks MCP's tool-name rules.
    InvalidName {
        /// The name as given.
        tool: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two tools of the catalog share a name.
    DuplicateName {
        /// The shared name.
        tool: String,
    },
    /// No valid context satisfies the tool's rule.
    UnreachableRule {
        /// The tool.
        tool: String,
        /// Why no context satisfies it.
        reason: String,
    },
    /// A valid context enables the tool together with a compiled tool of
    /// the same name.
    Collision {
        /// The shared name.
        tool: String,
        /// The compiled tool group exposing it.
        group: String,
        /// A context enabling both, in its JSON form.
        witness: String,
    },
    /// A schema is not an object schema or does not compile.
    InvalidSchema {
        /// The tool.
        tool: String,
        /// `input` or `output`.
        schema: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A group of the catalog breaks MCP's name rules, is in no tool, or
    /// has a blank or multi-line title or a blank description.
    InvalidGroup {
        /// The group's name as given.
        group: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two groups of the catalog share a name.
    DuplicateGroup {
        /// The shared name.
        group: String,
    },
    /// A group of the catalog has the name of a compiled group.
    GroupNameTaken {
        /// The name.
        group: String,
    },
    /// A tool is in a group the catalog does not declare.
    UnknownGroup {
        /// The tool.
        tool: String,
        /// The group it names.
        group: String,
    },
}

impl CatalogError {
    /// The tool the problem is about (for a group's own problem, the
    /// group).
    pub fn tool(&self) -> &str {
        match self {
            CatalogError::InvalidName { tool, .. }
            | CatalogError::DuplicateName { tool }
            | CatalogError::UnreachableRule { tool, .. }
            | CatalogError::Collision { tool, .. }
            | CatalogError::InvalidSchema { tool, .. }
            | CatalogError::UnknownGroup { tool, .. } => tool,
            CatalogError::InvalidGroup { group, .. }
            | CatalogError::DuplicateGroup { group }
            | CatalogError::GroupNameTaken { group } => group,
        }
    }
}

/// A name from untrusted input, as an error echoes it: quoted, its first
/// [`MAX_NAME`] characters, `…` when there were more.
struct Untrusted<'a>(&'a str);

impl fmt::Display for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: String = self.0.chars().take(MAX_NAME).collect();
        let more = if shown.len() < self.0.len() {
            "…"
        } else {
            ""
        };
        write!(f, "{shown:?}{more}")
    }
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::InvalidName { tool, reason } => {
                let shown = Untrusted(tool);
                write!(f, "runtime tool name {shown} is invalid: {reason}")
            }
            CatalogError::DuplicateName { tool } => {
                write!(f, "runtime tool `{tool}` is listed twice")
            }
            CatalogError::UnreachableRule { tool, reason } => {
                write!(f, "runtime tool `{tool}` can never be enabled: {reason}")
            }
            CatalogError::Collision {
                tool,
                group,
                witness,
            } => write!(
                f,
                "runtime tool `{tool}` collides with tool `{tool}` of compiled group `{group}`: \
                 the context {witness} enables both"
            ),
            CatalogError::InvalidSchema {
                tool,
                schema,
                reason,
            } => write!(
                f,
                "the {schema} schema of runtime tool `{tool}` is invalid: {reason}"
            ),
            CatalogError::InvalidGroup { group, reason } => {
                let shown = Untrusted(group);
                write!(f, "runtime group {shown} is invalid: {reason}")
            }
            CatalogError::DuplicateGroup { group } => {
                write!(f, "runtime group `{group}` is declared twice")
            }
            CatalogError::GroupNameTaken { group } => write!(
                f,
                "runtime group `{group}` has the name of a compiled tool group; name it otherwise"
            ),
            CatalogError::UnknownGroup { tool, group } => write!(
                f,
                "runtime tool `{tool}` is in group `{group}`, which the catalog does not declare"
            ),
        }
    }
}

/// Every reason a catalog was refused, one per line when displayed; its
/// [`iter`](Errors::iter) goes in catalog order.
pub type CatalogErrors = Errors<CatalogError>;
