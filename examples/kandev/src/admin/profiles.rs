//! Kandev's profiles as the admin forms show, read and compare them.

use std::collections::BTreeSet;

use mcp_profiles::{DenyList, ProfileContext, Vocabulary};
use mcp_profiles_serve::audit::states::denied_tools;

use super::{Form, Problem};
use crate::server::Kandev;

/// The form's `profile` field: a context as the control API takes it
/// (ours, or with Kandev's coordinator binding or managed policy); 400
/// saying what is wrong with it.
pub fn profile_field(form: &Form) -> Result<ProfileContext<Kandev>, Problem> {
    crate::tool_policies::context_from_json(form.field("profile")?)
        .map_err(|error| Problem::bad(format!("the profile: {error}")))
}

/// A deny list from names separated by whitespace or commas, each a tool or
/// tool group of Kandev's; 400 naming an unknown or repeated one.
pub fn deny_list(text: &str) -> Result<DenyList<Kandev>, Problem> {
    let names: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|name| !name.is_empty())
        .collect();
    serde_json::from_value(serde_json::json!(names))
        .map_err(|error| Problem::bad(format!("the deny list: {error}")))
}

/// The compiled tools `context` serves with `killed` denied, sorted.
pub fn served<N: AsRef<str>>(context: &ProfileContext<Kandev>, killed: &[N]) -> Vec<String> {
    let denied: BTreeSet<String> = denied_tools::<Kandev, N>(killed).into_iter().collect();
    Kandev::registry()
        .assemble(context)
        .tool_names()
        .iter()
        .filter(|&&tool| !denied.contains(tool))
        .map(|&tool| tool.to_owned())
        .collect()
}

/// Names as a line, or `off` for none.
pub fn names_or_off(names: &[&str]) -> String {
    if names.is_empty() {
        "off".to_owned()
    } else {
        names.join(" ")
    }
}

/// The context's policy as one line of JSON, every field written out.
pub fn policy_text(context: &ProfileContext<Kandev>) -> String {
    serde_json::to_string(&crate::policy::policy_json(context.policy())).unwrap_or_default()
}

/// A context as the profile form shows it.
pub fn pretty(context: &ProfileContext<Kandev>) -> String {
    serde_json::to_string_pretty(context).unwrap_or_default()
}

/// A context as a hidden field carries it (and compares it).
pub fn compact(context: &ProfileContext<Kandev>) -> String {
    serde_json::to_string(context).unwrap_or_default()
}
