//! The Redis layout and the Lua scripts that change it: each change is one
//! script, so Redis runs it atomically, and each publishes its change on
//! the feed in the same step, so feed order is change order.
//!
//! Under the prefix `P`:
//!
//! | key | type | holds |
//! |---|---|---|
//! | `P:agent:{principal}` | hash | `context` (profile JSON), `tools` (the compiled tools it enables, a JSON array), `catalog` (the runtime catalog's wire form, if any), `catalog_summary`, `catalog_tools` (what the audit trail says of it), `version` |
//! | `P:version:{principal}` | string | the principal's last version; kept after a delete, so versions never repeat |
//! | `P:token:{sha256}` | string | the principal a token's digest names |
//! | `P:tokens:{principal}` | set | the digests naming the principal |
//! | `P:kill` | hash | the operator's kill switch: `names` (a JSON array of tool and group names), `tools` (the compiled tools they deny), `version` |
//! | `P:audit` | stream | the audit trail: one entry per change, id `{seq}-0`, fields `at`, `actor`, `request_id`, `kind`, `principal`, `before`, `after` (JSON; left out when none), `added`, `removed` (JSON arrays); capped with `XADD ... MAXLEN ~ N` |
//! | `P:audit:seq` | string | the last record's `seq` |
//! | `P:changes` | channel | one JSON message per change |
//!
//! The audit trail's page reads use exclusive stream ranges (`XRANGE key
//! (5-0 +`): Redis 6.2 or newer.

use std::sync::LazyLock;

use redis::Script;
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The key names under one prefix.
#[derive(Clone, Debug)]
pub(super) struct Keys {
    prefix: String,
}

impl Keys {
    pub fn new(prefix: &str) -> Self {
        Keys {
            prefix: prefix.to_owned(),
        }
    }

    pub fn agent(&self, principal: &str) -> String {
        format!("{}:agent:{principal}", self.prefix)
    }

    pub fn version(&self, principal: &str) -> String {
        format!("{}:version:{principal}", self.prefix)
    }

    pub fn token(&self, digest: &str) -> String {
        format!("{}:token:{digest}", self.prefix)
    }

    pub fn tokens_prefix(&self) -> String {
        format!("{}:tokens:", self.prefix)
    }

    pub fn tokens(&self, principal: &str) -> String {
        format!("{}{principal}", self.tokens_prefix())
    }

    pub fn token_prefix(&self) -> String {
        format!("{}:token:", self.prefix)
    }

    pub fn kill(&self) -> String {
        format!("{}:kill", self.prefix)
    }

    pub fn audit(&self) -> String {
        format!("{}:audit", self.prefix)
    }

    pub fn audit_seq(&self) -> String {
        format!("{}:audit:seq", self.prefix)
    }

    pub fn channel(&self) -> String {
        format!("{}:changes", self.prefix)
    }
}

/// A token's SHA-256 digest in lower-case hex: all the store ever keeps of it.
pub(super) fn digest(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// One message of the change feed.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(super) enum Change {
    /// A principal's agent was created or its profile replaced.
    Put {
        principal: String,
        version: u64,
        context: String,
    },
    /// A principal's runtime catalog was put. The catalog itself is not in
    /// the message (it may be large): an instance serving the principal
    /// reads the agent whole.
    Catalog { principal: String, version: u64 },
    /// A principal's agent and tokens were removed.
    Removed { principal: String, version: u64 },
    /// A token no longer names the principal it named.
    Revoked { digest: String },
    /// The operator's kill switch was put.
    Kill { version: u64, names: Vec<String> },
}

/// What every script that changes something starts with: the audit
/// trail's helpers. `audit` appends the change's record and is the first
/// write of each script (Redis does not undo a script's writes when a later
/// command fails), so a record that cannot be appended (a full memory, a
/// key of the wrong type) refuses the change before it is made.
///
/// Every such script takes KEYS\[1\] = the audit stream, KEYS\[2\] = its last
/// number, ARGV\[1\] = the stream's cap, ARGV\[2\] = the actor, ARGV\[3\] =
/// the request id; its own keys and arguments follow.
const AUDIT: &str = r#"
local function names(json)
  if not json or json == '' then return {} end
  return cjson.decode(json)
end
local function list(items)
  local quoted = {}
  for i, name in ipairs(items) do quoted[i] = cjson.encode(name) end
  return '[' .. table.concat(quoted, ',') .. ']'
