//! The store on a Redis Cluster (`redis+cluster://HOST:PORT,HOST:PORT`).
//!
//! **Layout.** Every script touches one hash slot. Principals and tokens
//! spread over [`RedisOptions::with_shards`] shards, each a hash tag
//! (`P:{b17}:…`): a principal's agent, version and token set live in its
//! shard, a token's key in its digest's shard, the kill switch in a shard
//! of its own (copied into every principal's shard after each put, see
//! `kill`). Each shard keeps its own audit stream and change channel,
//! so each change records and publishes in the one script that makes it.
//! Shards rather than one tag per principal: the feed and the audit trail
//! span every shard, and a fixed number of them keeps that a fixed cost
//! however many principals there are.
//!
//! **The audit trail's numbers** are each shard's own: no key outside the
//! principal's slot is on a change's path, so a failed primary stops only
//! its own shard's changes. Shard `k` numbers a record with the least
//! number congruent to `k` modulo 1024 above its last one and above its
//! primary's clock in ms times 1024 (see `scripts::AUDIT`): numbers are
//! unique across shards, in change order within a shard (a principal's
//! agent changes; a token's; the kill switch's), and across shards in the
//! order of the primaries' clocks to the millisecond (two changes of
//! different shards in one millisecond may come either way: the
//! conformance suite checks a cluster with `AuditOrder::PerShard`). A page merges the shards by number. (A trail written
//! before numbers were per shard keeps its numbers, all below the new
//! ones.)
//!
//! **Tokens without a cross-slot script.** A token's key holds its grant,
//! `{created}:{principal}`, where `created` is the version that created the
//! principal's agent. The grant holds while that key says so *and* the
//! agent is still the one created then: a token acts as nobody otherwise.
//! Each change is one script on the token's slot, made as a compare-and-set
//! on what the caller read there (read again when it moved):
//!
//! - *Grant* (and *move*): read the agent's `created` (none: unknown
//!   principal), then set the key, record `token-granted` and, when it held
//!   a live grant of another principal, publish the revocation, all in one
//!   step. The token set of the principal (an index) gains the digest
//!   afterwards, and the old principal's loses it, the revocation
//!   published on that principal's channel in the same step.
//! - *Revoke*: delete the key, record and publish in one step; then, on
//!   the principal's slot, the index loses the digest and the revocation
//!   is published on the principal's channel too. So an instance that
//!   hears a principal's shard hears every revocation of its tokens (but
//!   one whose second step could not reach the shard: logged, and that
//!   shard most likely out of reach of instances too, its principals
//!   refused), and a token it knows depends on that shard alone; a shard
//!   reloaded after a lost feed forgets each known token its index no
//!   longer holds. A token not yet known here is looked up in its key's
//!   shard, and refused while that shard is out of reach.
//! - *Delete an agent*: one script on the principal's slot removes the
//!   agent (so every grant naming it stops holding at once), records and
//!   publishes; its tokens' keys are removed afterwards, each only if it
//!   still holds that agent's grant.
//!
//! A crash between the steps leaves only an index entry too many or too few,
//! or a token key whose grant no longer holds: neither lets a token act as
//! anyone it is not granted to (an entry too few makes a reloading
//! instance look the token up again; one too many keeps a revoked token
//! known only to an instance that missed the revocation on both shards'
//! channels, and reloaded the principal's while the token's stayed out of
//! reach). A key the index missed at deletion is removed when the token is
//! next presented (its grant found dead) or granted again. An
//! agent created again has another `created`, so no old grant comes back.
//!
//! **The feed** is sharded pub/sub: each shard's channel lives on the
//! primary of its slot, so publishing scales with the cluster, and every
//! instance subscribes to every shard, over a connection of its own to
//! each primary (`shard_feed`). A primary's connection closed loses the
//! feeds of the shards subscribed on it, a shard moved away its own; each
//! lost shard is subscribed to again once a heartbeat reaches it, and
//! reloaded once it hears its own probe back (see `feed`). Health is per
//! shard (`health`): a shard silent past the grace period refuses its own
//! principals only, the kill switch's and a token's key's too (each
//! principal's shard holds a copy of the kill switch and hears its tokens'
//! revocations). Heartbeats, reloads, probes and the feed go straight to
//! each primary (`primaries`), never waiting on the cluster client's slot
//! refresh; the cluster itself must serve a shard while another's slots
//! are uncovered (`cluster-require-full-coverage no`).
//!
//! **Failover.** A change is acknowledged only once a replica has it
//! ([`RedisOptions::with_replica_acks`], default 1 here): a promoted
//! replica holds every acknowledged change, and versions never repeat. A
//! change its replicas did not confirm is made all the same, and said so
//! ([`Written`](crate::store::Written)); a failover may undo it and its
//! record, whose number comes back only on a promoted primary whose clock
//! is behind the old one's.

