//! The instance's side of the change feed: one task that follows Redis's
//! pub/sub channel (on a cluster, every shard's sharded channel), applies
//! each change in version order, pings Redis (every primary) to know it is
//! there, and after any loss reconnects, subscribes again and reloads
//! everything it serves (and the kill switch) before it serves again.

use std::sync::Weak;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{PubSubSink, PubSubStream};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{MultipleNodeRoutingInfo, ResponsePolicy, RoutingInfo};
use redis::{PushInfo, PushKind};
use tokio::sync::mpsc::UnboundedReceiver;

use super::scripts::{Change, Keys};
use super::{Inner, decode};
use mcp_profiles::Vocabulary;

use crate::agents::{AgentUpdate, Apply};
use crate::store::StoreError;
use crate::telemetry;

/// Where the feed's messages come from: one Redis's channel, or every
/// shard's channel on a cluster. The feed task drives either alike.
pub(super) trait Subscription: Send + 'static {
    /// Subscribes again after a loss; whether it could.
    fn resubscribe(&mut self) -> impl Future<Output = bool> + Send;
    /// The next thing heard.
    fn next(&mut self) -> impl Future<Output = Heard> + Send;
    /// Pings every node the feed listens to.
    fn ping(&mut self) -> impl Future<Output = redis::RedisResult<redis::Value>> + Send;
}

/// What a subscription heard.
pub(super) enum Heard {
    /// A message's payload: a change, a probe or a confirmation.
    Message(Vec<u8>),
    /// Something else the feed ignores.
    Nothing,
    /// The feed is lost, and why.
    Lost(String),
    /// The store is gone: the feed stops.
    Closed,
}

/// One Redis's channel, on a pub/sub connection of its own.
pub(super) struct Channel {
    client: redis::Client,
    channel: String,
    sink: PubSubSink,
    stream: PubSubStream,
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
    async fn resubscribe(&mut self) -> bool {
        match subscribed(&self.client, &self.channel).await {
            Ok((sink, stream)) => {
                (self.sink, self.stream) = (sink, stream);
                true
            }
            Err(_) => false,
        }
    }

    async fn next(&mut self) -> Heard {
        match self.stream.next().await {
            Some(message) => Heard::Message(message.get_payload_bytes().to_vec()),
            None => Heard::Lost("the change feed's connection closed".to_owned()),
        }
    }

    async fn ping(&mut self) -> redis::RedisResult<redis::Value> {
        self.sink.ping().await
    }
}

/// Every shard's channel on a cluster, each on the primary of its slot
/// (`SSUBSCRIBE`), the messages arriving as RESP3 pushes.
pub(super) struct Shards {
    connection: ClusterConnection,
    pushes: UnboundedReceiver<PushInfo>,
    keys: Keys,
}

impl Shards {
    /// `connection` subscribed to every shard's channel of `keys`;
    /// `pushes` receives what it hears.
    pub(super) async fn subscribe(
        mut connection: ClusterConnection,
        pushes: UnboundedReceiver<PushInfo>,
        keys: Keys,
    ) -> redis::RedisResult<Shards> {
        subscribe_shards(&mut connection, &keys).await?;
        Ok(Shards {
            connection,
            pushes,
            keys,
        })
    }
}

async fn subscribe_shards(
    connection: &mut ClusterConnection,
    keys: &Keys,
) -> redis::RedisResult<()> {
    for shard in keys.shards() {
        connection.ssubscribe(keys.channel(shard)).await?;
    }
    Ok(())
}

impl Subscription for Shards {
    /// Each shard on its slot's primary now.
    async fn resubscribe(&mut self) -> bool {
        subscribe_shards(&mut self.connection, &self.keys)
            .await
            .is_ok()
    }

    /// A disconnection or a shard's channel moved away (`SUNSUBSCRIBE` from
    /// the server) is a loss.
    async fn next(&mut self) -> Heard {
        let Some(push) = self.pushes.recv().await else {
            return Heard::Closed;
        };
        match push.kind {
            PushKind::SMessage => match push.data.into_iter().nth(1) {
                Some(redis::Value::BulkString(payload)) => Heard::Message(payload),
                _ => Heard::Nothing,
            },
            PushKind::Disconnection => {
                Heard::Lost("a connection of the change feed closed".to_owned())
            }
            PushKind::SUnsubscribe => {
                Heard::Lost("a shard's channel moved to another node".to_owned())
            }
            _ => Heard::Nothing,
        }
    }

    /// Every primary must answer.
    async fn ping(&mut self) -> redis::RedisResult<redis::Value> {
        let every_primary = RoutingInfo::MultiNode((
            MultipleNodeRoutingInfo::AllMasters,
            Some(ResponsePolicy::AllSucceeded),
        ));
        self.connection
            .route_command(redis::cmd("PING"), every_primary)
            .await
    }
}

