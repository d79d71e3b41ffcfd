//! The `before` and `after` states of the store's own kinds of record, and
//! the tools a change gives and takes away: one definition for every store
//! (and for an application recording its own changes alike).
//!
//! | kind | `principal` | `before` | `after` | `added`, `removed` |
//! |---|---|---|---|---|
//! | `profile-put` | the agent | `{"context": CONTEXT, "version": N}`, `null` for a new agent | `{"context": CONTEXT, "version": N + 1}` | the compiled tools the two contexts enable (under their own policies) |
//! | `agent-deleted` | the agent | `{"context": CONTEXT, "version": N, "tokens": COUNT}` | `null` | `removed`: its compiled tools |
//! | `catalog-put` | the agent | `{"catalog": SUMMARY or null, "version": N}` | `{"catalog": SUMMARY, "version": N + 1}` | the catalogs' tools, whether or not the agent's profile enables them |
//! | `token-granted` | the agent | `null`, or `{"token": FINGERPRINT, "principal": OTHER}` when the token named another agent | `{"token": FINGERPRINT, "principal": PRINCIPAL}` | none |
//! | `token-revoked` | the agent it named | `{"token": FINGERPRINT, "principal": PRINCIPAL}` | `null` | none |
//! | `kill-switch` | `null` | `{"deny": [NAMES], "version": N}` (`[]` and 0 before the first put) | `{"deny": [NAMES], "version": N + 1}` | the compiled tools the lists deny (named, or of a named group; a tool another enabled group also grants stays with that agent) |
//!
//! A catalog `SUMMARY` is `{"generation": G, "revision": R, "tools": COUNT}`;
//! a `FINGERPRINT` is [`fingerprint`]'s. A store without versions (an
//! application's own) leaves `"version"` out.

use std::collections::BTreeSet;

use mcp_profiles::{ProfileContext, Vocabulary};

use super::{Attribution, AuditEntry, AuditKind};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// How many hex digits of a token's SHA-256 a [`fingerprint`] keeps.
pub const FINGERPRINT_HEX_DIGITS: usize = 12;

/// All a record keeps of a token: `sha256:` and the first 12 hex digits of
/// its SHA-256 digest, enough to tell tokens apart in a trail, too little
/// to check a guess of a strong token against.
///
/// ```
/// assert_eq!(mcp_profiles_serve::audit::fingerprint("abc"), "sha256:ba7816bf8f01");
/// ```
pub fn fingerprint(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{}", &hex[..FINGERPRINT_HEX_DIGITS])
}

/// A profile's state: `{"context": CONTEXT, "version": N}`.
pub fn profile<S: Vocabulary>(context: &ProfileContext<S>, version: Option<u64>) -> Value {
    versioned(json!({ "context": context }), version)
}

/// The record of `principal`'s profile moving from `before` (context and
/// version; `None` for a new agent) to `after`: a `profile-put` with both
/// states and the compiled tools the move gives and takes away. For a
/// store's own writes and an application recording its own moves alike.
pub fn profile_put<S: Vocabulary>(
    by: &Attribution,
    principal: &str,
    before: Option<(&ProfileContext<S>, u64)>,
    after: (&ProfileContext<S>, u64),
) -> AuditEntry {
    let (added, removed) = changed(
        &before.map_or_else(Vec::new, |(context, _)| compiled_tools(context)),
        &compiled_tools(after.0),
    );
    AuditEntry::new(by, AuditKind::ProfilePut, Some(principal))
        .with_before(before.map_or(Value::Null, |(context, version)| {
            profile(context, Some(version))
        }))
        .with_after(profile(after.0, Some(after.1)))
        .with_tools(added, removed)
}

/// A deleted agent's state: its profile's, with the number of tokens that
/// named it.
pub fn deleted<S: Vocabulary>(context: &ProfileContext<S>, version: u64, tokens: usize) -> Value {
    let mut state = profile(context, Some(version));
    state["tokens"] = json!(tokens);
    state
}

/// A catalog's state: `{"catalog": SUMMARY or null, "version": N}`.
pub fn catalog(summary: Option<&CatalogSummary>, version: Option<u64>) -> Value {
    versioned(
        json!({ "catalog": summary.map(CatalogSummary::to_json) }),
        version,
    )
}

/// A token's state: its fingerprint and the principal it names.
pub fn token(token: &str, principal: &str) -> Value {
    json!({ "token": fingerprint(token), "principal": principal })
}

