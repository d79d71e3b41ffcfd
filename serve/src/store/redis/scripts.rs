//! The Redis layout and the Lua scripts that change it: each change is one
//! script, so Redis runs it atomically, and each publishes its change on
//! the feed in the same step, so feed order is change order.
//!
//! On one Redis, under the prefix `P`:
//!
//! | key | type | holds |
//! |---|---|---|
//! | `P:agent:{principal}` | hash | `context` (profile JSON), `tools` (the compiled tools it enables, a JSON array), `catalog` (the runtime catalog's wire form, if any), `catalog_summary`, `catalog_tools` (what the audit trail says of it), `version`, `created` (the version that created it) |
//! | `P:version:{principal}` | string | the principal's last version; kept after a delete, so versions never repeat |
//! | `P:token:{sha256}` | string | the principal a token's digest names |
//! | `P:tokens:{principal}` | set | the digests naming the principal |
//! | `P:kill` | hash | the operator's kill switch: `names` (a JSON array of tool and group names), `tools` (the compiled tools they deny), `version`; on a cluster each principal's shard holds a copy (`names`, `version`) |
//! | `P:audit` | stream | the audit trail: one entry per change, id `{seq}-0`, fields `at`, `actor`, `request_id`, `kind`, `principal`, `before`, `after` (JSON; left out when none), `added`, `removed` (JSON arrays); capped with `XADD ... MAXLEN ~ N` |
//! | `P:audit:seq` | string | the last record's `seq` |
//! | `P:decisions` | stream | the decision log (see `super::decisions`): one entry per call decision, id `{seq}-0`, fields `at`, `principal` (left out when none), `tool`, `revision`, `reason` (left out when allowed); capped with `XADD ... MAXLEN ~ N` |
//! | `P:decisions:seq` | string | the last decision's `seq` |
//! | `P:changes` | channel | one JSON message per change, and the probes and confirmations of `super::fleet` |
//! | `P:instances` | sorted set | the live instances' names, each scored with when it lapses (ms, Redis's clock) |
//!
//! On a Redis Cluster every key carries a shard's hash tag,
//! `P:{bN}:…` (see [`super::cluster`]): a principal's `agent`, `version`
//! and `tokens` live in its shard, a token's key in its digest's shard, the
//! kill switch in a shard of its own (and a copy in every principal's
//! shard, see [`COPY_KILL`]); each shard has its own `audit`
//! stream, `audit:seq` (its last record's `seq`, numbered by the shard
//! alone, see [`AUDIT`]), `decisions` and `decisions:seq` (the decisions
//! of its principals; those of no principal's in the kill switch's shard,
//! see [`DECISIONS`]) and `changes` channel (sharded pub/sub,
//! `SPUBLISH`) and `instances` set (the live instances following that
//! shard). A token's key names `{created}:{principal}`: the grant holds
//! only while the principal's agent is the one created at that version.
//!
//! The audit trail's page reads use exclusive stream ranges (`XRANGE key
//! (5-0 +`): Redis 6.2 or newer; a cluster's sharded pub/sub needs Redis 7.

use std::sync::LazyLock;

use redis::Script;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Where a change's keys live: nowhere in particular on one Redis; on a
/// cluster, one shard's hash slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shard(Option<u16>);

impl Shard {
    /// The one shard of one Redis.
    pub const ALONE: Shard = Shard(None);
}

/// The key names under one prefix, on one Redis or sharded for a cluster.
#[derive(Clone, Debug)]
pub(super) struct Keys {
    prefix: String,
    /// On a cluster, how many shards principals and tokens spread over;
    /// the kill switch's is one more.
    shards: Option<u16>,
}

impl Keys {
    /// The layout on one Redis.
    pub fn new(prefix: &str) -> Self {
        Keys {
            prefix: prefix.to_owned(),
            shards: None,
        }
    }

    /// The layout on a cluster, over `shards` shards.
    pub fn sharded(prefix: &str, shards: u16) -> Self {
        Keys {
            prefix: prefix.to_owned(),
            shards: Some(shards),
        }
    }

    /// Whether keys are sharded for a cluster.
    pub fn is_sharded(&self) -> bool {
        self.shards.is_some()
    }

    /// The shard of `principal`'s keys.
    pub fn principal(&self, principal: &str) -> Shard {
        // Asked at every request a gateway serves: one Redis hashes nothing.
        if !self.is_sharded() {
            return Shard::ALONE;
        }
        self.spread(&Sha256::digest(principal.as_bytes())[..2])
    }

