//! Policies from the command line and tool annotations as JSON.
//!
//! `kandev-mcp tools` and `serve` take `--policy read-only,no-destructive`
//! (repeatable or comma-separated) and `--deny LIST` (tool or group names,
//! comma-separated). [`restrict`] adds them to a context's own policy: a
//! policy only ever removes tools, so adding never lifts a restriction the
//! context already carries. Every bad value is an error naming it, and
//! nothing is served.
//!
//! ```
//! use kandev_mcp::policy::{self, Flag};
//! use mcp_profiles::Vocabulary;
//!
//! let task = kandev_mcp::legacy::context_for_mode("task", false)?;
//! let flags = policy::parse_flags(["read-only"])?;
//! assert_eq!(flags, [Flag::ReadOnly]);
//! let deny = policy::parse_deny(["list_tasks_kandev,review"])?;
//! let restricted = policy::restrict(task, &flags, deny)?;
//! let profile = kandev_mcp::Kandev::registry().assemble(&restricted);
//! assert!(profile.contains("list_workspaces_kandev"));
//! assert!(!profile.contains("list_tasks_kandev")); // denied by name
//! assert!(!profile.contains("delete_task_kandev")); // not read-only
//!
//! let err = policy::parse_flags(["read-only,readonly"]).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "unknown policy `readonly`; expected one of: read-only, no-destructive"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use mcp_profiles::{Clipped, DenyList, Policy, PolicyError, ProfileContext, Vocabulary};
use rmcp::model::ToolAnnotations;
use serde_json::{Value, json};

use crate::server::Kandev;

/// A `--policy` value: which restriction of the context's
/// [`Policy`] to turn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    /// `read-only`: only tools whose `readOnlyHint` is true.
    ReadOnly,
    /// `no-destructive`: no tool that may be destructive.
    NoDestructive,
}

impl Flag {
    /// Every flag, in the order errors list them.
    pub const ALL: [Flag; 2] = [Flag::ReadOnly, Flag::NoDestructive];

    /// The flag's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Flag::ReadOnly => "read-only",
            Flag::NoDestructive => "no-destructive",
        }
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Flag {
    type Err = FlagError;

    fn from_str(given: &str) -> Result<Self, FlagError> {
        Flag::ALL
            .into_iter()
            .find(|flag| flag.name() == given)
            .ok_or_else(|| FlagError {
                given: given.to_owned(),
            })
    }
}

/// A `--policy` value that names no [`Flag`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagError {
    given: String,
}

impl fmt::Display for FlagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected: Vec<&str> = Flag::ALL.iter().map(|flag| flag.name()).collect();
        write!(
            f,
            "unknown policy `{}`; expected one of: {}",
            Clipped(&self.given),
            expected.join(", ")
        )
    }
}

impl std::error::Error for FlagError {}

/// The names in `values`, each of which may hold several separated by
/// commas, trimmed. Empty names are kept, so that they are refused.
fn split<I>(values: I) -> Vec<String>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    values
        .into_iter()
        .flat_map(|value| {
            value
                .as_ref()
                .split(',')
                .map(|name| name.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The flags `values` name (`["read-only", "no-destructive"]` or
/// `["read-only,no-destructive"]`), each once, in the order given.
pub fn parse_flags<I>(values: I) -> Result<Vec<Flag>, FlagError>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let mut flags = Vec::new();
    for name in split(values) {
        let flag = name.parse::<Flag>()?;
        if !flags.contains(&flag) {
            flags.push(flag);
        }
    }
    Ok(flags)
}

/// The deny list `values` name: tool and group names, comma-separated
/// within a value. An unknown name is an error naming it, with the closest
/// declared name; so is a name given twice.
pub fn parse_deny<I>(values: I) -> Result<DenyList<Kandev>, PolicyError>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    DenyList::new(split(values))
}

/// `context` with `flags` turned on and `deny` added to its own deny list:
/// never fewer restrictions than it had.
pub fn restrict(
    context: ProfileContext<Kandev>,
    flags: &[Flag],
    deny: DenyList<Kandev>,
) -> Result<ProfileContext<Kandev>, PolicyError> {
    let policy = context.policy();
    let policy = policy
        .with_read_only(policy.read_only() || flags.contains(&Flag::ReadOnly))
        .with_no_destructive(policy.no_destructive() || flags.contains(&Flag::NoDestructive))
        .with_deny(union(policy.deny(), deny)?);
    Ok(context.with_policy(policy))
}

/// Both lists' names, each once.
fn union(a: DenyList<Kandev>, b: DenyList<Kandev>) -> Result<DenyList<Kandev>, PolicyError> {
    if a.is_empty() || a == b {
        return Ok(b);
    }
    if b.is_empty() {
        return Ok(a);
    }
    let names: BTreeSet<&str> = a.names().iter().chain(b.names()).copied().collect();
    DenyList::new(names)
}

/// Every compiled tool's annotations, by name, from the registry's routes
/// (built once). A name two groups share has one definition.
fn all_annotations() -> &'static BTreeMap<String, Option<ToolAnnotations>> {
    static ANNOTATIONS: OnceLock<BTreeMap<String, Option<ToolAnnotations>>> = OnceLock::new();
    ANNOTATIONS.get_or_init(|| {
        Kandev::registry()
            .groups()
            .iter()
            .flat_map(|group| group.routes())
            .map(|route| (route.attr.name.to_string(), route.attr.annotations))
            .collect()
    })
}

/// The annotations of the compiled tool `tool`, if it has any.
pub fn annotations(tool: &str) -> Option<&'static ToolAnnotations> {
    all_annotations().get(tool).and_then(Option::as_ref)
}

/// Every compiled tool's name, sorted, each once.
pub fn tool_names() -> impl Iterator<Item = &'static str> {
    all_annotations().keys().map(String::as_str)
}

/// The policy with every field written out, unlike its own JSON form
/// (which leaves out what does not restrict): how the control API and the
/// admin page show it.
pub fn policy_json(policy: Policy<Kandev>) -> Value {
    json!({
        "read_only": policy.read_only(),
        "no_destructive": policy.no_destructive(),
        "deny": policy.deny(),
    })
}
