//! Plain connections to a cluster's primaries, routed by hash slot with a
//! slot table of our own: what the heartbeat and the reads of a shard's
//! reload go through, so that neither waits on redis-rs's cluster client.
//!
//! **Why not the cluster client.** While any primary is down, redis-rs
//! 1.8's cluster connection refreshes its slot map again and again until
//! the cluster has failed over, and polls no request meanwhile (the
//! refresh holds its topology lock): a request to a healthy primary waits
//! as long as one to the dead one. Measured, every shard's heartbeat went
//! unanswered for about 1 s of a 2.6 s failover, so a grace period shorter
//! than that refused every principal, not only the failed shard's. Here a
//! request waits only on its own primary: the table is read under a
//! mutex never held across an `await`, and refreshed (`CLUSTER SLOTS`,
//! asking the nodes in turn) at most every [`REFRESH_EVERY`] after a
//! request failed; a request waits on a refresh only when it is due one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::{Cmd, RedisError, RedisFuture, RedisResult, Value};

use super::slot::slot;

/// The shortest time between two refreshes of the slot table.
const REFRESH_EVERY: Duration = Duration::from_millis(100);

/// A cluster's primaries by slot; clones share the table and connections.
#[derive(Clone)]
pub(super) struct Primaries {
    shared: Arc<Shared>,
    /// The node the last command of this clone went to: where a command
    /// without a key (`SCRIPT LOAD` after `NOSCRIPT`) goes.
    last: Option<String>,
}

struct Shared {
    /// `redis://` or `redis://CREDENTIALS@`: what a node's URL starts with.
    scheme: String,
    /// Nodes to ask for the slot table when none of the table's answers.
    seeds: Vec<String>,
    timeout: Duration,
    table: Mutex<Table>,
    /// Held while the table is read from the cluster: one refresh at a
    /// time, and those due meanwhile take its result.
    refreshing: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Table {
    /// `(first, last, "host:port")` per range of slots a primary serves.
    ranges: Vec<(u16, u16, String)>,
    connections: HashMap<String, MultiplexedConnection>,
    /// A request failed since the last refresh.
    stale: bool,
    refreshed: Option<Instant>,
}

impl Primaries {
    /// The primaries of the cluster whose seed URLs are `urls`
    /// (`redis://[CREDENTIALS@]HOST:PORT`), each request and connection
    /// given `timeout`; the table is read on first use.
    pub fn new(urls: &[String], timeout: Duration) -> Self {
        let scheme = urls
            .first()
            .and_then(|url| url.rfind('@').map(|at| url[..=at].to_owned()))
            .unwrap_or_else(|| "redis://".to_owned());
        let seeds = urls
            .iter()
            .map(|url| {
                url.rsplit('@')
                    .next()
                    .unwrap_or(url)
                    .trim_start_matches("redis://")
                    .to_owned()
            })
            .collect();
        Primaries {
            shared: Arc::new(Shared {
                scheme,
                seeds,
                timeout,
                table: Mutex::new(Table {
                    stale: true,
                    ..Table::default()
                }),
                refreshing: tokio::sync::Mutex::new(()),
            }),
            last: None,
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.shared.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The node serving `slot`, refreshing the table first when it was
    /// never read or a request failed since (at most every
    /// [`REFRESH_EVERY`]). Callers due at once wait on one refresh.
    async fn owner(&self, slot: u16) -> RedisResult<String> {
        let due = |table: &Table| {
            table.ranges.is_empty()
                || (table.stale
                    && table
                        .refreshed
                        .is_none_or(|at| at.elapsed() >= REFRESH_EVERY))
        };
        let seen = {
            let table = self.table();
            due(&table).then_some(table.refreshed)
        };
        if let Some(seen) = seen {
            let _refreshing = self.shared.refreshing.lock().await;
            // Refreshed by another caller while this one waited: read that.
            if self.table().refreshed == seen {
                self.refresh().await;
            }
        }
        let table = self.table();
        table
            .ranges
            .iter()
            .find(|(first, last, _)| (*first..=*last).contains(&slot))
            .map(|(_, _, node)| node.clone())
            .ok_or_else(|| unreachable(format!("no primary is known for hash slot {slot}")))
    }

    /// The node serving `key`'s hash slot as the table says (read again
    /// first when a request failed since): what the feed subscribes to a
    /// shard's channel on.
    pub fn primary_of(&self, key: &[u8]) -> impl Future<Output = RedisResult<String>> + Send + '_ {
        self.owner(slot(key))
    }

    /// The URL of `node` (`HOST:PORT`), with the cluster's credentials.
    pub fn url_of(&self, node: &str) -> String {
        format!("{}{node}", self.shared.scheme)
    }

    /// A request the table routed was refused or unanswered elsewhere (a
    /// subscription): read the table again before the next.
    pub fn misrouted(&self) {
        self.table().stale = true;
    }

    /// Reads the slot table from the first node that answers: the table's
    /// own nodes first, then the seeds.
    async fn refresh(&self) {
        let candidates: Vec<String> = {
            let mut table = self.table();
            table.refreshed = Some(Instant::now());
            let mut nodes: Vec<String> = table
                .ranges
                .iter()
                .map(|(_, _, node)| node.clone())
                .collect();
            nodes.extend(self.shared.seeds.iter().cloned());
            nodes.dedup();
            nodes
        };
        for node in candidates {
            let Ok(mut connection) = self.connect(&node).await else {
                continue;
            };
            let mut slots = redis::cmd("CLUSTER");
            slots.arg("SLOTS");
            let asked = slots.query_async::<Value>(&mut connection);
            let Ok(Ok(answer)) = tokio::time::timeout(self.shared.timeout, asked).await else {
                self.forget(&node);
                continue;
            };
            let host = node.rsplit_once(':').map_or("", |(host, _)| host);
            if let Some(ranges) = ranges(answer, host) {
                let mut table = self.table();
                table.ranges = ranges;
                table.stale = false;
                return;
            }
        }
    }

    /// A connection to `node`, made if there is none.
    async fn connect(&self, node: &str) -> RedisResult<MultiplexedConnection> {
        if let Some(connection) = self.table().connections.get(node) {
            return Ok(connection.clone());
        }
        let client = redis::Client::open(format!("{}{node}", self.shared.scheme))?;
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.shared.timeout))
            .set_response_timeout(Some(self.shared.timeout));
        let connection = client
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        self.table()
            .connections
            .insert(node.to_owned(), connection.clone());
        Ok(connection)
    }

