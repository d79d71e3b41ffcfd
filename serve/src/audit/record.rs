//! The record, the entry a store turns into one, its kind, and who asked.

use std::fmt;

use rmcp::schemars::{self, JsonSchema};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The longest [`Attribution::actor`], in bytes.
pub const MAX_ACTOR_BYTES: usize = 256;

/// The longest [`Attribution::request_id`], in bytes.
pub const MAX_REQUEST_ID_BYTES: usize = 128;

/// The longest application [`AuditKind`], in bytes.
pub const MAX_KIND_BYTES: usize = 64;

/// Who made a change, and in which request: what every
/// [`AgentStore`](crate::AgentStore) write takes, and what its
/// [`AuditRecord`] says.
///
/// ```
/// use mcp_profiles_serve::audit::Attribution;
///
/// let by = Attribution::new("control", "req-7f3a")?;
/// assert_eq!((by.actor(), by.request_id()), ("control", "req-7f3a"));
/// // A request id must be printable ASCII without spaces, as an HTTP
/// // header carries it.
/// let bad = Attribution::new("control", "req 7f3a").unwrap_err();
/// assert_eq!(
///     bad.to_string(),
///     "request id `req 7f3a`: character 4 is not visible ASCII (0x21-0x7E)"
/// );
/// # Ok::<(), mcp_profiles_serve::audit::AuditError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribution {
    actor: String,
    request_id: String,
}

impl Attribution {
    /// `actor` (a name, never a secret: a control token's name, an OAuth
    /// subject; 1 to 256 bytes, no control characters) acting in request
    /// `request_id` (1 to 128 bytes of visible ASCII, 0x21-0x7E).
    pub fn new(
        actor: impl Into<String>,
        request_id: impl Into<String>,
    ) -> Result<Self, AuditError> {
        let (actor, request_id) = (actor.into(), request_id.into());
        check_actor(&actor)?;
        check_request_id(&request_id)?;
        Ok(Attribution { actor, request_id })
    }

    /// Who asked.
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// The request's id.
    pub fn request_id(&self) -> &str {
        &self.request_id
    }
}

/// What a record says changed.
///
/// Its JSON form is a string: the kebab-case name of a store's own kinds,
/// or an application's name as given.
///
/// ```
/// use mcp_profiles_serve::audit::AuditKind;
///
/// assert_eq!(AuditKind::ProfilePut.as_str(), "profile-put");
/// let flip = AuditKind::application("task-autopilot")?;
/// assert_eq!(serde_json::to_string(&flip).unwrap(), r#""task-autopilot""#);
/// assert_eq!(serde_json::from_str::<AuditKind>(r#""kill-switch""#).unwrap(), AuditKind::KillSwitch);
/// // An application's kind may not pass for a store's.
/// assert!(AuditKind::application("profile-put").is_err());
/// # Ok::<(), mcp_profiles_serve::audit::AuditError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AuditKind {
    /// `profile-put`: an agent was created or its profile replaced.
    ProfilePut,
    /// `agent-deleted`: an agent was removed, with every token naming it.
    AgentDeleted,
    /// `catalog-put`: an agent's runtime catalog was put.
    CatalogPut,
    /// `token-granted`: a token was granted to a principal (or moved to it
    /// from another).
    TokenGranted,
    /// `token-revoked`: a token was revoked.
    TokenRevoked,
    /// `kill-switch`: the operator's kill switch was put.
    KillSwitch,
    /// `replication-unconfirmed`: the change recorded just before it, in
    /// the same request (same `request_id`), was made and is in force, but
    /// the store's replicas had not confirmed it when it was answered, so a
    /// failover could undo it (and this record with it). `after` says how
    /// many confirmed: `{"confirmed": N, "required": M}`. See
    /// [`Replication`](crate::store::Replication).
    ReplicationUnconfirmed,
    /// An application's own kind (see [`application`](Self::application)).
    Application(String),
}