/// The kill switch's state: `{"deny": [NAMES], "version": N}`.
pub fn kill_switch<N: AsRef<str>>(names: &[N], version: Option<u64>) -> Value {
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    versioned(json!({ "deny": names }), version)
}

fn versioned(mut state: Value, version: Option<u64>) -> Value {
    if let (Some(version), Value::Object(fields)) = (version, &mut state) {
        fields.insert("version".into(), json!(version));
    }
    state
}

/// What a record says of a runtime catalog: its generation, revision and
/// tool names (in the record, their count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogSummary {
    /// Its generation.
    pub generation: String,
    /// Its revision.
    pub revision: u64,
    /// Its tools' names, sorted.
    pub tools: Vec<String>,
}

impl CatalogSummary {
    /// The summary of `catalog`.
    #[cfg(feature = "runtime-tools")]
    pub fn of<S: Vocabulary>(catalog: &mcp_profiles::Catalog<S>) -> Self {
        let mut tools: Vec<String> = catalog.tool_names().map(str::to_owned).collect();
        tools.sort_unstable();
        CatalogSummary {
            generation: catalog.generation().to_owned(),
            revision: catalog.revision(),
            tools,
        }
    }

    /// `{"generation": G, "revision": R, "tools": COUNT}`.
    pub fn to_json(&self) -> Value {
        let mut fields = Map::new();
        fields.insert("generation".into(), json!(self.generation));
        fields.insert("revision".into(), json!(self.revision));
        fields.insert("tools".into(), json!(self.tools.len()));
        Value::Object(fields)
    }
}

/// The compiled tools `context` enables, under its own policy (not the
/// kill switch), sorted.
pub fn compiled_tools<S: Vocabulary>(context: &ProfileContext<S>) -> Vec<String> {
    S::registry()
        .assemble(context)
        .tool_names()
        .iter()
        .map(|&name| name.to_owned())
        .collect()
}

/// The compiled tools a kill switch (or any deny list) of `names` denies:
/// each named tool, and every tool of each named group; sorted. Names the
/// registry does not declare deny nothing.
pub fn denied_tools<S: Vocabulary, N: AsRef<str>>(names: &[N]) -> Vec<String> {
    let names: BTreeSet<&str> = names.iter().map(AsRef::as_ref).collect();
    let mut denied = BTreeSet::new();
    for group in S::registry().groups() {
        let whole = names.contains(group.name());
        for &tool in group.tools() {
            if whole || names.contains(tool) {
                denied.insert(tool.to_owned());
            }
        }
    }
    denied.into_iter().collect()
}

/// The names in `after` and not in `before` (added), and the other way
/// round (removed), each sorted.
pub fn changed(before: &[String], after: &[String]) -> (Vec<String>, Vec<String>) {
    let before: BTreeSet<&String> = before.iter().collect();
    let after: BTreeSet<&String> = after.iter().collect();
    let added = after
        .difference(&before)
        .map(|&name| name.clone())
        .collect();
    let removed = before
        .difference(&after)
        .map(|&name| name.clone())
        .collect();
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_set_differences() {
        let names = |list: &[&str]| list.iter().map(|&n| n.to_owned()).collect::<Vec<_>>();
        let (added, removed) = changed(&names(&["a", "b"]), &names(&["b", "c", "d"]));
        assert_eq!((added, removed), (names(&["c", "d"]), names(&["a"])));
    }

    #[test]
    fn fingerprints_never_hold_the_token() {
        let token = "s3cret-token-value";
        let fingerprint = fingerprint(token);
        assert!(fingerprint.starts_with("sha256:"));
        assert_eq!(fingerprint.len(), "sha256:".len() + FINGERPRINT_HEX_DIGITS);
        assert!(!fingerprint.contains(token));
        let state = super::token(token, "alice");
        assert!(!state.to_string().contains(token), "{state}");
    }

    #[test]
    fn states_without_versions_leave_them_out() {
        assert_eq!(kill_switch(&["review"], None), json!({"deny": ["review"]}));
        assert_eq!(
            kill_switch::<&str>(&[], Some(0)),
            json!({"deny": [], "version": 0})
        );
        let summary = CatalogSummary {
            generation: "g".into(),
            revision: 2,
            tools: vec!["a".into(), "b".into()],
        };
        assert_eq!(
            catalog(Some(&summary), Some(4)),
            json!({"catalog": {"generation": "g", "revision": 2, "tools": 2}, "version": 4})
        );
    }
}