    /// `node`'s connection failed: made again next time, and the table
    /// read again.
    fn forget(&self, node: &str) {
        let mut table = self.table();
        table.connections.remove(node);
        table.stale = true;
    }

    /// Sends `send` to the primary of `key`'s slot. A command without a
    /// key (`SCRIPT LOAD` after `NOSCRIPT`) goes to the node the last
    /// command of this clone went to, or to every primary if none did.
    async fn routed(&mut self, key: Option<&[u8]>, request: Request<'_>) -> RedisResult<Answer> {
        let node = match (key, &self.last) {
            (Some(key), _) => self.owner(slot(key)).await?,
            (None, Some(last)) => last.clone(),
            (None, None) => return self.everywhere(request).await,
        };
        self.last = Some(node.clone());
        self.on(&node, request).await
    }

    /// Sends `send` to every primary the table knows: the last answer.
    async fn everywhere(&self, request: Request<'_>) -> RedisResult<Answer> {
        self.owner(0).await?;
        let mut nodes: Vec<String> = self
            .table()
            .ranges
            .iter()
            .map(|(_, _, node)| node.clone())
            .collect();
        nodes.sort();
        nodes.dedup();
        let mut answer = Err(unreachable("no primary is known".to_owned()));
        for node in nodes {
            answer = self.on(&node, request).await;
        }
        answer
    }

    /// Sends `send` to `node`; a failure makes the table be read again.
    async fn on(&self, node: &str, request: Request<'_>) -> RedisResult<Answer> {
        let mut connection = match self.connect(node).await {
            Ok(connection) => connection,
            Err(error) => {
                self.forget(node);
                return Err(error);
            }
        };
        let answer = match request {
            Request::One(cmd) => connection.req_packed_command(cmd).await.map(Answer::One),
            Request::Many(pipeline, offset, count) => connection
                .req_packed_commands(pipeline, offset, count)
                .await
                .map(Answer::Many),
        };
        if let Err(error) = &answer
            && !matches!(
                error.kind(),
                redis::ErrorKind::Server(redis::ServerErrorKind::NoScript)
            )
        {
            // Moved, refused, closed or silent: ask the cluster again.
            if error.is_io_error() || error.is_timeout() || error.is_connection_dropped() {
                self.forget(node);
            } else {
                self.table().stale = true;
            }
        }
        answer
    }
}

