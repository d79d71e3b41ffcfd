//! The operator's kill switch in Redis: the `P:kill` hash, put by one
//! script that checks the version, bumps it and publishes the list on the
//! feed; every instance applies it to its [`ProfileStore`](crate::ProfileStore)
//! (only newer versions), and loads it again on (re)connecting.
//!
//! On a cluster the put is then copied into every principal's shard, each
//! copy published on its shard's channel: an instance that hears a
//! principal's shard (or reloads it) has the kill switch it must apply to
//! that principal, so the kill switch's own shard failing refuses no one
//! (only puts of the kill switch wait for it). A copy is never older than
//! the one it replaces; a shard not reached keeps its older copy until an
//! instance reloads it (after losing its feed: the reload repairs the copy
//! from the kill switch's own record) or the next put, its instances
//! meanwhile having heard the put on every other shard's channel.

use futures_util::future::join_all;

use super::connection::Call;
use super::scripts::{COPY_KILL, PUT_KILL, Shard};
use super::{RedisStore, json_array, within};
use crate::agents::Apply;
use crate::audit::Attribution;
use crate::audit::states::denied_tools;
use crate::store::kill::{StoredKillSwitch, deny_list, deny_list_skipping_unknown};
use crate::store::{StoreError, Written};
use mcp_profiles::Vocabulary;

impl<S: Vocabulary> RedisStore<S> {
    /// Puts `names` as the kill switch if its version is `expected`
    /// (`None`: any), and applies it here at once.
    pub(super) async fn put_kill_switch(
        &self,
        names: &[String],
        expected: Option<u64>,
        by: &Attribution,
    ) -> Result<Written<StoredKillSwitch>, StoreError> {
        let killed = deny_list::<S, _>(names)?;
        let stored = StoredKillSwitch::of(killed, 0);
        let shard = self.keys.kill_shard();
        let mut put = self.audited(&PUT_KILL, by, shard);
        let names = json_array(&stored.names)?;
        put.key(self.keys.kill(shard))
            .arg(&names)
            .arg(self.keys.channel(shard))
            .arg(expected.map(|v| v.to_string()).unwrap_or_default())
            .arg(json_array(&denied_tools::<S, _>(&stored.names))?);
        let (outcome, replication): (i64, _) = self.run(&put).await?;
        let Ok(version) = u64::try_from(outcome) else {
            let current = u64::try_from(-1 - outcome).unwrap_or_default();
            return Err(StoreError::KillSwitchConflict { current });
        };
        // Here at once; the feed message that follows is then stale here.
        self.local
            .apply_kill_switch(killed, version, Apply::IfServed);
        self.copy_kill_switch(&names, version).await;
        let stored = StoredKillSwitch::new(stored.names, version);
        Ok(self.made(&put, stored, replication).await)
    }

    /// Copies the kill switch put at `version` into every principal's
    /// shard (on a cluster), all at once. Best effort: the put is made,
    /// recorded and in force whatever a copy meets (a copy only stands in
    /// for the put's own message to an instance that lost the kill
    /// switch's shard), and a shard not reached is most likely out of
    /// reach of instances too (its principals refused).
    async fn copy_kill_switch(&self, names: &str, version: u64) {
        let copy = async |shard: Shard| {
            let mut call = Call::new(&COPY_KILL);
            call.key(self.keys.kill(shard))
                .arg(self.keys.publish())
                .arg(self.keys.channel(shard))
                .arg(names)
                .arg(version);
            // No replica waited for: the put itself was, and a `WAIT`
            // blocks the node's connection, which a shard's primary
            // without a replica would hold for each copy in turn.
            self.run_waiting::<i64>(&call, 0).await
        };
        let shards = self.keys.kill_copies();
        let copied = join_all(shards.iter().map(|shard| copy(*shard))).await;
        for (shard, copied) in shards.iter().zip(copied) {
            if let Err(error) = copied {
                tracing::warn!(
                    ?shard,
                    version,
                    %error,
                    "the kill switch could not be copied into a shard; it keeps an older copy until the next put"
                );
            }
        }
    }

    /// The kill switch as Redis holds it; `None` if it was never put.
    pub(super) async fn fetch_kill_switch(&self) -> Result<Option<StoredKillSwitch>, StoreError> {
        self.fetch_kill_copy(self.keys.kill_shard()).await
    }

    /// The kill switch as `shard` holds it (its own, or a copy); `None` if
    /// none was put there.
    async fn fetch_kill_copy(&self, shard: Shard) -> Result<Option<StoredKillSwitch>, StoreError> {
        let mut connection = self.reads.clone();
        let command = redis::cmd("HMGET")
            .arg(self.keys.kill(shard))
            .arg("names")
            .arg("version")
            .clone();
        let (names, version): (Option<String>, Option<u64>) =
            within(self.timeout, command.query_async(&mut connection))
                .await?
                .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        let Some(version) = version else {
            return Ok(None);
        };
        let names: Vec<String> = match names.as_deref().map(serde_json::from_str).transpose() {
            Ok(names) => names.unwrap_or_default(),
            Err(error) => {
                return Err(StoreError::Corrupt(format!("the kill switch: {error}")));
            }
        };
        Ok(Some(StoredKillSwitch::new(names, version)))
    }