use std::sync::Arc;

use redis::cluster::ClusterClientBuilder;

use super::connection::{Call, ClusterLink, Connection};
use super::primaries::Primaries;
use super::scripts::{FORGET_TOKEN, GRANT_SHARDED, Keys, REVOKE_SHARDED, UNINDEX_TOKEN, digest};
use super::shard_feed::Shards;
use super::{RedisOptions, RedisStore, WRITERS, within};
use crate::ProfileStore;
use crate::UnknownPrincipal;
use crate::audit::Attribution;
use crate::audit::states::fingerprint;
use crate::store::{StoreError, Written};
use mcp_profiles::Vocabulary;

/// The scheme of a cluster's URL.
const SCHEME: &str = "redis+cluster://";

/// The nodes a cluster's URL names.
pub(super) struct Seeds {
    /// `redis://[CREDENTIALS@]HOST:PORT`, one per node.
    urls: Vec<String>,
    /// The nodes as `HOST:PORT, HOST:PORT`: what messages and logs name
    /// (never the credentials).
    shown: String,
}

/// The seed nodes of a `redis+cluster://[USER:PASSWORD@]HOST:PORT,HOST:PORT`
/// URL (the credentials, if any, for every node); `None` for any other URL.
/// A bad URL's error names the bad part, never the credentials.
pub(super) fn seeds(url: &str) -> Result<Option<Seeds>, StoreError> {
    let Some(rest) = url.strip_prefix(SCHEME) else {
        return Ok(None);
    };
    let (credentials, nodes) = match rest.rsplit_once('@') {
        Some((credentials, nodes)) => (Some(credentials), nodes),
        None => (None, rest),
    };
    let nodes: Vec<&str> = nodes.trim_end_matches('/').split(',').collect();
    for node in &nodes {
        let valid = node.rsplit_once(':').is_some_and(|(host, port)| {
            !host.is_empty() && !host.contains('/') && port.parse::<u16>().is_ok()
        });
        if !valid {
            return Err(StoreError::Unavailable(format!(
                "not a Redis Cluster URL: `{node}` is not HOST:PORT \
                 (expected {SCHEME}[USER:PASSWORD@]HOST:PORT,HOST:PORT,…)"
            )));
        }
    }
    let urls = nodes
        .iter()
        .map(|node| match credentials {
            Some(credentials) => format!("redis://{credentials}@{node}"),
            None => format!("redis://{node}"),
        })
        .collect();
    Ok(Some(Seeds {
        urls,
        shown: nodes.join(", "),
    }))
}

/// Connects to the cluster `seeds` name, subscribes to every shard's
/// channel and loads the kill switch.
pub(super) async fn connect<S: Vocabulary>(
    seeds: &Seeds,
    options: RedisOptions,
    local: Arc<ProfileStore<S>>,
) -> Result<Arc<RedisStore<S>>, StoreError> {
    if options.prefix.contains(['{', '}']) {
        return Err(StoreError::Unavailable(format!(
            "the key prefix `{}` holds `{{` or `}}`, which a Redis Cluster reads as a hash tag",
            options.prefix
        )));
    }
    let named = &seeds.shown;
    let unreachable = |error: redis::RedisError| {
        StoreError::Unavailable(format!("cannot connect to the cluster at {named}: {error}"))
    };
    let builder = || {
        ClusterClientBuilder::new(seeds.urls.clone())
            .connection_timeout(options.timeout)
            .response_timeout(options.timeout)
            .retries(3)
    };
    let client = builder().build().map_err(unreachable)?;
    let commands = within(options.timeout, client.get_async_connection())
        .await?
        .map_err(unreachable)?;
    let keys = Keys::sharded(&options.prefix, options.shards);
    let primaries = Primaries::new(&seeds.urls, options.timeout);
    let (feed, unsubscribed) = within(
        options.timeout,
        Shards::subscribe(primaries.clone(), keys.clone(), options.timeout),
    )
    .await?
    .map_err(|why| {
        StoreError::Unavailable(format!("cannot follow the cluster at {named}: {why}"))
    })?;
    // Changes wait for their replicas on connections of their own.
    let mut writers = Vec::with_capacity(WRITERS);
    for _ in 0..WRITERS {
        let writer = within(options.timeout, client.get_async_connection())
            .await?
            .map_err(unreachable)?;
        writers.push(Connection::Cluster(ClusterLink::new(writer)));
    }
    let inner = RedisStore::start(
        local,
        (
            Connection::Cluster(ClusterLink::new(commands)),
            writers,
            Some(Connection::Primaries(primaries)),
        ),
        keys,
        &options,
        1,
        (feed, unsubscribed),
    )
    .await?;
    tracing::info!(seeds = %named, shards = options.shards, grace = ?options.grace, "profile store on a Redis Cluster");
    Ok(inner)
}