/// A command's first key: the fourth argument of `EVALSHA`/`EVAL`, the
/// second of any other command we send; `None` for `SCRIPT LOAD`.
fn first_key(cmd: &Cmd) -> Option<Vec<u8>> {
    let args: Vec<Vec<u8>> = cmd
        .args_iter()
        .filter_map(|arg| match arg {
            redis::Arg::Simple(bytes) => Some(bytes.to_vec()),
            _ => None,
        })
        .collect();
    let name = args.first()?.to_ascii_uppercase();
    match name.as_slice() {
        b"EVALSHA" | b"EVAL" => args.get(3).cloned(),
        b"SCRIPT" => None,
        _ => args.get(1).cloned(),
    }
}

/// What [`Primaries`] sends: one command, or a pipeline's commands from
/// `offset`, `count` of them.
#[derive(Clone, Copy)]
enum Request<'a> {
    One(&'a Cmd),
    Many(&'a redis::Pipeline, usize, usize),
}

/// A [`Request`]'s answer.
enum Answer {
    One(Value),
    Many(Vec<Value>),
}

fn mismatched() -> RedisError {
    RedisError::from((
        redis::ErrorKind::Client,
        "a request answered as another kind",
    ))
}

impl ConnectionLike for Primaries {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        Box::pin(async move {
            let key = first_key(cmd);
            match self.routed(key.as_deref(), Request::One(cmd)).await? {
                Answer::One(value) => Ok(value),
                Answer::Many(_) => Err(mismatched()),
            }
        })
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        Box::pin(async move {
            let key = pipeline.cmd_iter().next().and_then(first_key);
            let request = Request::Many(pipeline, offset, count);
            match self.routed(key.as_deref(), request).await? {
                Answer::Many(values) => Ok(values),
                Answer::One(_) => Err(mismatched()),
            }
        })
    }

    fn get_db(&self) -> i64 {
        0
    }
}

/// `CLUSTER SLOTS`' answer as `(first, last, "host:port")` per range; a
/// node that gives no host is `asked_host` (the node that answered).
fn ranges(answer: Value, asked_host: &str) -> Option<Vec<(u16, u16, String)>> {
    let Value::Array(entries) = answer else {
        return None;
    };
    let mut ranges = Vec::with_capacity(entries.len());
    for entry in entries {
        let Value::Array(fields) = entry else {
            return None;
        };
        let [
            Value::Int(first),
            Value::Int(last),
            Value::Array(primary),
            ..,
        ] = fields.as_slice()
        else {
            return None;
        };
        let host = match primary.first() {
            Some(Value::BulkString(host)) if !host.is_empty() => {
                String::from_utf8_lossy(host).into_owned()
            }
            _ => asked_host.to_owned(),
        };
        let Some(Value::Int(port)) = primary.get(1) else {
            return None;
        };
        ranges.push((
            u16::try_from(*first).ok()?,
            u16::try_from(*last).ok()?,
            format!("{host}:{port}"),
        ));
    }
    Some(ranges)
}

fn unreachable(why: String) -> RedisError {
    RedisError::from((redis::ErrorKind::Io, "cluster primary unreachable", why))
}

#[cfg(test)]
mod tests {
    use super::{first_key, ranges};
    use redis::Value;

    #[test]
    fn commands_are_routed_by_their_first_key() {
        let evalsha = redis::cmd("EVALSHA")
            .arg("abc")
            .arg(1)
            .arg("k{b1}")
            .arg("x")
            .clone();
        assert_eq!(first_key(&evalsha).as_deref(), Some(&b"k{b1}"[..]));
        let hmget = redis::cmd("HMGET").arg("agent").arg("context").clone();
        assert_eq!(first_key(&hmget).as_deref(), Some(&b"agent"[..]));
        let load = redis::cmd("SCRIPT").arg("LOAD").arg("return 1").clone();
        assert_eq!(first_key(&load), None);
    }

    #[test]
    fn cluster_slots_is_read_into_ranges() {
        let node = |host: &str, port| {
            Value::Array(vec![
                Value::BulkString(host.as_bytes().to_vec()),
                Value::Int(port),
                Value::BulkString(b"id".to_vec()),
            ])
        };
        let answer = Value::Array(vec![
            Value::Array(vec![
                Value::Int(0),
                Value::Int(5460),
                node("10.0.0.1", 7000),
                node("10.0.0.4", 7003),
            ]),
            Value::Array(vec![Value::Int(5461), Value::Int(16383), node("", 7001)]),
        ]);
        assert_eq!(
            ranges(answer, "127.0.0.1").unwrap(),
            [
                (0, 5460, "10.0.0.1:7000".to_owned()),
                (5461, 16383, "127.0.0.1:7001".to_owned())
            ]
        );
    }
}