    /// The shard of the key of the token whose digest is `digest`.
    pub fn token_shard(&self, digest: &str) -> Shard {
        let head = u16::from_str_radix(digest.get(..4).unwrap_or("0"), 16).unwrap_or(0);
        self.spread(&head.to_be_bytes())
    }

    /// The kill switch's shard.
    pub fn kill_shard(&self) -> Shard {
        Shard(self.shards)
    }

    /// Every shard, the kill switch's last: what the feed and the audit
    /// trail span.
    pub fn shards(&self) -> Vec<Shard> {
        match self.shards {
            None => vec![Shard::ALONE],
            Some(count) => (0..=count).map(|shard| Shard(Some(shard))).collect(),
        }
    }

    /// `shard`'s place among [`shards`](Self::shards).
    pub fn index(shard: Shard) -> usize {
        shard.0.map_or(0, usize::from)
    }

    fn spread(&self, bytes: &[u8]) -> Shard {
        Shard(
            self.shards
                .map(|count| u16::from_be_bytes([bytes[0], bytes[1]]) % count),
        )
    }

    /// `P` or, on a cluster, `P:{bN}`: what a key of `shard` starts with.
    fn of(&self, shard: Shard) -> String {
        match shard.0 {
            None => self.prefix.clone(),
            Some(index) => format!("{}:{{b{index}}}", self.prefix),
        }
    }

    pub fn agent(&self, principal: &str) -> String {
        format!("{}:agent:{principal}", self.of(self.principal(principal)))
    }

    pub fn version(&self, principal: &str) -> String {
        format!("{}:version:{principal}", self.of(self.principal(principal)))
    }

    pub fn token(&self, digest: &str) -> String {
        format!("{}:token:{digest}", self.of(self.token_shard(digest)))
    }

    /// What every principal's token set's key starts with (one Redis).
    pub fn tokens_prefix(&self) -> String {
        format!("{}:tokens:", self.prefix)
    }

    pub fn tokens(&self, principal: &str) -> String {
        format!("{}:tokens:{principal}", self.of(self.principal(principal)))
    }

    /// What every token's key starts with (one Redis).
    pub fn token_prefix(&self) -> String {
        format!("{}:token:", self.prefix)
    }

    /// The kill switch as `shard` holds it. Its own shard
    /// ([`kill_shard`](Self::kill_shard)) holds the one a put checks and
    /// records; on a cluster each principal's shard holds a copy (see
    /// [`kill_copies`](Self::kill_copies)).
    pub fn kill(&self, shard: Shard) -> String {
        format!("{}:kill", self.of(shard))
    }

    /// The shards holding a copy of the kill switch: on a cluster every
    /// principal's shard, so that what a principal's shard holds tells an
    /// instance all it must know to serve that principal; none on one
    /// Redis.
    pub fn kill_copies(&self) -> Vec<Shard> {
        let count = self.shards.unwrap_or(0);
        (0..count).map(|shard| Shard(Some(shard))).collect()
    }

    pub fn audit(&self, shard: Shard) -> String {
        format!("{}:audit", self.of(shard))
    }

    pub fn audit_seq(&self, shard: Shard) -> String {
        format!("{}:audit:seq", self.of(shard))
    }

    pub fn decisions(&self, shard: Shard) -> String {
        format!("{}:decisions", self.of(shard))
    }

    pub fn decisions_seq(&self, shard: Shard) -> String {
        format!("{}:decisions:seq", self.of(shard))
    }

    /// How a change in `shard` numbers its record (`ARGV[5]` of
    /// [`AUDIT`]): `""` on one Redis (the next number), the shard's index
    /// on a cluster.
    pub fn numbering(&self, shard: Shard) -> String {
        shard.0.map(|index| index.to_string()).unwrap_or_default()
    }

    /// The names of the live instances that follow `shard` (see `fleet`):
    /// on a cluster each shard keeps its own set, in its own slot, so a
    /// change and the wait for its confirmations touch only that slot.
    pub fn instances(&self, shard: Shard) -> String {
        format!("{}:instances", self.of(shard))
    }

    pub fn channel(&self, shard: Shard) -> String {
        format!("{}:changes", self.of(shard))
    }