const FIRST_RETRY: Duration = Duration::from_millis(50);
const LAST_RETRY: Duration = Duration::from_secs(1);

/// The feed task: runs until the store is dropped. It applies what
/// `feed` hears in order and pings at every heartbeat; after a loss it
/// subscribes again (before reloading: a change made during the reload
/// arrives on the feed and is applied after it), then reloads everything
/// served here before it counts the store reachable again.
pub(super) async fn run<S: Vocabulary>(
    store: Weak<Inner<S>>,
    mut feed: impl Subscription,
    heartbeat: Duration,
) {
    let mut first = true;
    let mut retry = FIRST_RETRY;
    loop {
        if !std::mem::take(&mut first) {
            tokio::time::sleep(retry).await;
            retry = (retry * 2).min(LAST_RETRY);
            let again = tokio::time::timeout(heartbeat * 4, feed.resubscribe()).await;
            if !matches!(again, Ok(true)) {
                continue;
            }
            let Some(inner) = store.upgrade() else { return };
            if !inner.recovered().await {
                continue;
            }
        }
        retry = FIRST_RETRY;
        let mut ticks = tokio::time::interval(heartbeat);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let lost = loop {
            tokio::select! {
                heard = feed.next() => match heard {
                    Heard::Message(payload) => {
                        let Some(inner) = store.upgrade() else { return };
                        if let Err(error) = inner.handle(&payload).await {
                            break error.to_string();
                        }
                    }
                    Heard::Nothing => {}
                    Heard::Lost(why) => break why,
                    Heard::Closed => return,
                },
                _ = ticks.tick() => {
                    let ping = tokio::time::timeout(heartbeat, feed.ping()).await;
                    let Some(inner) = store.upgrade() else { return };
                    if let Err(lost) = inner.heard(ping, heartbeat).await {
                        break lost;
                    }
                }
            }
        };
        announce_loss(&lost);
    }
}

/// Says the feed was lost, and why; requests are served for at most the
/// grace period from now on.
fn announce_loss(why: &str) {
    telemetry::store_up(false);
    tracing::warn!(
        error = %why,
        "lost the profile store; serving the profiles last applied for at most the grace period"
    );
}

impl<S: Vocabulary> Inner<S> {
    /// A heartbeat's `ping` (given `heartbeat` to answer) answered: renews
    /// this instance's name among the live ones, and only then counts it a
    /// contact (so the name lapses only after the grace period this contact
    /// opens: see `fleet`). `Err` says why the feed is lost.
    async fn heard(
        &self,
        ping: Result<redis::RedisResult<redis::Value>, tokio::time::error::Elapsed>,
        heartbeat: Duration,
    ) -> Result<(), String> {
        match ping {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => return Err(error.to_string()),
            Err(_) => return Err(format!("no answer to a ping within {heartbeat:?}")),
        }
        self.renew().await.map_err(|error| error.to_string())?;
        self.health.ok();
        Ok(())
    }

    /// After a loss, once subscribed again: reloads everything served here;
    /// whether it could.
    async fn recovered(&self) -> bool {
        let reloaded = match self.reload().await {
            Ok(principals) => self.renew().await.map(|()| principals),
            Err(error) => Err(error),
        };
        match reloaded {
            Ok(principals) => {
                telemetry::reload(true);
                telemetry::store_up(true);
                self.health.ok();
                tracing::info!(principals, "profile store reachable again; reloaded");
                true
            }
            Err(error) => {
                telemetry::reload(false);
                tracing::warn!(%error, "reloading from the profile store failed");
                false
            }
        }
    }

    /// Applies one feed message. `Err` when Redis could not be asked about
    /// a gap: the caller reconnects, and the reload catches up.
    async fn handle(&self, payload: &[u8]) -> Result<(), StoreError> {
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
            // Every message before it is handled: see `fleet`.
            Change::Probe {
                origin,
                probe,
                channel,
            } => self.answer_probe(origin, probe, &channel),
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

    /// Makes the kill switch and every principal and token served here
    /// what Redis says now; how many principals were reloaded.
    async fn reload(&self) -> Result<usize, StoreError> {
        self.reload_kill_switch().await?;
        let served = self.local.versions();
        for (principal, _) in &served {
            let fetched = self.fetch(principal).await?;
            self.apply_fetched(principal, fetched, Apply::Reset);
        }
        let known: Vec<(String, String)> = self
            .lock_known()
            .iter()
            .map(|(digest, token)| (digest.clone(), token.clone()))
            .collect();
        for (digest, token) in known {
            let named = self.token_principal(&digest).await?;
            let here = self.local.principal(&token);
            if named.is_none() || here.as_ref().map(|p| p.name()) != named.as_deref() {
                self.revoke_local(&digest);
            }
        }
        Ok(served.len())
    }
}