end
local function changed(before, after)
  local old, new = {}, {}
  before, after = names(before), names(after)
  for _, name in ipairs(before) do old[name] = true end
  for _, name in ipairs(after) do new[name] = true end
  local added, removed = {}, {}
  for _, name in ipairs(after) do if not old[name] then table.insert(added, name) end end
  for _, name in ipairs(before) do if not new[name] then table.insert(removed, name) end end
  return list(added), list(removed)
end
local function audit(kind, principal, before, after, added, removed)
  local seq = tonumber(redis.call('GET', KEYS[2]) or '0') + 1
  local now = redis.call('TIME')
  local at = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local fields = {'at', string.format('%.0f', at), 'actor', ARGV[2], 'request_id', ARGV[3],
    'kind', kind, 'added', added, 'removed', removed}
  if principal then table.insert(fields, 'principal'); table.insert(fields, principal) end
  if before then table.insert(fields, 'before'); table.insert(fields, before) end
  if after then table.insert(fields, 'after'); table.insert(fields, after) end
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], string.format('%.0f', seq) .. '-0', unpack(fields))
  redis.call('SET', KEYS[2], string.format('%.0f', seq))
end
local function token(fingerprint, principal)
  return '{"token":' .. cjson.encode(fingerprint) .. ',"principal":' .. cjson.encode(principal) .. '}'
end
"#;

/// A script that records its change: [`AUDIT`] and then `body`.
fn audited(body: &str) -> Script {
    Script::new(&format!("{AUDIT}{body}"))
}

/// KEYS: (audit), agent, version. ARGV: (audit), context, channel,
/// principal, expected version (`""`: any; `0`: no agent), the context's
/// compiled tools (a JSON array). Returns `{version, previous context or
/// ""}`, or `{-1, current version}` when the expected one is not current.
pub(super) static PUT: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
local current = tonumber(redis.call('HGET', KEYS[3], 'version') or '0')
if ARGV[7] ~= '' and current ~= tonumber(ARGV[7]) then return {-1, tostring(current)} end
local previous = redis.call('HGET', KEYS[3], 'context')
local version = tonumber(redis.call('GET', KEYS[4]) or '0') + 1
local before = nil
if previous then before = '{"context":' .. previous .. ',"version":' .. current .. '}' end
local added, removed = changed(redis.call('HGET', KEYS[3], 'tools'), ARGV[8])
audit('profile-put', ARGV[6], before,
  '{"context":' .. ARGV[4] .. ',"version":' .. version .. '}', added, removed)
redis.call('SET', KEYS[4], version)
redis.call('HSET', KEYS[3], 'context', ARGV[4], 'version', version, 'tools', ARGV[8])
redis.call('PUBLISH', ARGV[5], cjson.encode({kind = 'put', principal = ARGV[6], version = version, context = ARGV[4]}))
return {version, previous or ''}
"#,
    )
});

/// KEYS: (audit), agent, version. ARGV: (audit), catalog, channel,
/// principal, expected version (`""`: any), the catalog's summary (JSON),
/// its tool names (a JSON array). Returns `{version, previous catalog or
/// "", context}`, `{-1, current version, ""}` when the expected one is not
/// current, or `{-2, "", ""}` when there is no agent.
pub(super) static PUT_CATALOG: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
if redis.call('EXISTS', KEYS[3]) == 0 then return {-2, '', ''} end
local current = tonumber(redis.call('HGET', KEYS[3], 'version') or '0')
if ARGV[7] ~= '' and current ~= tonumber(ARGV[7]) then return {-1, tostring(current), ''} end
local previous = redis.call('HGET', KEYS[3], 'catalog')
local version = tonumber(redis.call('GET', KEYS[4]) or '0') + 1
local summary = redis.call('HGET', KEYS[3], 'catalog_summary') or 'null'
local added, removed = changed(redis.call('HGET', KEYS[3], 'catalog_tools'), ARGV[9])
audit('catalog-put', ARGV[6], '{"catalog":' .. summary .. ',"version":' .. current .. '}',
  '{"catalog":' .. ARGV[8] .. ',"version":' .. version .. '}', added, removed)
redis.call('SET', KEYS[4], version)
redis.call('HSET', KEYS[3], 'catalog', ARGV[4], 'version', version,
  'catalog_summary', ARGV[8], 'catalog_tools', ARGV[9])
redis.call('PUBLISH', ARGV[5], cjson.encode({kind = 'catalog', principal = ARGV[6], version = version}))
return {version, previous or '', redis.call('HGET', KEYS[3], 'context')}
"#,
    )
});

