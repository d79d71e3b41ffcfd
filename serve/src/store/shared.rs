//! An `Arc` of a store is the store: what `RedisStore::connect` returns
//! and what a control API shares can be handed to anything taking an
//! [`AgentStore`] (`exposure_at(&store, ..)`, `answer_over(&store, ..)`).
//! And every store is what a [`ProfileStore`] it backs asks ([`Backed`]).

use std::sync::{Arc, Weak};

use mcp_profiles::{ProfileContext, Vocabulary};

use super::{
    AgentChange, AgentStore, Changed, Propagation, StoreFuture, StoredAgent, StoredKillSwitch,
    Written,
};
#[cfg(feature = "runtime-tools")]
use super::{CatalogChange, StoredCatalog};
use crate::agents::Backed;
use crate::audit::decisions::DecisionRecord;
use crate::audit::{Attribution, AuditQuery, AuditRecord};
use crate::{ProfileStore, ServingFuture, Unreachable};

/// Every method is the shared store's own, provided ones included.
impl<S: Vocabulary, T: AgentStore<S> + ?Sized> AgentStore<S> for Arc<T> {
    fn put_agent<'a>(
        &'a self,
        principal: &'a str,
        context: ProfileContext<S>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<AgentChange<S>>> {
        (**self).put_agent(principal, context, by)
    }

    fn put_agent_if<'a>(
        &'a self,
        principal: &'a str,
        context: ProfileContext<S>,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<AgentChange<S>>> {
        (**self).put_agent_if(principal, context, expected, by)
    }

    fn agent<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredAgent<S>>> {
        (**self).agent(principal)
    }

    fn delete_agent<'a>(
        &'a self,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>> {
        (**self).delete_agent(principal, by)
    }

    fn grant_token<'a>(
        &'a self,
        token: &'a str,
        principal: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<()>> {
        (**self).grant_token(token, principal, by)
    }

    fn revoke_token<'a>(
        &'a self,
        token: &'a str,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<bool>> {
        (**self).revoke_token(token, by)
    }

    #[cfg(feature = "runtime-tools")]
    fn put_catalog_if<'a>(
        &'a self,
        principal: &'a str,
        wire: serde_json::Value,
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<CatalogChange>> {
        (**self).put_catalog_if(principal, wire, expected, by)
    }

    #[cfg(feature = "runtime-tools")]
    fn catalog<'a>(&'a self, principal: &'a str) -> StoreFuture<'a, Option<StoredCatalog>> {
        (**self).catalog(principal)
    }

    fn put_kill_switch_if<'a>(
        &'a self,
        names: &'a [String],
        expected: Option<u64>,
        by: &'a Attribution,
    ) -> StoreFuture<'a, Written<StoredKillSwitch>> {
        (**self).put_kill_switch_if(names, expected, by)
    }

    fn kill_switch(&self) -> StoreFuture<'_, Option<StoredKillSwitch>> {
        (**self).kill_switch()
    }

    fn audit<'a>(&'a self, query: &'a AuditQuery) -> StoreFuture<'a, Vec<AuditRecord>> {
        (**self).audit(query)
    }

    fn decisions<'a>(&'a self, query: &'a AuditQuery) -> StoreFuture<'a, Vec<DecisionRecord>> {
        (**self).decisions(query)
    }

    fn decisions_written(&self) -> StoreFuture<'_, ()> {
        (**self).decisions_written()
    }

    fn profiles(&self) -> &Arc<ProfileStore<S>> {
        (**self).profiles()
    }

    fn serving(&self, principal: Option<&str>) -> Result<(), Unreachable> {
        (**self).serving(principal)
    }

    fn resolve<'a>(&'a self, token: &'a str) -> ServingFuture<'a> {
        (**self).resolve(token)
    }

    fn load<'a>(&'a self, principal: &'a str) -> ServingFuture<'a> {
        (**self).load(principal)
    }

    fn propagated<'a>(&'a self, changed: Changed<'a>) -> StoreFuture<'a, Propagation> {
        (**self).propagated(changed)
    }
}

impl<S: Vocabulary, T: AgentStore<S> + ?Sized> Backed<S> for T {
    fn serving(&self, principal: Option<&str>) -> Result<(), Unreachable> {
        AgentStore::serving(self, principal)
    }

    fn resolve<'a>(&'a self, token: &'a str) -> ServingFuture<'a> {
        AgentStore::resolve(self, token)
    }

    #[cfg(feature = "oauth")]
    fn load<'a>(&'a self, principal: &'a str) -> ServingFuture<'a> {
        AgentStore::load(self, principal)
    }
}

impl<S: Vocabulary> ProfileStore<S> {
    /// Makes this store the local copy of `backing`, the shared store it is
    /// the serving index of: asked for tokens not known here
    /// ([`AgentStore::resolve`], [`AgentStore::load`]) and whether the copy
    /// may still be served ([`AgentStore::serving`]), for as long as it
    /// lives (once it is dropped, requests are refused). Whether it was not
    /// backed yet: a store is backed at most once.
    pub fn back_with<T: AgentStore<S> + 'static>(&self, backing: &Arc<T>) -> bool {
        let backing: Weak<dyn Backed<S>> = Arc::downgrade(backing) as Weak<T>;
        self.set_backing(backing)
    }
}
