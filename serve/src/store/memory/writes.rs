//! The in-memory store's writes: each checked, its audit record appended
//! and only then made (see [`MemoryStore`]).

use std::sync::Arc;

use mcp_profiles::{ProfileContext, Vocabulary};

#[cfg(feature = "runtime-tools")]
use super::super::catalogs::{self, CatalogChange, StoredCatalog};
#[cfg(feature = "runtime-tools")]
use super::super::decode_catalog;
use super::super::kill::{self, StoredKillSwitch};
use super::super::{
    AgentChange, AgentStore, StoreError, StoreFuture, StoredAgent, Written, stored,
};
use super::{Making, MemoryStore};
use crate::ProfileStore;
#[cfg(feature = "runtime-tools")]
use crate::UnknownPrincipal;
#[cfg(feature = "runtime-tools")]
use crate::agents::CatalogRefusal;
use crate::audit::states;
#[cfg(feature = "runtime-tools")]
use crate::audit::states::CatalogSummary;
use crate::audit::{Attribution, AuditEntry, AuditKind, AuditQuery, AuditRecord};

impl<S: Vocabulary> AgentStore<S> for MemoryStore<S> {
    fn put_agent_if<'a>(
        &'a self,
        principal: &'a str,
        context: ProfileContext<S>,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<AgentChange<S>>> {
        Box::pin(async move {
            self.recorded(|| {
                let (standing, version) = self.profiles.standing(principal);
                let current = standing.map_or(0, |(_, version)| version);
                if expected.is_some_and(|expected| expected != current) {
                    return Err(StoreError::Conflict {
                        principal: principal.to_owned(),
                        current,
                    });
                }
                let entry = states::profile_put(
                    by,
                    principal,
                    standing.as_ref().map(|(old, current)| (old, *current)),
                    (&context, version),
                );
                let make: Making<'_, _> = Box::new(move || {
                    let (_, replacement, version) = self
                        .profiles
                        .put_if(principal, context, Some(current))
                        .map_err(|current| StoreError::Conflict {
                            principal: principal.to_owned(),
                            current,
                        })?;
                    Ok(AgentChange {
                        agent: stored(principal, context, version),
                        changed: replacement.is_none_or(|replacement| replacement.changed()),
                    })
                });
                Ok((Some(entry), make))
            })
        })
    }

    fn agent<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredAgent<S>>> {
        Box::pin(async move {
            let key = crate::identity::Principal::new(principal);
            let Some(controller) = self.profiles.controller(&key) else {
                return Ok(None);
            };
            let version = self.profiles.version(principal).unwrap_or_default();
            Ok(Some(stored(
                principal,
                *controller.current().context(),
                version,
            )))
        })
    }

    fn delete_agent<'a>(
        &'a self,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>> {
        Box::pin(async move {
            self.recorded(|| {
                let (Some((context, version)), _) = self.profiles.standing(principal) else {
                    return Ok((None, unchanged(false)));
                };
                let tokens = self.profiles.token_count(principal);
                let entry = AuditEntry::new(by, AuditKind::AgentDeleted, Some(principal))
                    .with_before(states::deleted(&context, version, tokens))
                    .with_tools(Vec::new(), states::compiled_tools(&context));
                let make: Making<'_, _> =
                    Box::new(move || Ok(self.profiles.remove_agent(principal).is_some()));
                Ok((Some(entry), make))
            })
        })
    }

    fn grant_token<'a>(
        &'a self,
        token: &'a str,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<()>> {
        Box::pin(async move {
            self.recorded(|| {
                let named = self.profiles.principal(token);
                if named
                    .as_ref()
                    .is_some_and(|named| named.name() == principal)
                {
                    return Ok((None, unchanged(())));
                }
                if self.profiles.version(principal).is_none() {
                    return Err(crate::UnknownPrincipal::new(principal).into());
                }
                let before = named.map_or(serde_json::Value::Null, |named| {
                    states::token(token, named.name())
                });
                let entry = AuditEntry::new(by, AuditKind::TokenGranted, Some(principal))
                    .with_before(before)
                    .with_after(states::token(token, principal));
                let make: Making<'_, _> =
                    Box::new(move || Ok(self.profiles.grant(token, principal)?));
                Ok((Some(entry), make))
            })
        })
    }

    fn revoke_token<'a>(
        &'a self,
        token: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>> {
        Box::pin(async move {
            self.recorded(|| {
                let Some(named) = self.profiles.principal(token) else {
                    return Ok((None, unchanged(false)));
                };
                let entry = AuditEntry::new(by, AuditKind::TokenRevoked, Some(named.name()))
                    .with_before(states::token(token, named.name()));
                let make: Making<'_, _> = Box::new(move || {
                    self.profiles.revoke(token);
                    Ok(true)
                });
                Ok((Some(entry), make))
            })
        })
    }

    #[cfg(feature = "runtime-tools")]
    fn put_catalog_if<'a>(
        &'a self,
        principal: &'a str,
        wire: serde_json::Value,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<CatalogChange>> {
        Box::pin(async move {
            let catalog = decode_catalog(self.profiles.catalog_decoder(), principal, &wire)?;
            let summary = CatalogSummary::of(&catalog);
            self.recorded(|| {
                let Some((_, current)) = self.profiles.catalog_wire(principal) else {
                    return Err(UnknownPrincipal::new(principal).into());
                };
                if expected.is_some_and(|expected| expected != current) {
                    return Err(StoreError::Conflict {
                        principal: principal.to_owned(),
                        current,
                    });
                }
                // Refused before it is recorded, as the install would.
                catalogs::presentable(&self.profiles, &catalog)?;
                let previous = self.profiles.catalog_summary(principal);
                let (added, removed) = states::changed(
                    previous
                        .as_ref()
                        .map_or(&[][..], |previous| &previous.tools),
                    &summary.tools,
                );
                let entry = AuditEntry::new(by, AuditKind::CatalogPut, Some(principal))
                    .with_before(states::catalog(previous.as_ref(), Some(current)))
                    .with_after(states::catalog(Some(&summary), Some(current + 1)))
                    .with_tools(added, removed);
                let make: Making<'_, _> = Box::new(move || {
                    let (controller, installation, version) = self
                        .profiles
                        .install_catalog_if(principal, wire, &catalog, Some(current))
                        .map_err(|refusal| match refusal {
                            CatalogRefusal::NoAgent => UnknownPrincipal::new(principal).into(),
                            CatalogRefusal::Conflict(current) => StoreError::Conflict {
                                principal: principal.to_owned(),
                                current,
                            },
                            CatalogRefusal::Presented(refused) => {
                                catalogs::not_presentable(&refused)
                            }
                        })?;
                    Ok(CatalogChange {
                        principal: principal.to_owned(),
                        version,
                        tools: catalogs::tool_names(&controller),
                        changed: installation.changed(),
                    })
                });
                Ok((Some(entry), make))
            })
        })
    }

    #[cfg(feature = "runtime-tools")]
    fn catalog<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredCatalog>> {
        Box::pin(async move {
            Ok(self
                .profiles
                .catalog_wire(principal)
                .map(|(wire, version)| StoredCatalog {
                    principal: principal.to_owned(),
                    wire,
                    version,
                }))
        })
    }

    fn put_kill_switch_if<'a>(
        &'a self,
        names: &'a [String],
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<StoredKillSwitch>> {
        Box::pin(async move {
            let killed = kill::deny_list::<S, _>(names)?;
            self.recorded(|| {
                let (before, current) = self.profiles.kill_switch_in_force();
                if expected.is_some_and(|expected| expected != current) {
                    return Err(StoreError::KillSwitchConflict { current });
                }
                // The killed tools grow as the agents' shrink.
                let (killed_now, spared_now) = states::changed(
                    &states::denied_tools::<S, _>(before.names()),
                    &states::denied_tools::<S, _>(killed.names()),
                );
                let entry = AuditEntry::new(by, AuditKind::KillSwitch, None)
                    .with_before(states::kill_switch(before.names(), Some(current)))
                    .with_after(states::kill_switch(killed.names(), Some(current + 1)))
                    .with_tools(spared_now, killed_now);
                let make: Making<'_, _> = Box::new(move || {
                    let (change, version) = self
                        .profiles
                        .set_kill_switch_if(killed, Some(current))
                        .map_err(|current| StoreError::KillSwitchConflict { current })?;
                    Ok(StoredKillSwitch::of(change.killed, version))
                });
                Ok((Some(entry), make))
            })
        })
    }

    fn kill_switch(&self) -> StoreFuture<'_, Option<StoredKillSwitch>> {
        Box::pin(async move {
            // Read together: the version under the lock that moves both.
            let (killed, version) = self.profiles.kill_switch_in_force();
            Ok((version > 0).then(|| StoredKillSwitch::of(killed, version)))
        })
    }

    fn audit<'a>(&'a self, query: &'a AuditQuery) -> StoreFuture<'a, Vec<AuditRecord>> {
        Box::pin(async move {
            self.trail
                .query(query)
                .map_err(|error| StoreError::Unavailable(format!("the audit trail: {error}")))
        })
    }

    fn decisions<'a>(
        &'a self,
        query: &'a AuditQuery,
    ) -> StoreFuture<'a, Vec<crate::audit::decisions::DecisionRecord>> {
        Box::pin(async move {
            match self.decision_trail.as_deref() {
                Some(trail) => trail.query(query).map_err(|error| {
                    StoreError::Unavailable(format!("the decision trail: {error}"))
                }),
                None => Ok(self
                    .profiles
                    .decision_log()
                    .map_or_else(Vec::new, |log| log.query(query))),
            }
        })
    }

    fn decisions_written(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let (Some(trail), Some(log)) =
                (self.decision_trail.as_deref(), self.profiles.decision_log())
            else {
                return Ok(());
            };
            let batch = log.drain(log.held());
            if batch.is_empty() {
                return Ok(());
            }
            trail.append(batch.clone()).map_err(|error| {
                // Kept to be shipped again (past the log's capacity, the
                // oldest dropped and counted).
                log.give_back(batch);
                StoreError::Unavailable(format!("the decision trail: {error}"))
            })
        })
    }

    fn profiles(&self) -> &Arc<ProfileStore<S>> {
        &self.profiles
    }
}

/// A write that changes nothing, answering `outcome`.
fn unchanged<'a, T: 'a>(outcome: T) -> Making<'a, T> {
    Box::new(move || Ok(outcome))
}
