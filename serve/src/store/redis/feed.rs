//! The instance's side of the change feed: one task that follows Redis's
//! pub/sub channel (on a cluster, every shard's sharded channel) and
//! applies each change in version order, and one that renews this
//! instance's name in every shard at each heartbeat (how it knows each
//! shard is there). A shard whose feed is lost (a connection closed, its
//! channel moved, one Redis's feed unanswered) is subscribed to again and
//! reloaded (what is served here of it, and its copy of the kill switch)
//! once a heartbeat reaches it, before it is served past the
//! grace period again; the other shards are served and followed meanwhile.

use std::sync::Weak;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{PubSubSink, PubSubStream};

use super::scripts::{Change, Keys, Shard};
use super::{RedisStore, decode};
use mcp_profiles::Vocabulary;

use crate::agents::{AgentUpdate, Apply};
use crate::store::StoreError;
use crate::telemetry;

/// Where the feed's messages come from: one Redis's channel, or every
/// shard's channel on a cluster. The feed task drives either alike.
pub(super) trait Subscription: Send + 'static {
    /// Subscribes to each of `shards`' channels again after a loss, all at
    /// once, each given `within`: the shards it could.
    fn resubscribe(
        &mut self,
        shards: Vec<Shard>,
        within: Duration,
    ) -> impl Future<Output = Vec<Shard>> + Send;
    /// The next thing heard.
    fn next(&mut self) -> impl Future<Output = Heard> + Send;
    /// Checks the feed's own connection where that is one connection (one
    /// Redis); on a cluster the renewals in each shard's slot tell.
    /// `Err` saying why when it does not answer `within`.
    fn ping(&mut self, within: Duration) -> impl Future<Output = Result<(), String>> + Send;
}

/// What a subscription heard.
pub(super) enum Heard {
    /// A message's payload on a shard's channel: a change, a probe or a
    /// confirmation.
    Message(Shard, Vec<u8>),
    /// Something else the feed ignores.
    Nothing,
    /// These shards' feeds are lost, and why.
    Lost(Vec<Shard>, String),
    /// The store is gone: the feed stops.
    Closed,
}

/// One Redis's channel, on a pub/sub connection of its own.
pub(super) struct Channel {
    client: redis::Client,
    channel: String,
    sink: PubSubSink,
    stream: PubSubStream,
    /// The connection closed: nothing more is heard on it, nor is it
    /// pinged, until subscribed again.
    closed: bool,
}

impl Channel {
    /// Subscribed to `channel` of `client`'s Redis.
    pub(super) async fn subscribe(
        client: redis::Client,
        channel: String,
    ) -> redis::RedisResult<Channel> {
        let (sink, stream) = subscribed(&client, &channel).await?;
        Ok(Channel {
            client,
            channel,
            sink,
            stream,
            closed: false,
        })
    }
}

async fn subscribed(
    client: &redis::Client,
    channel: &str,
) -> redis::RedisResult<(PubSubSink, PubSubStream)> {
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    Ok(pubsub.split())
}

impl Subscription for Channel {
    async fn resubscribe(&mut self, shards: Vec<Shard>, within: Duration) -> Vec<Shard> {
        match tokio::time::timeout(within, subscribed(&self.client, &self.channel)).await {
            Ok(Ok((sink, stream))) => {
                (self.sink, self.stream) = (sink, stream);
                self.closed = false;
                shards
            }
            _ => Vec::new(),
        }
    }

    async fn next(&mut self) -> Heard {
        if self.closed {
            return std::future::pending().await;
        }
        match self.stream.next().await {
            Some(message) => Heard::Message(Shard::ALONE, message.get_payload_bytes().to_vec()),
            None => {
                self.closed = true;
                Heard::Lost(
                    vec![Shard::ALONE],
                    "the change feed's connection closed".to_owned(),
                )
            }
        }
    }

    /// A lost connection is not pinged: it is being replaced.
    async fn ping(&mut self, within: Duration) -> Result<(), String> {
        if self.closed {
            return Ok(());
        }
        let pinged = match tokio::time::timeout(within, self.sink.ping::<()>()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!("no answer to a ping within {within:?}")),
        };
        self.closed = pinged.is_err();
        pinged
    }
}