    /// The command that publishes on [`channel`](Self::channel).
    pub fn publish(&self) -> &'static str {
        if self.is_sharded() {
            "SPUBLISH"
        } else {
            "PUBLISH"
        }
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
#[derive(Debug, Serialize, Deserialize)]
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
    /// Asked by the instance `origin` after a change (see `fleet`): answer
    /// on `channel` once every message before this one is handled.
    Probe {
        origin: String,
        probe: u64,
        channel: String,
    },
    /// `instance` has handled every message before `origin`'s `probe`.
    Confirmed {
        origin: String,
        probe: u64,
        instance: String,
    },
}

/// What every script that changes something starts with: the audit
/// trail's helpers. `audit` appends the change's record and is the first
/// write of each script (Redis does not undo a script's writes when a later
/// command fails), so a record that cannot be appended (a full memory, a
/// key of the wrong type) refuses the change before it is made.
///
/// Every such script takes KEYS\[1\] = the audit stream, KEYS\[2\] = its last
/// number, ARGV\[1\] = the stream's cap, ARGV\[2\] = the actor, ARGV\[3\] =
/// the request id, ARGV\[4\] = the publish command (`PUBLISH`; `SPUBLISH`
/// on a cluster), ARGV\[5\] = how to number the record (`""`: the one
/// after KEYS\[2\]; on a cluster, the shard's index `k`: the least number
/// congruent to `k` modulo 1024 above both KEYS\[2\] and the primary's
/// clock in ms times 1024, so numbers are unique across shards without a
/// shared counter, in change order within a shard, and in the primaries'
/// clock order, to the millisecond, across shards); its own keys and
/// arguments follow.
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
local function publish(channel, message)
  redis.call(ARGV[4], channel, message)
end
local function audit(kind, principal, before, after, added, removed)
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  local now = redis.call('TIME')
  local at = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local seq = last + 1
  if ARGV[5] ~= '' then
    -- A cluster's shard k numbers its records k modulo 1024, each above
    -- its last and at least the primary's clock in ms times 1024.
    local k = tonumber(ARGV[5])
    local above = last - (last % 1024) + k
    if above <= last then above = above + 1024 end
    seq = math.max(above, at * 1024 + k)
  end
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

/// KEYS: the decision stream, its last number. ARGV: the stream's cap, how
/// to number (as `ARGV[5]` of [`AUDIT`]: `""`, the next number; on a
/// cluster the shard's index `k`, the next number congruent to `k` modulo
/// 1024, so numbers are unique across shards), then five per decision:
/// `at`, principal (`""`: none), tool, revision, reason (`""`: allowed).
/// Appends them in order; answers the last number.
pub(super) static DECISIONS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local k = nil
if ARGV[2] ~= '' then k = tonumber(ARGV[2]) end
for i = 3, #ARGV, 5 do
  local seq = last + 1
  if k then
    seq = last - (last % 1024) + k
    if seq <= last then seq = seq + 1024 end
  end
  local fields = {'at', ARGV[i], 'tool', ARGV[i + 2], 'revision', ARGV[i + 3]}
  if ARGV[i + 1] ~= '' then table.insert(fields, 'principal'); table.insert(fields, ARGV[i + 1]) end
  if ARGV[i + 4] ~= '' then table.insert(fields, 'reason'); table.insert(fields, ARGV[i + 4]) end
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], string.format('%.0f', seq) .. '-0', unpack(fields))
  last = seq
end
redis.call('SET', KEYS[2], string.format('%.0f', last))
return last
"#,
    )
});

/// A script that records its change: [`AUDIT`] and then `body`.
fn audited(body: &str) -> Script {
    Script::new(&format!("{AUDIT}{body}"))
}

/// KEYS: (audit). ARGV: (audit), principal (`""`: none), how many replicas
/// confirmed the change before it (`{"confirmed":N,"required":M}`).
/// Records `replication-unconfirmed` after a change its replicas did not
/// confirm (see `Call::following`).
pub(super) static UNCONFIRMED: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
local principal = nil
if ARGV[6] ~= '' then principal = ARGV[6] end
audit('replication-unconfirmed', principal, nil, ARGV[7], '[]', '[]')
return 1
"#,
    )
});

