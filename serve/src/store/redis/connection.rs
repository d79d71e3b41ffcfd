//! The ways a store reaches Redis, one server (a reconnecting connection)
//! or a cluster (routed by hash slot, by redis-rs's cluster client or
//! straight to each primary, see `primaries`), and the one way every
//! script runs on any: `EVALSHA` (loading the script on `NOSCRIPT`),
//! followed on the same connection by `WAIT` when replicas must confirm a
//! change before it is acknowledged.
//!
//! **Few commands in flight per cluster connection.** redis-rs drives each
//! cluster connection from one task that polls every command in flight,
//! and a command takes a read permit of the connection's topology lock
//! before tokio's cooperative budget (128 units a poll) is checked. With
//! dozens in flight (an audit read visits every shard's stream at once) the
//! budget runs out mid-poll: a command that has just taken its permit
//! yields, holding it. If that poll also starts a slot refresh (a `MOVED`
//! after a failover, a lost node), redis-rs polls nothing but the refresh
//! until it is done, and the refresh's write lock waits for that permit
//! forever: every later command on the connection times out (redis-rs
//! 1.8.1, seen after a failover as an audit trail unreadable for good). At
//! most [`IN_FLIGHT`] commands at once keep each poll well inside the
//! budget.

use std::sync::Arc;

use redis::aio::{ConnectionLike, ConnectionManager};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{Route, SingleNodeRoutingInfo, SlotAddr};
use redis::{Cmd, FromRedisValue, RedisFuture, RedisResult, Script, ToRedisArgs, Value};
use tokio::sync::Semaphore;

use super::primaries::Primaries;
use super::slot::slot;

/// The most commands (or pipelines) a cluster connection has in flight:
/// each costs its driving task a few budget units per attempt (the lock,
/// the node connection's queue, the answer), up to four attempts (three
/// retries), so eight stay under half the budget.
const IN_FLIGHT: usize = 8;

/// A command connection to one Redis or to a cluster (through redis-rs's
/// cluster client, or straight to each primary: see `primaries`).
#[derive(Clone)]
pub(super) enum Connection {
    Single(ConnectionManager),
    Cluster(ClusterLink),
    Primaries(Primaries),
}

/// A cluster connection with at most [`IN_FLIGHT`] commands on it at once
/// (see the module's documentation); clones share the limit.
#[derive(Clone)]
pub(super) struct ClusterLink {
    connection: ClusterConnection,
    in_flight: Arc<Semaphore>,
}

impl ClusterLink {
    pub fn new(connection: ClusterConnection) -> Self {
        ClusterLink {
            connection,
            in_flight: Arc::new(Semaphore::new(IN_FLIGHT)),
        }
    }

    /// `send` on a clone of the connection, once one of the in-flight
    /// places is free; the place is held until the answer (or the caller
    /// gives up).
    async fn limited<T>(
        &self,
        send: impl AsyncFnOnce(&mut ClusterConnection) -> RedisResult<T>,
    ) -> RedisResult<T> {
        let _place = self.in_flight.acquire().await.map_err(|_| {
            redis::RedisError::from((redis::ErrorKind::Client, "the connection was closed"))
        })?;
        let mut connection = self.connection.clone();
        send(&mut connection).await
    }
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Connection::Single(connection) => connection.req_packed_command(cmd),
            Connection::Cluster(link) => {
                Box::pin(link.limited(async |connection: &mut ClusterConnection| {
                    connection.req_packed_command(cmd).await
                }))
            }
            Connection::Primaries(primaries) => primaries.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Connection::Single(connection) => {
                connection.req_packed_commands(pipeline, offset, count)
            }
            Connection::Cluster(link) => Box::pin(link.limited(
                async move |connection: &mut ClusterConnection| {
                    connection
                        .req_packed_commands(pipeline, offset, count)
                        .await
                },
            )),
            Connection::Primaries(primaries) => {
                primaries.req_packed_commands(pipeline, offset, count)
            }
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Connection::Single(connection) => connection.get_db(),
            Connection::Cluster(link) => link.connection.get_db(),
            Connection::Primaries(primaries) => primaries.get_db(),
        }
    }
}

/// One script call: its keys and arguments, as `redis::ScriptInvocation`
/// takes them, kept so the call can be sent in a pipeline and sent again.
pub(super) struct Call<'s> {
    script: &'s Script,
    keys: Vec<Vec<u8>>,
    args: Vec<Vec<u8>>,
    /// The principal its record is of, if any.
    principal: Option<String>,
}