/// KEYS: (audit), agent, version, tokens. ARGV: (audit), channel,
/// principal, token prefix. Returns the removal's version, or 0 if there
/// was no agent.
pub(super) static DELETE: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
local current = tonumber(redis.call('HGET', KEYS[3], 'version') or '0')
local version = tonumber(redis.call('GET', KEYS[4]) or '0') + 1
local context = redis.call('HGET', KEYS[3], 'context') or 'null'
local tokens = redis.call('SCARD', KEYS[5])
local added, removed = changed(redis.call('HGET', KEYS[3], 'tools'), '[]')
audit('agent-deleted', ARGV[5],
  '{"context":' .. context .. ',"version":' .. current .. ',"tokens":' .. tokens .. '}',
  nil, added, removed)
for _, digest in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  redis.call('DEL', ARGV[6] .. digest)
end
redis.call('DEL', KEYS[3], KEYS[5])
redis.call('SET', KEYS[4], version)
redis.call('PUBLISH', ARGV[4], cjson.encode({kind = 'removed', principal = ARGV[5], version = version}))
return version
"#,
    )
});

/// KEYS: (audit), kill. ARGV: (audit), names (a JSON array, checked by the
/// caller), channel, expected version (`""`: any; `0`: never put), the
/// compiled tools the names deny (a JSON array). Returns the new version,
/// or `-1 - current` when the expected one is not current. The message is
/// assembled, not `cjson.encode`d: cjson writes an empty array as `{}`.
pub(super) static PUT_KILL: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
local current = tonumber(redis.call('HGET', KEYS[3], 'version') or '0')
if ARGV[6] ~= '' and current ~= tonumber(ARGV[6]) then return -1 - current end
local version = current + 1
local killed, spared = changed(redis.call('HGET', KEYS[3], 'tools'), ARGV[7])
audit('kill-switch', nil,
  '{"deny":' .. (redis.call('HGET', KEYS[3], 'names') or '[]') .. ',"version":' .. current .. '}',
  '{"deny":' .. ARGV[4] .. ',"version":' .. version .. '}', spared, killed)
redis.call('HSET', KEYS[3], 'version', version, 'names', ARGV[4], 'tools', ARGV[7])
redis.call('PUBLISH', ARGV[5], '{"kind":"kill","version":' .. version .. ',"names":' .. ARGV[4] .. '}')
return version
"#,
    )
});

/// KEYS: (audit), token, agent, tokens. ARGV: (audit), principal, digest,
/// channel, tokens prefix, the token's fingerprint. Returns -1 (no such
/// agent), 0 (already granted so) or 1.
pub(super) static GRANT: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
if redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
local old = redis.call('GET', KEYS[3])
if old == ARGV[4] then return 0 end
local before = nil
if old then before = token(ARGV[8], old) end
audit('token-granted', ARGV[4], before, token(ARGV[8], ARGV[4]), '[]', '[]')
redis.call('SET', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[5], ARGV[5])
if old then
  redis.call('SREM', ARGV[7] .. old, ARGV[5])
  redis.call('PUBLISH', ARGV[6], cjson.encode({kind = 'revoked', digest = ARGV[5]}))
end
return 1
"#,
    )
});

/// KEYS: (audit), token. ARGV: (audit), digest, channel, tokens prefix, the
/// token's fingerprint. Returns 1 if the token was granted, else 0.
pub(super) static REVOKE: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
local old = redis.call('GET', KEYS[3])
if not old then return 0 end
audit('token-revoked', old, token(ARGV[7], old), nil, '[]', '[]')
redis.call('DEL', KEYS[3])
redis.call('SREM', ARGV[6] .. old, ARGV[4])
redis.call('PUBLISH', ARGV[5], cjson.encode({kind = 'revoked', digest = ARGV[4]}))
return 1
"#,
    )
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha256_hex() {
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn feed_messages_decode() {
        let put: Change = serde_json::from_str(
            r#"{"kind":"put","principal":"alice","version":3,"context":"{}"}"#,
        )
        .unwrap();
        assert!(matches!(put, Change::Put { version: 3, .. }));
        let revoked: Change = serde_json::from_str(r#"{"kind":"revoked","digest":"ab"}"#).unwrap();
        assert!(matches!(revoked, Change::Revoked { .. }));
        let catalog: Change =
            serde_json::from_str(r#"{"kind":"catalog","principal":"alice","version":4}"#).unwrap();
        assert!(matches!(catalog, Change::Catalog { version: 4, .. }));
        let kill: Change =
            serde_json::from_str(r#"{"kind":"kill","version":2,"names":["review"]}"#).unwrap();
        assert!(matches!(kill, Change::Kill { version: 2, names } if names == ["review"]));
    }
}