/// KEYS: (audit), agent, version. ARGV: (audit), context, channel,
/// principal, expected version (`""`: any; `0`: no agent), the context's
/// compiled tools (a JSON array). Returns `{version, previous context or
/// ""}`, or `{-1, current version}` when the expected one is not current.
pub(super) static PUT: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
local current = tonumber(redis.call('HGET', KEYS[3], 'version') or '0')
if ARGV[9] ~= '' and current ~= tonumber(ARGV[9]) then return {-1, tostring(current)} end
local previous = redis.call('HGET', KEYS[3], 'context')
local version = tonumber(redis.call('GET', KEYS[4]) or '0') + 1
local before = nil
if previous then before = '{"context":' .. previous .. ',"version":' .. current .. '}' end
local added, removed = changed(redis.call('HGET', KEYS[3], 'tools'), ARGV[10])
audit('profile-put', ARGV[8], before,
  '{"context":' .. ARGV[6] .. ',"version":' .. version .. '}', added, removed)
redis.call('SET', KEYS[4], version)
redis.call('HSET', KEYS[3], 'context', ARGV[6], 'version', version, 'tools', ARGV[10])
if not previous then redis.call('HSET', KEYS[3], 'created', version) end
publish(ARGV[7], cjson.encode({kind = 'put', principal = ARGV[8], version = version, context = ARGV[6]}))
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
if ARGV[9] ~= '' and current ~= tonumber(ARGV[9]) then return {-1, tostring(current), ''} end
local previous = redis.call('HGET', KEYS[3], 'catalog')
local version = tonumber(redis.call('GET', KEYS[4]) or '0') + 1
local summary = redis.call('HGET', KEYS[3], 'catalog_summary') or 'null'
local added, removed = changed(redis.call('HGET', KEYS[3], 'catalog_tools'), ARGV[11])
audit('catalog-put', ARGV[8], '{"catalog":' .. summary .. ',"version":' .. current .. '}',
  '{"catalog":' .. ARGV[10] .. ',"version":' .. version .. '}', added, removed)
redis.call('SET', KEYS[4], version)
redis.call('HSET', KEYS[3], 'catalog', ARGV[6], 'version', version,
  'catalog_summary', ARGV[10], 'catalog_tools', ARGV[11])
publish(ARGV[7], cjson.encode({kind = 'catalog', principal = ARGV[8], version = version}))
return {version, previous or '', redis.call('HGET', KEYS[3], 'context')}
"#,
    )
});

/// KEYS: (audit), agent, version, tokens. ARGV: (audit), channel,
/// principal, token prefix (`""` on a cluster: the tokens' keys live in
/// other slots, and the caller cleans them). Returns `{the removal's
/// version, the version that created the agent, the token digests that
/// named it}`, or `{0, 0, {}}` if there was no agent.
pub(super) static DELETE: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
if redis.call('EXISTS', KEYS[3]) == 0 then return {0, 0, {}} end
local current = tonumber(redis.call('HGET', KEYS[3], 'version') or '0')
local created = tonumber(redis.call('HGET', KEYS[3], 'created') or '0')
local version = tonumber(redis.call('GET', KEYS[4]) or '0') + 1
local context = redis.call('HGET', KEYS[3], 'context') or 'null'
local tokens = redis.call('SCARD', KEYS[5])
local added, removed = changed(redis.call('HGET', KEYS[3], 'tools'), '[]')
audit('agent-deleted', ARGV[7],
  '{"context":' .. context .. ',"version":' .. current .. ',"tokens":' .. tokens .. '}',
  nil, added, removed)
local digests = redis.call('SMEMBERS', KEYS[5])
if ARGV[8] ~= '' then
  for _, digest in ipairs(digests) do redis.call('DEL', ARGV[8] .. digest) end
end
redis.call('DEL', KEYS[3], KEYS[5])
redis.call('SET', KEYS[4], version)
publish(ARGV[6], cjson.encode({kind = 'removed', principal = ARGV[7], version = version}))
return {version, created, digests}
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
if ARGV[8] ~= '' and current ~= tonumber(ARGV[8]) then return -1 - current end
local version = current + 1
local killed, spared = changed(redis.call('HGET', KEYS[3], 'tools'), ARGV[9])
audit('kill-switch', nil,
  '{"deny":' .. (redis.call('HGET', KEYS[3], 'names') or '[]') .. ',"version":' .. current .. '}',
  '{"deny":' .. ARGV[6] .. ',"version":' .. version .. '}', spared, killed)
redis.call('HSET', KEYS[3], 'version', version, 'names', ARGV[6], 'tools', ARGV[9])
publish(ARGV[7], '{"kind":"kill","version":' .. version .. ',"names":' .. ARGV[6] .. '}')
return version
"#,
    )
});