/// A token key's grant: the version that created the agent, and the
/// principal.
fn grant_of(value: &str) -> Option<(u64, &str)> {
    let (created, principal) = value.split_once(':')?;
    Some((created.parse().ok()?, principal))
}

impl<S: Vocabulary> RedisStore<S> {
    /// The version that created `principal`'s agent; `None` without one.
    async fn created(&self, principal: &str) -> Result<Option<u64>, StoreError> {
        self.read(
            redis::cmd("HGET")
                .arg(self.keys.agent(principal))
                .arg("created"),
        )
        .await
    }

    /// The principal the token of `digest` acts as: on a cluster, only
    /// while its grant holds (a dead one's key is removed on the way).
    pub(super) async fn token_principal(&self, digest: &str) -> Result<Option<String>, StoreError> {
        let named: Option<String> = self
            .read(redis::cmd("GET").arg(self.keys.token(digest)))
            .await?;
        if !self.keys.is_sharded() {
            return Ok(named);
        }
        let Some(value) = named else {
            return Ok(None);
        };
        let live = self.live_grant(&value).await?;
        if live.is_none() {
            self.forget_token(digest, &value).await;
        }
        Ok(live)
    }

    /// The principal a token key's `value` grants, if that grant holds.
    async fn live_grant(&self, value: &str) -> Result<Option<String>, StoreError> {
        let Some((created, principal)) = grant_of(value) else {
            return Ok(None);
        };
        let holds = self.created(principal).await? == Some(created);
        Ok(holds.then(|| principal.to_owned()))
    }

    /// Removes the key of `digest` if it still holds `value`, whose grant
    /// no longer holds; a failure leaves it for the next attempt.
    async fn forget_token(&self, digest: &str, value: &str) {
        let mut call = Call::new(&FORGET_TOKEN);
        call.key(self.keys.token(digest)).arg(value);
        let forgotten = within(self.timeout, self.commands.call::<i64>(&call, 0, 0)).await;
        if !matches!(forgotten, Ok(Ok(_))) {
            tracing::debug!("a dead token grant stays in the store for now");
        }
    }

    /// After deleting `principal`'s agent created at `created`: removes
    /// the keys of its tokens still holding its grant.
    pub(super) async fn forget_tokens(&self, principal: &str, created: u64, digests: &[String]) {
        let value = format!("{created}:{principal}");
        for digest in digests {
            self.forget_token(digest, &value).await;
        }
    }

    /// Reads the key of `digest`: its value, and the principal it grants if
    /// that grant holds.
    async fn read_grant(&self, digest: &str) -> Result<(String, String), StoreError> {
        let value: Option<String> = self
            .read(redis::cmd("GET").arg(self.keys.token(digest)))
            .await?;
        let value = value.unwrap_or_default();
        let live = self.live_grant(&value).await?.unwrap_or_default();
        Ok((value, live))
    }

    /// [`AgentStore::grant_token`](crate::AgentStore::grant_token) on a
    /// cluster.
    pub(super) async fn grant_sharded(
        &self,
        token: &str,
        principal: &str,
        by: &Attribution,
    ) -> Result<Written<()>, StoreError> {
        let digest = digest(token);
        let shard = self.keys.token_shard(&digest);
        for _ in 0..8 {
            let Some(created) = self.created(principal).await? else {
                return Err(UnknownPrincipal::new(principal).into());
            };
            let (read, live) = self.read_grant(&digest).await?;
            let mut grant = self.audited(&GRANT_SHARDED, by, shard);
            grant.of(principal);
            grant
                .key(self.keys.token(&digest))
                .arg(format!("{created}:{principal}"))
                .arg(principal)
                .arg(&digest)
                .arg(self.keys.channel(shard))
                .arg(fingerprint(token))
                .arg(&read)
                .arg(&live);
            let ((outcome, before), replication): ((i64, String), _) = self.run(&grant).await?;
            if outcome < 0 {
                continue;
            }
            // The index, for deletion: again on a repeated grant, which
            // repairs one a crash left out.
            self.query::<i64>(
                redis::cmd("SADD")
                    .arg(self.keys.tokens(principal))
                    .arg(&digest),
            )
            .await?;
            if outcome == 1 && !before.is_empty() && before != principal {
                self.unindex(&digest, &before).await;
                self.revoke_local(&digest);
            }
            return Ok(if outcome == 0 {
                Written::unreplicated(())
            } else {
                self.made(&grant, (), replication).await
            });
        }
        Err(StoreError::Unavailable(format!(
            "the token's grant kept changing while granting it to `{principal}`"
        )))
    }

