//! The in-memory store: an `Arc<ProfileStore>` is an [`AgentStore`] of one
//! process, versions counted per principal from 1 and never repeated (a
//! removal counts as one, as in Redis). Each change and its audit record
//! are made with the store's audit log held, so records come in the order
//! of the changes and a change is never seen without its record.

use std::sync::Arc;

use mcp_profiles::{ProfileContext, Vocabulary};

#[cfg(feature = "runtime-tools")]
use super::catalogs::{self, CatalogChange, StoredCatalog};
#[cfg(feature = "runtime-tools")]
use super::decode_catalog;
use super::kill::{self, StoredKillSwitch};
use super::{AgentChange, AgentStore, StoreError, StoreFuture, StoredAgent, Written, stored};
use crate::ProfileStore;
#[cfg(feature = "runtime-tools")]
use crate::UnknownPrincipal;
#[cfg(feature = "runtime-tools")]
use crate::agents::CatalogRefusal;
use crate::audit::states;
#[cfg(feature = "runtime-tools")]
use crate::audit::states::CatalogSummary;
use crate::audit::{Attribution, AuditEntry, AuditKind, AuditQuery, AuditRecord};

/// The in-memory store: one process, versions counted per principal from 1
/// and never repeated (a removal counts as one, as in Redis).
impl<S: Vocabulary> AgentStore<S> for Arc<ProfileStore<S>> {
    fn put_agent_if<'a>(
        &'a self,
        principal: &'a str,
        context: ProfileContext<S>,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<AgentChange<S>>> {
        Box::pin(async move {
            self.audit_log()
                .record(|| {
                    let (_, replacement, version) = self
                        .put_if(principal, context, expected)
                        .map_err(|current| StoreError::Conflict {
                            principal: principal.to_owned(),
                            current,
                        })?;
                    let before = replacement.as_ref().map(|replacement| {
                        let old = replacement.old.context();
                        (states::profile(old, Some(version - 1)), *old)
                    });
                    let (added, removed) = states::changed(
                        &before
                            .as_ref()
                            .map_or_else(Vec::new, |(_, old)| states::compiled_tools(old)),
                        &states::compiled_tools(&context),
                    );
                    let entry = AuditEntry::new(by, AuditKind::ProfilePut, Some(principal))
                        .with_before(before.map_or(serde_json::Value::Null, |(state, _)| state))
                        .with_after(states::profile(&context, Some(version)))
                        .with_tools(added, removed);
                    let change = AgentChange {
                        agent: stored(principal, context, version),
                        changed: replacement.is_none_or(|replacement| replacement.changed()),
                    };
                    Ok((change, Some(entry)))
                })
                .map(Written::unreplicated)
        })
    }

    fn agent<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredAgent<S>>> {
        Box::pin(async move {
            let key = crate::identity::Principal::new(principal);
            let Some(controller) = self.controller(&key) else {
                return Ok(None);
            };
            let version = self.version(principal).unwrap_or_default();
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
            self.audit_log()
                .record(|| {
                    let version = self.version(principal);
                    let tokens = self.token_count(principal);
                    let Some(controller) = self.remove_agent(principal) else {
                        return Ok::<_, StoreError>((false, None));
                    };
                    let context = *controller.current().context();
                    let entry = AuditEntry::new(by, AuditKind::AgentDeleted, Some(principal))
                        .with_before(states::deleted(
                            &context,
                            version.unwrap_or_default(),
                            tokens,
                        ))
                        .with_tools(Vec::new(), states::compiled_tools(&context));
                    Ok((true, Some(entry)))
                })
                .map(Written::unreplicated)
        })
    }

    fn grant_token<'a>(
        &'a self,
        token: &'a str,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<()>> {
        Box::pin(async move {
            self.audit_log()
                .record(|| {
                    let named = self.principal(token);
                    if named
                        .as_ref()
                        .is_some_and(|named| named.name() == principal)
                    {
                        return Ok(((), None));
                    }
                    self.grant(token, principal)?;
                    let before = named.map_or(serde_json::Value::Null, |named| {
                        states::token(token, named.name())
                    });
                    let entry = AuditEntry::new(by, AuditKind::TokenGranted, Some(principal))
                        .with_before(before)
                        .with_after(states::token(token, principal));
                    Ok::<_, StoreError>(((), Some(entry)))
                })
                .map(Written::unreplicated)
        })
    }

    fn revoke_token<'a>(
        &'a self,
        token: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>> {
        Box::pin(async move {
            self.audit_log()
                .record(|| {
                    let Some(named) = self.principal(token) else {
                        return Ok::<_, StoreError>((false, None));
                    };
                    self.revoke(token);
                    let entry = AuditEntry::new(by, AuditKind::TokenRevoked, Some(named.name()))
                        .with_before(states::token(token, named.name()));
                    Ok((true, Some(entry)))
                })
                .map(Written::unreplicated)
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
            let catalog = decode_catalog(self.catalog_decoder(), principal, &wire)?;
            let summary = CatalogSummary::of(&catalog);
            self.audit_log()
                .record(|| {
                    let previous = self.catalog_summary(principal);
                    let (controller, installation, version) = self
                        .install_catalog_if(principal, wire, &catalog, expected)
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
                    let (added, removed) = states::changed(
                        previous
                            .as_ref()
                            .map_or(&[][..], |previous| &previous.tools),
                        &summary.tools,
                    );
                    let entry = AuditEntry::new(by, AuditKind::CatalogPut, Some(principal))
                        .with_before(states::catalog(previous.as_ref(), Some(version - 1)))
                        .with_after(states::catalog(Some(&summary), Some(version)))
                        .with_tools(added, removed);
                    let change = CatalogChange {
                        principal: principal.to_owned(),
                        version,
                        tools: catalogs::tool_names(&controller),
                        changed: installation.changed(),
                    };
                    Ok((change, Some(entry)))
                })
                .map(Written::unreplicated)
        })
    }

    #[cfg(feature = "runtime-tools")]
    fn catalog<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredCatalog>> {
        Box::pin(async move {
            Ok(self
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
            self.audit_log()
                .record(|| {
                    let (before, _) = self.kill_switch_in_force();
                    let (change, version) = self
                        .set_kill_switch_if(killed, expected)
                        .map_err(|current| StoreError::KillSwitchConflict { current })?;
                    // The killed tools grow as the agents' shrink.
                    let (killed_now, spared_now) = states::changed(
                        &states::denied_tools::<S, _>(before.names()),
                        &states::denied_tools::<S, _>(change.killed.names()),
                    );
                    let entry = AuditEntry::new(by, AuditKind::KillSwitch, None)
                        .with_before(states::kill_switch(before.names(), Some(version - 1)))
                        .with_after(states::kill_switch(change.killed.names(), Some(version)))
                        .with_tools(spared_now, killed_now);
                    Ok((StoredKillSwitch::of(change.killed, version), Some(entry)))
                })
                .map(Written::unreplicated)
        })
    }

    fn kill_switch(&self) -> StoreFuture<'_, Option<StoredKillSwitch>> {
        Box::pin(async move {
            // Read together: the version under the lock that moves both.
            let (killed, version) = self.kill_switch_in_force();
            Ok((version > 0).then(|| StoredKillSwitch::of(killed, version)))
        })
    }

    fn audit<'a>(&'a self, query: &'a AuditQuery) -> StoreFuture<'a, Vec<AuditRecord>> {
        Box::pin(async move { Ok(self.audit_log().query(query)) })
    }

    fn profiles(&self) -> &Arc<ProfileStore<S>> {
        self
    }
}