/// The feed task: runs until the store is dropped. It applies what `feed`
/// hears in order; at each heartbeat it pings the feed's connection (one
/// Redis) and recovers each lost shard the last heartbeat reached:
/// subscribes again and publishes a probe there; on hearing it back (so
/// subscribed on the shard's primary, and a change made during the reload
/// arrives on the feed and is applied after it) reloads what is served
/// here of it before that shard counts as reachable again.
pub(super) async fn run<S: Vocabulary>(
    store: Weak<RedisStore<S>>,
    mut feed: impl Subscription,
    heartbeat: Duration,
) {
    let mut ticks = tokio::time::interval(heartbeat);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            heard = feed.next() => {
                let Some(inner) = store.upgrade() else { return };
                match heard {
                    Heard::Message(shard, payload) => {
                        if let Err(error) = inner.handle(shard, &payload).await {
                            inner.lose(&[shard], &error.to_string());
                        }
                    }
                    Heard::Nothing => {}
                    Heard::Lost(shards, why) => inner.lose(&shards, &why),
                    Heard::Closed => return,
                }
            },
            _ = ticks.tick() => {
                let ping = feed.ping(heartbeat).await;
                let Some(inner) = store.upgrade() else { return };
                if let Err(why) = ping {
                    inner.lose(&inner.keys.shards(), &why);
                }
                let recoverable = inner.health.recoverable(&inner.keys);
                if !recoverable.is_empty() {
                    let subscribed = feed.resubscribe(recoverable, heartbeat * 4).await;
                    inner.ask_echoes(subscribed).await;
                }
            }
        }
    }
}

/// The heartbeat task: runs until the store is dropped. At each heartbeat
/// it renews this instance's name in every shard at once, each given
/// `heartbeat` to answer: an answer is a contact with that shard (unless
/// its feed is lost); a shard silent past the grace period is refused.
pub(super) async fn beat<S: Vocabulary>(store: Weak<RedisStore<S>>, heartbeat: Duration) {
    let mut ticks = tokio::time::interval(heartbeat);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(inner) = store.upgrade() else { return };
        let renewals = inner.keys.shards().into_iter().map(|shard| {
            let inner = &inner;
            async move {
                let renewed = tokio::time::timeout(heartbeat, inner.renew(shard)).await;
                (shard, renewed)
            }
        });
        for (shard, renewed) in futures_util::future::join_all(renewals).await {
            match renewed {
                Ok(Ok(())) => inner.health.answered(shard),
                // No contact: the shard is served for at most the grace
                // period from its last one. Nothing was missed (a message
                // is lost only with its connection, which the feed hears).
                Ok(Err(error)) => {
                    tracing::debug!(%error, shard = Keys::index(shard), "a heartbeat was refused");
                }
                Err(_) => {
                    tracing::debug!(
                        shard = Keys::index(shard),
                        "a heartbeat was not answered in time"
                    );
                }
            }
        }
    }
}

impl<S: Vocabulary> RedisStore<S> {
    /// `shards`' feeds may have missed something: each is served for at
    /// most the grace period from its last contact, unless recovered
    /// first. Says so once per loss.
    pub(super) fn lose(&self, shards: &[Shard], why: &str) {
        for &shard in shards {
            let (newly, first) = self.health.lose(shard);
            if first {
                telemetry::store_up(false);
            }
            if newly {
                tracing::warn!(
                    error = %why,
                    shard = Keys::index(shard),
                    "lost (part of) the profile store; serving what was last applied of it for at most the grace period"
                );
            }
        }
    }

    /// Publishes a probe on each of `shards`' channels, just subscribed to
    /// again: hearing it back (`handle`) proves the subscription is live on
    /// the shard's primary now (a subscription the client made on a node
    /// that has since lost the slot hears nothing), and only then is the
    /// shard reloaded.
    async fn ask_echoes(&self, shards: Vec<Shard>) {
        let each = shards.into_iter().map(|shard| async move {
            let probe = self.fleet.next_probe();
            self.health.await_echo(shard, probe);
            let (channel, echo) = self.probe(shard, probe);
            if let Err(error) = self.publish(&channel, &echo).await {
                tracing::debug!(%error, shard = Keys::index(shard), "could not probe a shard's feed");
            }
        });
        futures_util::future::join_all(each).await;
    }

    /// Reloads a lost `shard` once its feed is proven live again; it counts
    /// as reachable again if that worked.
    async fn recover(&self, shard: Shard) {
        match self.reload(shard).await {
            Ok(principals) => {
                telemetry::reload(true);
                if self.health.recovered(shard) {
                    telemetry::store_up(true);
                }
                tracing::info!(
                    principals,
                    shard = Keys::index(shard),
                    "profile store reachable again; reloaded"
                );
            }
            Err(error) => {
                telemetry::reload(false);
                tracing::warn!(%error, "reloading from the profile store failed");
            }
        }
    }

