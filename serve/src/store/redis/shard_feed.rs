//! The change feed on a cluster: every shard's channel subscribed
//! (`SSUBSCRIBE`) on its slot's primary, over one plain RESP3 connection
//! per primary that this module keeps itself.
//!
//! **Why not the cluster client.** redis-rs's cluster connection reports
//! a closed connection to one node as a push that does not say which node
//! (so every shard's feed had to count as lost when any primary failed),
//! and its subscriptions wait on its slot refresh, which polls nothing
//! while any primary is down. Healthy shards were then refused past a
//! short grace period about one failover in two. Here each connection
//! knows the shards subscribed on it: a primary's failure loses exactly
//! its shards, which are subscribed to again on their new primary (found
//! through [`Primaries`]' slot table) while the others are followed on.

use std::collections::HashMap;
use std::time::Duration;

use redis::aio::{AsyncPushSender, MultiplexedConnection, SendError};
use redis::{PushInfo, PushKind};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::feed::{Heard, Subscription};
use super::primaries::Primaries;
use super::scripts::{Keys, Shard};

/// Every shard's channel on a cluster, each on its slot's primary.
pub(super) struct Shards {
    primaries: Primaries,
    keys: Keys,
    /// Each shard's channel name: where a message was heard.
    channels: HashMap<Vec<u8>, Shard>,
    /// The live connections by node (`HOST:PORT`).
    links: HashMap<String, Link>,
    /// What every connection hears, tagged with the connection's id:
    /// each connection's sender is a clone of `sender`.
    sender: UnboundedSender<Tagged>,
    heard: UnboundedReceiver<Tagged>,
    /// The next connection's id: a closed connection's last pushes are
    /// never taken for its successor's.
    next_id: u64,
}

/// One primary's connection and the shards subscribed on it.
struct Link {
    id: u64,
    connection: MultiplexedConnection,
    shards: Vec<Shard>,
}

/// A push and the id of the connection that heard it.
type Tagged = (u64, PushInfo);

/// Tags each push of one connection with the connection's id.
struct Tagging {
    id: u64,
    sender: UnboundedSender<Tagged>,
}

impl AsyncPushSender for Tagging {
    fn send(&self, info: PushInfo) -> Result<(), SendError> {
        self.sender.send((self.id, info)).map_err(|_| SendError)
    }
}

impl Shards {
    /// Subscribed to every shard's channel of `keys` it could, each on the
    /// primary `primaries` names for it, within `within`, and the shards
    /// it could not (their primaries out of reach: the store starts with
    /// them lost). `Err` when it could subscribe to none.
    pub(super) async fn subscribe(
        primaries: Primaries,
        keys: Keys,
        within: Duration,
    ) -> Result<(Shards, Vec<Shard>), String> {
        let channels = keys
            .shards()
            .into_iter()
            .map(|shard| (keys.channel(shard).into_bytes(), shard))
            .collect();
        let (sender, heard) = unbounded_channel();
        let mut shards = Shards {
            primaries,
            keys,
            channels,
            links: HashMap::new(),
            sender,
            heard,
            next_id: 0,
        };
        let mut missing = shards.keys.shards();
        let subscribed = shards.resubscribe(missing.clone(), within).await;
        if subscribed.is_empty() {
            return Err("no shard's channel could be subscribed to on its primary".to_owned());
        }
        missing.retain(|shard| !subscribed.contains(shard));
        Ok((shards, missing))
    }

    /// A connection to `node` made for `id`, given `within`.
    fn connect(
        &self,
        node: &str,
        id: u64,
        within: Duration,
    ) -> impl Future<Output = Option<MultiplexedConnection>> + Send + 'static {
        let url = format!("{}/?protocol=resp3", self.primaries.url_of(node));
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(within))
            .set_response_timeout(Some(within))
            .set_push_sender(Tagging {
                id,
                sender: self.sender.clone(),
            });
        async move {
            let client = redis::Client::open(url).ok()?;
            client
                .get_multiplexed_async_connection_with_config(&config)
                .await
                .ok()
        }
    }

    /// The node and link whose connection is `id`.
    fn link_of(&mut self, id: u64) -> Option<(&String, &mut Link)> {
        self.links.iter_mut().find(|(_, link)| link.id == id)
    }
}

