//! Profiles as the admin forms show, read and compare them, for any
//! vocabulary.

use std::collections::BTreeSet;

use mcp_profiles::{DenyList, ProfileContext, Vocabulary};

use super::{Form, Problem};
use crate::audit::states::denied_tools;
use crate::control::ContextForm;

/// The form's `profile` field: a context in the form `F` (as the control
/// API takes it: the vocabulary's own [`ProfileContext`], or the
/// application's [`ContextForm`]); 400 saying what is wrong with it.
pub fn profile_field<S: Vocabulary, F: ContextForm<S>>(
    form: &Form,
) -> Result<ProfileContext<S>, Problem> {
    serde_json::from_str::<F>(form.field("profile")?)
        .map(F::into_context)
        .map_err(|error| Problem::bad(format!("the profile: {error}")))
}

/// A deny list from names separated by whitespace or commas, each a tool or
/// tool group of the vocabulary's; 400 naming an unknown or repeated one.
pub fn deny_list<S: Vocabulary>(text: &str) -> Result<DenyList<S>, Problem> {
    let names: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|name| !name.is_empty())
        .collect();
    serde_json::from_value(serde_json::json!(names))
        .map_err(|error| Problem::bad(format!("the deny list: {error}")))
}

/// The compiled tools `context` serves with `killed` denied, sorted.
pub fn served<S: Vocabulary, N: AsRef<str>>(
    context: &ProfileContext<S>,
    killed: &[N],
) -> Vec<String> {
    let denied: BTreeSet<String> = denied_tools::<S, N>(killed).into_iter().collect();
    S::registry()
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

/// The context's policy as one line of JSON, every field written out
/// (unlike its own JSON form, which leaves out what does not restrict).
pub fn policy_text<S: Vocabulary>(context: &ProfileContext<S>) -> String {
    let policy = context.policy();
    let written = serde_json::json!({
        "read_only": policy.read_only(),
        "no_destructive": policy.no_destructive(),
        "deny": policy.deny(),
    });
    serde_json::to_string(&written).unwrap_or_default()
}

/// A context as the profile form shows it.
pub fn pretty<S: Vocabulary>(context: &ProfileContext<S>) -> String {
    serde_json::to_string_pretty(context).unwrap_or_default()
}

/// A context as a hidden field carries it (and compares it).
pub fn compact<S: Vocabulary>(context: &ProfileContext<S>) -> String {
    serde_json::to_string(context).unwrap_or_default()
}