    /// Applies one feed message heard on `shard`'s channel. `Err` when
    /// Redis could not be asked about a gap: the caller loses the shard,
    /// and its reload catches up.
    async fn handle(&self, shard: Shard, payload: &[u8]) -> Result<(), StoreError> {
        let change: Change = match serde_json::from_slice(payload) {
            Ok(change) => change,
            Err(error) => {
                tracing::warn!(%error, "ignored an unreadable message on the change feed");
                return Ok(());
            }
        };
        // Before anything is decided, so a token resolution racing a change
        // sees that it must check again (the instances' own messages change
        // nothing).
        if !matches!(change, Change::Probe { .. } | Change::Confirmed { .. }) {
            self.seen.fetch_add(1, Ordering::SeqCst);
        }
        match change {
            // Every message before it is handled: see `fleet`. Not while
            // the shard's feed is lost (messages may have been missed): the
            // maker asks again, and is answered once the shard is reloaded.
            Change::Probe {
                origin,
                probe,
                channel,
            } => {
                if origin == self.fleet.name() && self.health.is_echo(shard, probe) {
                    self.recover(shard).await;
                } else if !self.health.is_lost(shard) {
                    self.answer_probe(origin, probe, &channel);
                }
            }
            Change::Confirmed {
                origin,
                probe,
                instance,
            } => {
                if origin == self.fleet.name() {
                    self.fleet.confirmed(probe, &instance);
                }
            }
            Change::Put {
                principal,
                version,
                context,
            } => {
                let Some(applied) = self.local.version(&principal) else {
                    return Ok(());
                };
                if version == applied + 1 {
                    let update = decode(&principal, &context).ok().map(AgentUpdate::Context);
                    self.local
                        .apply(&principal, version, update, Apply::IfServed);
                } else if version > applied {
                    // Versions skipped: read what is there now.
                    telemetry::feed_gap();
                    tracing::info!(
                        principal,
                        applied,
                        version,
                        "gap in the change feed; reloading the principal"
                    );
                    let fetched = self.fetch(&principal).await?;
                    self.apply_fetched(&principal, fetched, Apply::IfServed);
                }
            }
            Change::Catalog { principal, version } => {
                // The message holds no catalog: read the agent whole.
                if self
                    .local
                    .version(&principal)
                    .is_some_and(|applied| version > applied)
                {
                    let fetched = self.fetch(&principal).await?;
                    self.apply_fetched(&principal, fetched, Apply::IfServed);
                }
            }
            Change::Removed { principal, version } => {
                self.local.apply(&principal, version, None, Apply::IfServed);
                let local = &self.local;
                self.lock_known()
                    .retain(|_, token| local.principal(token).is_some());
            }
            Change::Revoked { digest } => self.revoke_local(&digest),
            // Each message holds the whole list: only a newer one applies,
            // whatever was skipped.
            Change::Kill { version, names } => {
                self.apply_stored_kill_switch(&names, version, Apply::IfServed);
            }
        }
        Ok(())
    }

    /// Makes what is served here of `shard` (its principals and tokens,
    /// and the kill switch: as it is if it is the kill switch's shard, its
    /// copy if newer otherwise) what Redis says now; how many principals
    /// were reloaded.
    async fn reload(&self, shard: Shard) -> Result<usize, StoreError> {
        let keys = &self.keys;
        if shard == keys.kill_shard() {
            self.reload_kill_switch().await?;
        } else {
            self.reload_kill_copy(shard).await?;
        }
        let mut served = self.local.versions();
        served.retain(|(principal, _)| keys.principal(principal) == shard);
        for (principal, _) in &served {
            let fetched = self.fetch(principal).await?;
            self.apply_fetched(principal, fetched, Apply::Reset);
        }
        let known: Vec<(String, String)> = self
            .lock_known()
            .iter()
            .filter(|(digest, _)| keys.token_shard(digest) == shard)
            .map(|(digest, token)| (digest.clone(), token.clone()))
            .collect();
        for (digest, token) in known {
            let named = self.token_principal(&digest).await?;
            let here = self.local.principal(&token);
            if named.is_none() || here.as_ref().map(|p| p.name()) != named.as_deref() {
                self.revoke_local(&digest);
            }
        }
        if keys.is_sharded() {
            self.recheck_tokens_of(shard).await?;
        }
        Ok(served.len())
    }

    /// On a cluster, forgets each token known here whose principal is in
    /// `shard` and whose digest that principal's token set no longer
    /// holds: a revocation is published on the principal's channel too
    /// (see `cluster`), which a lost feed of the shard may have missed.
    /// Read from the principal's shard only, so that it alone decides what
    /// its principals' tokens may do. An entry a crash left out only makes
    /// the token be looked up again at its next use.
    async fn recheck_tokens_of(&self, shard: Shard) -> Result<(), StoreError> {
        let keys = &self.keys;
        let known: Vec<(String, String)> = self
            .lock_known()
            .iter()
            .filter_map(|(digest, token)| {
                let principal = self.local.principal(token)?;
                (keys.principal(principal.name()) == shard)
                    .then(|| (digest.clone(), principal.name().to_owned()))
            })
            .collect();
        for (digest, principal) in known {
            let indexed: bool = self
                .read(
                    redis::cmd("SISMEMBER")
                        .arg(keys.tokens(&principal))
                        .arg(&digest),
                )
                .await?;
            if !indexed {
                self.revoke_local(&digest);
            }
        }
        Ok(())
    }
}