impl AuditKind {
    const STORE: [(AuditKind, &'static str); 7] = [
        (AuditKind::ProfilePut, "profile-put"),
        (AuditKind::AgentDeleted, "agent-deleted"),
        (AuditKind::CatalogPut, "catalog-put"),
        (AuditKind::TokenGranted, "token-granted"),
        (AuditKind::TokenRevoked, "token-revoked"),
        (AuditKind::KillSwitch, "kill-switch"),
        (AuditKind::ReplicationUnconfirmed, "replication-unconfirmed"),
    ];

    /// An application's kind: 1 to 64 characters of `a-z`, `0-9` and `-`,
    /// starting with a letter, and none of the store's own names.
    pub fn application(name: &str) -> Result<Self, AuditError> {
        if Self::STORE.iter().any(|(_, known)| *known == name) {
            return Err(AuditError::Kind(format!(
                "`{name}` is a store's own kind; name an application's kind otherwise"
            )));
        }
        let valid = (1..=MAX_KIND_BYTES).contains(&name.len())
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid {
            return Err(AuditError::Kind(format!(
                "`{}` is not 1 to {MAX_KIND_BYTES} characters of a-z 0-9 - starting with a letter",
                shown(name)
            )));
        }
        Ok(AuditKind::Application(name.to_owned()))
    }

    /// The kind by its JSON name.
    pub fn parse(name: &str) -> Result<Self, AuditError> {
        match Self::STORE.iter().find(|(_, known)| *known == name) {
            Some((kind, _)) => Ok(kind.clone()),
            None => Self::application(name),
        }
    }

    /// Its JSON name.
    pub fn as_str(&self) -> &str {
        match self {
            AuditKind::Application(name) => name,
            store => Self::STORE
                .iter()
                .find(|(kind, _)| kind == store)
                .map_or("", |(_, name)| name),
        }
    }
}

impl fmt::Display for AuditKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for AuditKind {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A lower-case name: one of the store's kinds, or an application's.
impl JsonSchema for AuditKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AuditKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "What changed: `profile-put`, `agent-deleted`, `catalog-put`, `token-granted`, `token-revoked`, `kill-switch`, `replication-unconfirmed` (the change before it in the same request was made but its replicas had not confirmed it), or an application's own lower-case kind.",
            "pattern": "^[a-z][a-z0-9-]*$",
            "maxLength": MAX_KIND_BYTES,
        })
    }
}

impl<'de> Deserialize<'de> for AuditKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        AuditKind::parse(&name).map_err(D::Error::custom)
    }
}

/// A change to record, as a store (or an application's own log) appends
/// it: a record without its `seq` and `at`, which the log gives it.
///
/// ```
/// use mcp_profiles_serve::audit::{Attribution, AuditEntry, AuditKind, MemoryAuditLog};
/// use serde_json::json;
///
/// let by = Attribution::new("control", "req-1")?;
/// let entry = AuditEntry::new(&by, AuditKind::application("task-autopilot")?, Some("task-2"))
///     .with_before(json!({"autopilot": true}))
///     .with_after(json!({"autopilot": false}))
///     .with_tools(vec!["ask_user_question_kandev".into()], vec!["ask_parent_kandev".into()]);
/// let log = MemoryAuditLog::new(100);
/// let record = log.append(entry);
/// assert_eq!((record.seq, record.principal.as_deref()), (1, Some("task-2")));
/// # Ok::<(), mcp_profiles_serve::audit::AuditError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AuditEntry {
    actor: String,
    request_id: String,
    principal: Option<String>,
    kind: AuditKind,
    before: Value,
    after: Value,
    added: Vec<String>,
    removed: Vec<String>,
}

impl AuditEntry {
    /// A change of `principal` (`None`: of every agent, as the kill switch)
    /// of `kind`, made as `by` says; no state before or after, no tools.
    pub fn new(by: &Attribution, kind: AuditKind, principal: Option<&str>) -> Self {
        AuditEntry {
            actor: by.actor.clone(),
            request_id: by.request_id.clone(),
            principal: principal.map(str::to_owned),
            kind,
            before: Value::Null,
            after: Value::Null,
            added: Vec::new(),
            removed: Vec::new(),
        }
    }

    /// The state the change replaced.
    pub fn with_before(mut self, before: Value) -> Self {
        self.before = before;
        self
    }

    /// The state the change made.
    pub fn with_after(mut self, after: Value) -> Self {
        self.after = after;
        self
    }

    /// The tools it gave and took away (each sorted here).
    pub fn with_tools(mut self, mut added: Vec<String>, mut removed: Vec<String>) -> Self {
        added.sort_unstable();
        removed.sort_unstable();
        self.added = added;
        self.removed = removed;
        self
    }

    /// Its kind.
    pub fn kind(&self) -> &AuditKind {
        &self.kind
    }

    /// The record it is as number `seq` of its log, made at `at`
    /// (milliseconds since the Unix epoch).
    pub fn into_record(self, seq: u64, at: u64) -> AuditRecord {
        AuditRecord {
            seq,
            at,
            actor: self.actor,
            principal: self.principal,
            kind: self.kind,
            before: self.before,
            after: self.after,
            added: self.added,
            removed: self.removed,
            request_id: self.request_id,
        }
    }
}

/// One change of what an agent can reach: see the [module](super) for its
/// JSON form. Decoded strictly: an unknown or missing field is an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AuditRecord {
    /// Its number in its log: greater than the record's before (see the
    /// [module](super) for when numbers are skipped).
    pub seq: u64,
    /// When the change was made, in milliseconds since the Unix epoch.
    pub at: u64,
    /// Who made it (never a secret).
    pub actor: String,
    /// The agent it changed; `None` for a change of every agent's (the
    /// kill switch).
    pub principal: Option<String>,
    /// What changed.
    pub kind: AuditKind,
    /// The state before (`null`: none).
    pub before: Value,
    /// The state after (`null`: none).
    pub after: Value,
    /// Tools it gave, sorted.
    pub added: Vec<String>,
    /// Tools it took away, sorted.
    pub removed: Vec<String>,
    /// The request that made it.
    pub request_id: String,
}

