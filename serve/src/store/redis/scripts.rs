//! The Redis layout and the Lua scripts that change it: each change is one
//! script, so Redis runs it atomically, and each publishes its change on
//! the feed in the same step, so feed order is change order.
//!
//! Under the prefix `P`:
//!
//! | key | type | holds |
//! |---|---|---|
//! | `P:agent:{principal}` | hash | `context` (profile JSON), `catalog` (the runtime catalog's wire form, if any), `version` |
//! | `P:version:{principal}` | string | the principal's last version; kept after a delete, so versions never repeat |
//! | `P:token:{sha256}` | string | the principal a token's digest names |
//! | `P:tokens:{principal}` | set | the digests naming the principal |
//! | `P:kill` | hash | the operator's kill switch: `names` (a JSON array of tool and group names), `version` |
//! | `P:changes` | channel | one JSON message per change |

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

/// KEYS: agent, version. ARGV: context, channel, principal, expected
/// version (`""`: any; `0`: no agent). Returns `{version, previous context
/// or ""}`, or `{-1, current version}` when the expected one is not current.
pub(super) static PUT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if ARGV[4] ~= '' then
  local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
  if current ~= tonumber(ARGV[4]) then return {-1, tostring(current)} end
end
local previous = redis.call('HGET', KEYS[1], 'context')
local version = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'context', ARGV[1], 'version', version)
redis.call('PUBLISH', ARGV[2], cjson.encode({kind = 'put', principal = ARGV[3], version = version, context = ARGV[1]}))
return {version, previous or ''}
",
    )
});

/// KEYS: agent, version. ARGV: catalog, channel, principal, expected
/// version (`""`: any). Returns `{version, previous catalog or "", context}`,
/// `{-1, current version, ""}` when the expected one is not current, or
/// `{-2, "", ""}` when there is no agent.
pub(super) static PUT_CATALOG: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 0 then return {-2, '', ''} end
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if ARGV[4] ~= '' and current ~= tonumber(ARGV[4]) then return {-1, tostring(current), ''} end
local previous = redis.call('HGET', KEYS[1], 'catalog')
local version = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'catalog', ARGV[1], 'version', version)
redis.call('PUBLISH', ARGV[2], cjson.encode({kind = 'catalog', principal = ARGV[3], version = version}))
return {version, previous or '', redis.call('HGET', KEYS[1], 'context')}
",
    )
});

/// KEYS: agent, version, tokens. ARGV: channel, principal, token prefix.
/// Returns the removal's version, or 0 if there was no agent.
pub(super) static DELETE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for _, digest in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  redis.call('DEL', ARGV[3] .. digest)
end
redis.call('DEL', KEYS[1], KEYS[3])
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[1], cjson.encode({kind = 'removed', principal = ARGV[2], version = version}))
return version
",
    )
});

/// KEYS: kill. ARGV: names (a JSON array, checked by the caller), channel,
/// expected version (`""`: any; `0`: never put). Returns the new version,
/// or `-1 - current` when the expected one is not current. The message is
/// assembled, not `cjson.encode`d: cjson writes an empty array as `{}`.
pub(super) static PUT_KILL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if ARGV[3] ~= '' and current ~= tonumber(ARGV[3]) then return -1 - current end
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HSET', KEYS[1], 'names', ARGV[1])
redis.call('PUBLISH', ARGV[2], '{"kind":"kill","version":' .. version .. ',"names":' .. ARGV[1] .. '}')
return version
"#,
    )
});

/// KEYS: token, agent, tokens. ARGV: principal, digest, channel, tokens
/// prefix. Returns -1 (no such agent), 0 (already granted so) or 1.
pub(super) static GRANT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
local old = redis.call('GET', KEYS[1])
if old == ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
if old then
  redis.call('SREM', ARGV[4] .. old, ARGV[2])
  redis.call('PUBLISH', ARGV[3], cjson.encode({kind = 'revoked', digest = ARGV[2]}))
end
return 1
",
    )
});

/// KEYS: token. ARGV: digest, channel, tokens prefix. Returns 1 if the
/// token was granted, else 0.
pub(super) static REVOKE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[3] .. old, ARGV[1])
redis.call('PUBLISH', ARGV[2], cjson.encode({kind = 'revoked', digest = ARGV[1]}))
return 1
",
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