/// KEYS: a shard's copy of the kill switch. ARGV: the publish command,
/// the shard's channel, names (a JSON array), version. Makes the copy the
/// kill switch at `version` unless it holds a newer one, and publishes it
/// on the shard's channel: 1, or 0 when it held a newer one. Not recorded:
/// the put it copies is. A version equal to the copy's replaces it (a put
/// a failover undid may have left its number with other names).
pub(super) static COPY_KILL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if tonumber(ARGV[4]) < current then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[4], 'names', ARGV[3])
redis.call(ARGV[1], ARGV[2], '{"kind":"kill","version":' .. ARGV[4] .. ',"names":' .. ARGV[3] .. '}')
return 1
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
if old == ARGV[6] then return 0 end
local before = nil
if old then before = token(ARGV[10], old) end
audit('token-granted', ARGV[6], before, token(ARGV[10], ARGV[6]), '[]', '[]')
redis.call('SET', KEYS[3], ARGV[6])
redis.call('SADD', KEYS[5], ARGV[7])
if old then
  redis.call('SREM', ARGV[9] .. old, ARGV[7])
  publish(ARGV[8], cjson.encode({kind = 'revoked', digest = ARGV[7]}))
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
audit('token-revoked', old, token(ARGV[9], old), nil, '[]', '[]')
redis.call('DEL', KEYS[3])
redis.call('SREM', ARGV[8] .. old, ARGV[6])
publish(ARGV[7], cjson.encode({kind = 'revoked', digest = ARGV[6]}))
return 1
"#,
    )
});

/// A cluster's grant, on the token's slot. KEYS: (audit), token. ARGV:
/// (audit), the grant (`{created}:{principal}`), principal, digest,
/// channel, the token's fingerprint, the key's value the caller read
/// (`""`: none), the principal that value grants if that grant still holds
/// (`""`: none). Returns `{-1, now}` when the key no longer holds what
/// was read, `{0, ""}` when it already holds this grant, else `{1, the
/// principal it granted before or ""}`.
pub(super) static GRANT_SHARDED: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
local old = redis.call('GET', KEYS[3])
if (old or '') ~= ARGV[11] then return {-1, old or ''} end
if old == ARGV[6] then return {0, ''} end
local before = nil
if ARGV[12] ~= '' then before = token(ARGV[10], ARGV[12]) end
audit('token-granted', ARGV[7], before, token(ARGV[10], ARGV[7]), '[]', '[]')
redis.call('SET', KEYS[3], ARGV[6])
if ARGV[12] ~= '' then
  publish(ARGV[9], cjson.encode({kind = 'revoked', digest = ARGV[8]}))
end
return {1, ARGV[12]}
"#,
    )
});

/// A cluster's revocation, on the token's slot. KEYS: (audit), token.
/// ARGV: (audit), digest, channel, the token's fingerprint, the key's value
/// the caller read, the principal it grants if that grant still holds
/// (`""`: none: the key is only removed, and nothing recorded). Returns -1
/// when the key no longer holds what was read, 1 when a grant was revoked,
/// else 0.
pub(super) static REVOKE_SHARDED: LazyLock<Script> = LazyLock::new(|| {
    audited(
        r#"
local old = redis.call('GET', KEYS[3])
if (old or '') ~= ARGV[9] then return -1 end
if not old then return 0 end
if ARGV[10] == '' then
  redis.call('DEL', KEYS[3])
  return 0
end
audit('token-revoked', ARGV[10], token(ARGV[8], ARGV[10]), nil, '[]', '[]')
redis.call('DEL', KEYS[3])
publish(ARGV[7], cjson.encode({kind = 'revoked', digest = ARGV[6]}))
return 1
"#,
    )
});

/// A cluster's second step of a revocation (or of a grant that moved a
/// token), on the slot of the principal the token no longer names: its
/// token set loses the digest, and the revocation is published on that
/// principal's channel too, so that an instance hearing the principal's
/// shard hears every revocation of its tokens. KEYS: the principal's token
/// set. ARGV: the digest, the publish command, the principal's channel.
pub(super) static UNINDEX_TOKEN: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
redis.call('SREM', KEYS[1], ARGV[1])
redis.call(ARGV[2], ARGV[3], cjson.encode({kind = 'revoked', digest = ARGV[1]}))
return 1
"#,
    )
});

/// Removes a token's key if it still holds `ARGV[1]`: the repair of a
/// grant whose agent is gone (no record: it no longer granted anything).
/// KEYS: token. Returns 1 if removed.
pub(super) static FORGET_TOKEN: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
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