impl Subscription for Shards {
    /// Each on its slot's primary now: the primaries first (a table read),
    /// then a connection to each primary without one, then every
    /// `SSUBSCRIBE` at once, each step given `within`.
    async fn resubscribe(&mut self, shards: Vec<Shard>, within: Duration) -> Vec<Shard> {
        let asked = shards.len();
        let owners = futures_util::future::join_all(shards.into_iter().map(|shard| {
            let primaries = self.primaries.clone();
            let channel = self.keys.channel(shard);
            async move {
                let owner = tokio::time::timeout(within, primaries.primary_of(channel.as_bytes()));
                match owner.await {
                    Ok(Ok(node)) => Some((shard, node)),
                    _ => None,
                }
            }
        }))
        .await;
        let owners: Vec<(Shard, String)> = owners.into_iter().flatten().collect();

        let mut missing: Vec<&String> = owners
            .iter()
            .map(|(_, node)| node)
            .filter(|node| !self.links.contains_key(*node))
            .collect();
        missing.sort();
        missing.dedup();
        let first_id = self.next_id;
        self.next_id += missing.len() as u64;
        let connecting = missing.into_iter().zip(first_id..).map(|(node, id)| {
            let connected = self.connect(node, id, within);
            async move { (node.clone(), id, connected.await) }
        });
        for (node, id, connected) in futures_util::future::join_all(connecting).await {
            match connected {
                Some(connection) => {
                    self.links.insert(
                        node,
                        Link {
                            id,
                            connection,
                            shards: Vec::new(),
                        },
                    );
                }
                None => self.primaries.misrouted(),
            }
        }

        let subscribing = owners.into_iter().filter_map(|(shard, node)| {
            let mut connection = self.links.get(&node)?.connection.clone();
            let mut ssubscribe = redis::cmd("SSUBSCRIBE");
            ssubscribe.arg(self.keys.channel(shard));
            Some(async move {
                let done = tokio::time::timeout(within, ssubscribe.exec_async(&mut connection));
                matches!(done.await, Ok(Ok(()))).then_some((shard, node))
            })
        });
        let subscribed: Vec<(Shard, String)> = futures_util::future::join_all(subscribing)
            .await
            .into_iter()
            .flatten()
            .collect();
        for (shard, node) in &subscribed {
            // Subscribed here now: a move heard from its old primary no
            // longer loses it.
            for link in self.links.values_mut() {
                link.shards.retain(|held| held != shard);
            }
            if let Some(link) = self.links.get_mut(node) {
                link.shards.push(*shard);
            }
        }
        // A node that is no shard's primary any more (a failed primary
        // back as a replica) keeps no connection.
        self.links.retain(|_, link| !link.shards.is_empty());
        if subscribed.len() < asked {
            self.primaries.misrouted();
        }
        subscribed.into_iter().map(|(shard, _)| shard).collect()
    }

    /// A connection's close loses the shards subscribed on it; a shard's
    /// channel moved away (`SUNSUBSCRIBE` from the server) loses that shard.
    async fn next(&mut self) -> Heard {
        let Some((id, push)) = self.heard.recv().await else {
            return Heard::Closed;
        };
        let mut data = push.data.into_iter();
        let channel = match data.next() {
            Some(redis::Value::BulkString(channel)) => self.channels.get(&channel).copied(),
            _ => None,
        };
        match push.kind {
            PushKind::SMessage => match (channel, data.next()) {
                (Some(shard), Some(redis::Value::BulkString(payload))) => {
                    Heard::Message(shard, payload)
                }
                _ => Heard::Nothing,
            },
            PushKind::Disconnection => {
                let Some(node) = self.link_of(id).map(|(node, _)| node.clone()) else {
                    return Heard::Nothing;
                };
                self.primaries.misrouted();
                let lost = self.links.remove(&node).map(|link| link.shards);
                Heard::Lost(
                    lost.unwrap_or_default(),
                    "the change feed's connection to a primary closed".to_owned(),
                )
            }
            PushKind::SUnsubscribe => {
                let (Some(shard), Some((_, link))) = (channel, self.link_of(id)) else {
                    return Heard::Nothing;
                };
                if !link.shards.contains(&shard) {
                    return Heard::Nothing;
                }
                link.shards.retain(|held| *held != shard);
                self.primaries.misrouted();
                Heard::Lost(
                    vec![shard],
                    "a shard's channel moved to another node".to_owned(),
                )
            }
            _ => Heard::Nothing,
        }
    }

    /// Nothing to check here: each shard's renewal reaches its primary,
    /// and a closed connection is heard.
    async fn ping(&mut self, _: Duration) -> Result<(), String> {
        Ok(())
    }
}