/// A value an audit record refuses, named.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditError {
    /// An [`Attribution::actor`] that is empty, too long or holds a control
    /// character.
    Actor(String),
    /// An [`Attribution::request_id`] that is empty, too long or not
    /// visible ASCII.
    RequestId(String),
    /// An application kind that is malformed or a store's own.
    Kind(String),
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditError::Actor(why) => write!(f, "actor {why}"),
            AuditError::RequestId(why) => write!(f, "request id {why}"),
            AuditError::Kind(why) => write!(f, "audit kind {why}"),
        }
    }
}

impl std::error::Error for AuditError {}

fn check_actor(actor: &str) -> Result<(), AuditError> {
    if actor.is_empty() || actor.len() > MAX_ACTOR_BYTES {
        return Err(AuditError::Actor(format!(
            "`{}` is not 1 to {MAX_ACTOR_BYTES} bytes",
            shown(actor)
        )));
    }
    if let Some(position) = actor.chars().position(char::is_control) {
        return Err(AuditError::Actor(format!(
            "`{}`: character {} is a control character",
            shown(actor),
            position + 1
        )));
    }
    Ok(())
}

fn check_request_id(id: &str) -> Result<(), AuditError> {
    if id.is_empty() || id.len() > MAX_REQUEST_ID_BYTES {
        return Err(AuditError::RequestId(format!(
            "`{}` is not 1 to {MAX_REQUEST_ID_BYTES} bytes",
            shown(id)
        )));
    }
    if let Some(position) = id.chars().position(|c| !matches!(c, '\x21'..='\x7e')) {
        return Err(AuditError::RequestId(format!(
            "`{}`: character {} is not visible ASCII (0x21-0x7E)",
            shown(id),
            position + 1
        )));
    }
    Ok(())
}

/// `value` as an error shows it: escaped, cut at 64 characters.
pub(crate) fn shown(value: &str) -> String {
    let mut shown: String = value.chars().take(64).collect();
    let cut = shown.len() < value.len();
    shown = shown.escape_debug().to_string();
    if cut {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn attributions_are_checked_naming_the_value() {
        assert!(Attribution::new("alice@example.com", "0f3c-AB_9").is_ok());
        let empty = Attribution::new("", "r").unwrap_err();
        assert_eq!(empty.to_string(), "actor `` is not 1 to 256 bytes");
        let control = Attribution::new("al\nice", "r").unwrap_err();
        assert_eq!(
            control.to_string(),
            "actor `al\\nice`: character 3 is a control character"
        );
        let long = Attribution::new("a", "x".repeat(129)).unwrap_err();
        assert!(long.to_string().contains("is not 1 to 128 bytes"), "{long}");
        assert!(long.to_string().contains('…'), "{long}");
    }

    #[test]
    fn kinds_round_trip_and_applications_are_checked() {
        for (kind, name) in AuditKind::STORE {
            assert_eq!(kind.as_str(), name);
            assert_eq!(AuditKind::parse(name).unwrap(), kind);
        }
        assert_eq!(
            AuditKind::parse("task-title-owner").unwrap(),
            AuditKind::Application("task-title-owner".into())
        );
        for bad in [
            "",
            "Task",
            "1task",
            "task_owner",
            "task owner",
            &"x".repeat(65),
        ] {
            let error = AuditKind::application(bad).unwrap_err();
            assert!(error.to_string().starts_with("audit kind `"), "{error}");
        }
        let error = serde_json::from_str::<AuditKind>(r#""Profile-Put""#).unwrap_err();
        assert!(error.to_string().contains("Profile-Put"), "{error}");
    }

    #[test]
    fn records_decode_strictly() {
        let by = Attribution::new("control", "r-1").unwrap();
        let record = AuditEntry::new(&by, AuditKind::KillSwitch, None)
            .with_after(json!({"deny": ["x"], "version": 1}))
            .with_tools(Vec::new(), vec!["x".into()])
            .into_record(3, 1_000);
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(
            json,
            json!({
                "seq": 3, "at": 1000, "actor": "control", "principal": null,
                "kind": "kill-switch", "before": null,
                "after": {"deny": ["x"], "version": 1},
                "added": [], "removed": ["x"], "request_id": "r-1",
            })
        );
        assert_eq!(
            serde_json::from_value::<AuditRecord>(json.clone()).unwrap(),
            record
        );
        let mut extra = json.clone();
        extra["secret"] = json!("x");
        assert!(serde_json::from_value::<AuditRecord>(extra).is_err());
        let mut missing = json;
        missing.as_object_mut().unwrap().remove("request_id");
        assert!(serde_json::from_value::<AuditRecord>(missing).is_err());
    }
}
