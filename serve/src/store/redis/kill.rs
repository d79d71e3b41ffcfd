//! The operator's kill switch in Redis: the `P:kill` hash, put by one
//! script that checks the version, bumps it and publishes the list on the
//! feed; every instance applies it to its [`ProfileStore`](crate::ProfileStore)
//! (only newer versions), and loads it again on (re)connecting.

use super::scripts::PUT_KILL;
use super::{Inner, json_array, within};
use crate::agents::Apply;
use crate::audit::Attribution;
use crate::audit::states::denied_tools;
use crate::store::kill::{StoredKillSwitch, deny_list, deny_list_skipping_unknown};
use crate::store::{StoreError, Written};
use mcp_profiles::Vocabulary;

impl<S: Vocabulary> Inner<S> {
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
        put.key(self.keys.kill())
            .arg(json_array(&stored.names)?)
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
        let stored = StoredKillSwitch::new(stored.names, version);
        Ok(self.made(&put, stored, replication).await)
    }

    /// The kill switch as Redis holds it; `None` if it was never put.
    pub(super) async fn fetch_kill_switch(&self) -> Result<Option<StoredKillSwitch>, StoreError> {
        let mut connection = self.reads.clone();
        let command = redis::cmd("HMGET")
            .arg(self.keys.kill())
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
}