    /// The second step of revoking the token of `digest` from `principal`
    /// (see [`UNINDEX_TOKEN`]): on the principal's slot, its token set
    /// loses the digest and the revocation is published on its channel.
    /// The revocation is made already, and stands whatever this meets: a
    /// failure leaves an index entry too many (harmless: the token's key
    /// no longer grants) and the revocation heard on the token's channel
    /// only, so it is logged, not answered as a refusal.
    async fn unindex(&self, digest: &str, principal: &str) {
        let shard = self.keys.principal(principal);
        let mut call = Call::new(&UNINDEX_TOKEN);
        call.key(self.keys.tokens(principal))
            .arg(digest)
            .arg(self.keys.publish())
            .arg(self.keys.channel(shard));
        if let Err(error) = self.run_waiting::<i64>(&call, 0).await {
            tracing::warn!(
                principal,
                %error,
                "a revoked token's index entry stays, and its principal's channel did not carry the revocation"
            );
        }
    }

    /// [`AgentStore::revoke_token`](crate::AgentStore::revoke_token) on a
    /// cluster.
    pub(super) async fn revoke_sharded(
        &self,
        token: &str,
        by: &Attribution,
    ) -> Result<Written<bool>, StoreError> {
        let digest = digest(token);
        let shard = self.keys.token_shard(&digest);
        for _ in 0..8 {
            let (read, live) = self.read_grant(&digest).await?;
            let mut revoke = self.audited(&REVOKE_SHARDED, by, shard);
            revoke
                .key(self.keys.token(&digest))
                .arg(&digest)
                .arg(self.keys.channel(shard))
                .arg(fingerprint(token))
                .arg(&read)
                .arg(&live);
            let (outcome, replication): (i64, _) = self.run(&revoke).await?;
            if outcome < 0 {
                continue;
            }
            if let Some((_, principal)) = grant_of(&read) {
                self.unindex(&digest, principal).await;
            }
            self.revoke_local(&digest);
            return Ok(if outcome == 1 {
                self.made(&revoke, true, replication).await
            } else {
                Written::unreplicated(false)
            });
        }
        Err(StoreError::Unavailable(
            "the token's grant kept changing while revoking it".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_urls_name_their_seeds() {
        assert!(seeds("redis://127.0.0.1:6379/0").unwrap().is_none());
        let plain = seeds("redis+cluster://127.0.0.1:7000,10.0.0.2:7001")
            .unwrap()
            .unwrap();
        assert_eq!(
            plain.urls,
            ["redis://127.0.0.1:7000", "redis://10.0.0.2:7001"]
        );
        assert_eq!(plain.shown, "127.0.0.1:7000, 10.0.0.2:7001");
        let secret = seeds("redis+cluster://ops:s3cret@127.0.0.1:7000,127.0.0.1:7001")
            .unwrap()
            .unwrap();
        assert_eq!(
            secret.urls,
            [
                "redis://ops:s3cret@127.0.0.1:7000",
                "redis://ops:s3cret@127.0.0.1:7001"
            ]
        );
        assert_eq!(secret.shown, "127.0.0.1:7000, 127.0.0.1:7001");
        for (bad, part) in [
            ("redis+cluster://", "``"),
            ("redis+cluster://127.0.0.1", "`127.0.0.1`"),
            ("redis+cluster://127.0.0.1:7000,:7001", "`:7001`"),
            ("redis+cluster://127.0.0.1:99999", "`127.0.0.1:99999`"),
            ("redis+cluster://ops:s3cret@127.0.0.1", "`127.0.0.1`"),
        ] {
            let error = seeds(bad).err().unwrap().to_string();
            assert!(error.contains("not a Redis Cluster URL"), "{error}");
            assert!(error.contains(part), "{error}");
            assert!(!error.contains("s3cret"), "{error}");
        }
    }

    #[test]
    fn grants_name_their_agent_and_principal() {
        assert_eq!(grant_of("3:alice"), Some((3, "alice")));
        assert_eq!(grant_of("3:team:alice"), Some((3, "team:alice")));
        assert_eq!(grant_of("alice"), None);
    }
}