    /// Applies a kill switch as the feed or Redis reports it, as `how`
    /// allows; names this build does not know are skipped and reported.
    pub(super) fn apply_stored_kill_switch(&self, names: &[String], version: u64, how: Apply) {
        let killed = deny_list_skipping_unknown::<S>(names);
        self.local.apply_kill_switch(killed, version, how);
    }

    /// Makes the kill switch here what Redis says now. One Redis cannot
    /// read is refused (`Err`): the caller does not serve on it.
    pub(super) async fn reload_kill_switch(&self) -> Result<(), StoreError> {
        let stored = self.fetch_kill_switch().await.inspect_err(|error| {
            tracing::error!(%error, "cannot read the kill switch from the profile store");
        })?;
        let stored = stored.unwrap_or_else(|| StoredKillSwitch::new(Vec::new(), 0));
        self.apply_stored_kill_switch(&stored.names, stored.version, Apply::Reset);
        Ok(())
    }

    /// Loads the kill switch before serving: from its own shard, or on a
    /// cluster whose kill-switch shard is out of reach, from the newest
    /// copy the principals' shards hold (each put is copied into every
    /// one; the shard is lost, so its own is loaded once it is back).
    /// `Err` when neither can be read.
    pub(super) async fn load_kill_switch_at_start(&self) -> Result<(), StoreError> {
        let own = self.keys.kill_shard();
        let unread = if self.health.is_lost(own) {
            StoreError::Unavailable("the kill switch's shard is out of reach".to_owned())
        } else {
            match self.reload_kill_switch().await {
                Ok(()) => return Ok(()),
                Err(error) if self.keys.is_sharded() => error,
                Err(error) => return Err(error),
            }
        };
        let copies = self.keys.kill_copies();
        let read: Vec<Option<StoredKillSwitch>> =
            join_all(copies.iter().map(|shard| self.fetch_kill_copy(*shard)))
                .await
                .into_iter()
                .flatten()
                .collect();
        if read.is_empty() {
            tracing::error!(%unread, "cannot read the kill switch or any copy of it");
            return Err(unread);
        }
        self.lose(&[own], &unread.to_string());
        let newest = read
            .into_iter()
            .flatten()
            .max_by_key(|copy| copy.version)
            .unwrap_or_else(|| StoredKillSwitch::new(Vec::new(), 0));
        self.apply_stored_kill_switch(&newest.names, newest.version, Apply::Reset);
        Ok(())
    }

    /// Applies `shard`'s copy of the kill switch if it is newer than the
    /// one here: what the shard's feed may have missed while lost. On a
    /// cluster the copy is then repaired: a copy older than the kill
    /// switch's own record (a put whose copy missed the shard) is brought
    /// up to it, verbatim (names this build does not know included).
    pub(super) async fn reload_kill_copy(&self, shard: Shard) -> Result<(), StoreError> {
        let copy = self.fetch_kill_copy(shard).await?;
        let copied = copy.as_ref().map_or(0, |copy| copy.version);
        if let Some(copy) = copy {
            self.apply_stored_kill_switch(&copy.names, copy.version, Apply::IfServed);
        }
        if self.keys.is_sharded() {
            self.repair_kill_copy(shard, copied).await;
        }
        Ok(())
    }

    /// Best effort: the next put copies everywhere anyway. Only while the
    /// kill switch's own shard is followed and heard: the feed task runs
    /// this, and must not wait out a timeout per shard on a node that is
    /// gone.
    async fn repair_kill_copy(&self, shard: Shard, copied: u64) {
        let own_shard = self.keys.kill_shard();
        if self.health.is_lost(own_shard) || self.health.serving(own_shard).is_err() {
            return;
        }
        let own = match self.fetch_kill_switch().await {
            Ok(Some(own)) if own.version > copied => own,
            Ok(_) => return,
            Err(error) => {
                tracing::debug!(%error, "the kill switch's own record could not be read to repair a copy");
                return;
            }
        };
        self.apply_stored_kill_switch(&own.names, own.version, Apply::IfServed);
        // Straight to the shard's primary, as the reload's reads: the feed
        // task runs this, and must not wait on the cluster client.
        let repaired = async {
            let names = json_array(&own.names)?;
            let mut copy = COPY_KILL.prepare_invoke();
            copy.key(self.keys.kill(shard))
                .arg(self.keys.publish())
                .arg(self.keys.channel(shard))
                .arg(names)
                .arg(own.version);
            let mut connection = self.reads.clone();
            within(self.timeout, copy.invoke_async::<i64>(&mut connection))
                .await?
                .map_err(|error| StoreError::Unavailable(error.to_string()))
        };
        match repaired.await {
            Ok(_) => tracing::info!(
                ?shard,
                from = copied,
                to = own.version,
                "repaired a shard's copy of the kill switch"
            ),
            Err(error) => {
                tracing::debug!(%error, ?shard, "could not repair a shard's copy of the kill switch")
            }
        }
    }
}