impl<'s> Call<'s> {
    pub fn new(script: &'s Script) -> Self {
        Call {
            script,
            keys: Vec::new(),
            args: Vec::new(),
            principal: None,
        }
    }

    /// Names the principal the call's record is of.
    pub fn of(&mut self, principal: &str) -> &mut Self {
        self.principal = Some(principal.to_owned());
        self
    }

    /// A call of `script` recording a second record after this call's: in
    /// the same trail, as the same actor in the same request (the audit
    /// keys and arguments every audited script starts with, see
    /// `scripts::AUDIT`), with the principal as its next argument (`""`
    /// for none).
    pub fn following<'t>(&self, script: &'t Script) -> Call<'t> {
        let mut call = Call::new(script);
        call.keys.extend(self.keys.iter().take(2).cloned());
        call.args.extend(self.args.iter().take(5).cloned());
        call.arg(self.principal.as_deref().unwrap_or(""));
        call
    }

    pub fn key(&mut self, key: impl ToRedisArgs) -> &mut Self {
        key.write_redis_args(&mut self.keys);
        self
    }

    pub fn arg(&mut self, arg: impl ToRedisArgs) -> &mut Self {
        arg.write_redis_args(&mut self.args);
        self
    }

    fn evalsha(&self) -> Cmd {
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(self.script.get_hash())
            .arg(self.keys.len())
            .arg(&self.keys)
            .arg(&self.args);
        cmd
    }

    /// The hash slot of the call's first key: where a cluster runs it.
    fn slot(&self) -> u16 {
        self.keys.first().map_or(0, |key| slot(key))
    }
}

impl Connection {
    /// Runs `call`; with `replicas > 0`, then `WAIT replicas wait_ms` on
    /// the same connection, and answers with how many replicas confirmed.
    /// A script not yet loaded on the node (a new or promoted primary) is
    /// loaded and the call sent again.
    pub async fn call<T: FromRedisValue>(
        &self,
        call: &Call<'_>,
        replicas: usize,
        wait_ms: u64,
    ) -> RedisResult<(T, usize)> {
        match self.call_once(call, replicas, wait_ms).await {
            Err(error)
                if error.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) =>
            {
                let mut connection = self.clone();
                call.script
                    .prepare_invoke()
                    .load_async(&mut connection)
                    .await?;
                self.call_once(call, replicas, wait_ms).await
            }
            outcome => outcome,
        }
    }

    async fn call_once<T: FromRedisValue>(
        &self,
        call: &Call<'_>,
        replicas: usize,
        wait_ms: u64,
    ) -> RedisResult<(T, usize)> {
        let mut connection = self.clone();
        if replicas == 0 {
            let answer = call.evalsha().query_async(&mut connection).await?;
            return Ok((answer, 0));
        }
        let mut pipeline = redis::pipe();
        pipeline
            .add_command(call.evalsha())
            .add_command(redis::cmd("WAIT").arg(replicas).arg(wait_ms).clone());
        let answers = self.on_slot(&pipeline, call.slot()).await?;
        let [answer, confirmed]: [Value; 2] = answers.try_into().map_err(|_| {
            redis::RedisError::from((
                redis::ErrorKind::Parse,
                "a pipeline of two answered otherwise",
            ))
        })?;
        let answer = T::from_redis_value(ok(answer)?)?;
        let confirmed = usize::from_redis_value(ok(confirmed)?)?;
        Ok((answer, confirmed))
    }

    /// Sends `pipeline` on one connection: to the primary of `slot` on a
    /// cluster. Each answer is as Redis gave it (an error one included).
    pub async fn on_slot(&self, pipeline: &redis::Pipeline, slot: u16) -> RedisResult<Vec<Value>> {
        let count = pipeline.cmd_iter().count();
        match self.clone() {
            Connection::Single(mut connection) => {
                connection.req_packed_commands(pipeline, 0, count).await
            }
            // Its first command's key names the slot.
            Connection::Primaries(mut primaries) => {
                primaries.req_packed_commands(pipeline, 0, count).await
            }
            Connection::Cluster(link) => {
                let route = SingleNodeRoutingInfo::SpecificNode(Route::new(slot, SlotAddr::Master));
                link.limited(async |connection: &mut ClusterConnection| {
                    connection
                        .route_pipeline(pipeline.clone(), 0, count, route)
                        .await
                })
                .await
            }
        }
    }
}

/// An answer, or the error Redis gave in its place.
fn ok(value: Value) -> RedisResult<Value> {
    match value {
        Value::ServerError(error) => Err(error.into()),
        value => Ok(value),
    }
}
