//! A [`ProfileStore`] as the local copy of a shared store: the public API a
//! store (Redis, or a user's own [`AgentStore`](crate::AgentStore)) drives.
//! The store is consulted for tokens not known here and for whether the
//! copy may still be served ([`Backed`]); it applies each change of the
//! shared store here, in its version order ([`ProfileStore::apply`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Weak;

#[cfg(feature = "runtime-tools")]
use mcp_profiles::{Catalog, CatalogDecoder, Installation, PresentationError};
use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};

use super::{Agent, ProfileStore};
use crate::identity::Principal;

/// Why a shared store cannot vouch for the local copy now: unreachable, or
/// gone. Requests are refused with this message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreachable {
    reason: String,
}

impl Unreachable {
    /// Refuses with `reason`, said to the client as it is.
    pub fn new(reason: impl Into<String>) -> Self {
        Unreachable {
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Unreachable {}

/// The future of [`AgentStore::resolve`](crate::AgentStore::resolve) and
/// [`AgentStore::load`](crate::AgentStore::load): `Err` says, as a request
/// is refused, why the shared store could not answer.
pub type ServingFuture<'a> = Pin<Box<dyn Future<Output = Result<(), Unreachable>> + Send + 'a>>;

/// What a [`ProfileStore`] asks of the shared store behind it: the serving
/// methods of [`AgentStore`](crate::AgentStore), which implements this for
/// every store (named here so that this module need not know the store's
/// other methods).
pub(crate) trait Backed<S>: Send + Sync {
    /// [`AgentStore::serving`](crate::AgentStore::serving).
    fn serving(&self, principal: Option<&str>) -> Result<(), Unreachable>;
    /// [`AgentStore::resolve`](crate::AgentStore::resolve).
    fn resolve<'a>(&'a self, token: &'a str) -> ServingFuture<'a>;
    /// [`AgentStore::load`](crate::AgentStore::load): asked only for an
    /// access token's principal.
    #[cfg(feature = "oauth")]
    fn load<'a>(&'a self, principal: &'a str) -> ServingFuture<'a>;
}

/// A principal's agent as a shared store holds it, or the part of it that
/// one change moved.
#[non_exhaustive]
pub enum AgentUpdate<S: Vocabulary> {
    /// Its profile was replaced; its catalog is unchanged.
    Context(ProfileContext<S>),
    /// All of it: the profile and the catalog (`None`: none, or one this
    /// instance cannot read, which is then not served).
    #[cfg(feature = "runtime-tools")]
    Whole(ProfileContext<S>, Option<Catalog<S>>),
}

impl<S: Vocabulary> std::fmt::Debug for AgentUpdate<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentUpdate::Context(context) => f.debug_tuple("Context").field(context).finish(),
            #[cfg(feature = "runtime-tools")]
            AgentUpdate::Whole(context, catalog) => f
                .debug_tuple("Whole")
                .field(context)
                .field(catalog)
                .finish(),
        }
    }
}

/// Which changes [`ProfileStore::apply`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Apply {
    /// A change of the feed: only for a principal served here, only newer.
    IfServed,
    /// A principal a token just named: created if missing, else only newer.
    Load,
    /// The shared store's state after a reconnect: whatever it says.
    Reset,
}

/// Why [`ProfileStore::install_catalog_if`] changed nothing.
#[cfg(feature = "runtime-tools")]
pub(crate) enum CatalogRefusal {
    /// The principal has no agent.
    NoAgent,
    /// The agent is at this version, not the one expected.
    Conflict(u64),
    /// Under the agent's name presentation, one of the catalog's tools
    /// would collide with another; the error names both.
    Presented(PresentationError),
}

impl<S: Vocabulary> ProfileStore<S> {
    /// Makes this store the local copy of `backing` (see
    /// [`back_with`](Self::back_with)); whether it was not backed yet.
    pub(crate) fn set_backing(&self, backing: Weak<dyn Backed<S>>) -> bool {
        self.backing.set(backing).is_ok()
    }

    /// Whether this store holds no agent and no token and mirrors no shared
    /// store yet: fit to become one's local copy.
    #[cfg(feature = "redis")]
    pub(crate) fn is_new(&self) -> bool {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        let tokens = self.tokens.read().unwrap_or_else(|e| e.into_inner());
        agents.is_empty() && tokens.is_empty() && self.backing.get().is_none()
    }

    /// The decoder of stored catalogs, if this store takes them.
    #[cfg(feature = "runtime-tools")]
    pub fn catalog_decoder(&self) -> Option<&CatalogDecoder<S>> {
        self.catalogs.as_ref()
    }

    /// Every principal with an agent here, and its version.
    pub fn versions(&self) -> Vec<(String, u64)> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        agents
            .iter()
            .map(|(principal, agent)| (principal.name().to_owned(), agent.version))
            .collect()
    }

    /// Applies version `version` of `principal`'s agent as a shared store
    /// reports it (`None`: removed, with every token naming it), as `how`
    /// allows; whether it changed anything here. Versions only move
    /// forward, except on [`Apply::Reset`]. Sessions of the principal get
    /// one `list_changed` each when what they see changed.
    pub fn apply(
        &self,
        principal: &str,
        version: u64,
        update: Option<AgentUpdate<S>>,
        how: Apply,
    ) -> bool {
        let _writing = self.write_lock();
        let key = Principal::new(principal);
        let controller = {
            let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
            let newer = match agents.get(&key) {
                None => {
                    let (Some(update), Apply::Load | Apply::Reset) = (update, how) else {
                        return false;
                    };
                    agents.insert(
                        key,
                        Agent::new(self.whole_controller(principal, update, version), version),
                    );
                    return true;
                }
                Some(agent) => {
                    (how == Apply::Reset && version != agent.version) || version > agent.version
                }
            };
            if !newer {
                return false;
            }
            match update {
                Some(update) => {
                    let agent = agents.get_mut(&key).expect("checked above");
                    agent.version = version;
                    Some((agent.controller.clone(), update))
                }
                None => None,
            }
        };
        let _span = controller
            .is_some()
            .then(|| crate::telemetry::agent_span(principal))
            .flatten();
        match controller {
            // Outside the agents' lock: replacing notifies sessions.
            Some((controller, AgentUpdate::Context(context))) => {
                controller.at_revision(version).replace(context);
                self.sync_views(&key);
            }
            #[cfg(feature = "runtime-tools")]
            Some((controller, AgentUpdate::Whole(context, catalog))) => {
                let replacement = controller
                    .at_revision(version)
                    .replace_with_catalog(context, catalog);
                if let Some(refused) = replacement.refused {
                    // The profile still applies; the catalog this instance
                    // cannot present is not served (fail closed).
                    not_presentable(principal, &refused);
                    controller
                        .at_revision(version)
                        .replace_with_catalog(context, None);
                }
                self.sync_views(&key);
            }
            None => {
                self.remove_locked(principal);
            }
        }
        true
    }

    /// Installs `catalog`, whose wire form is `wire`, on `principal`'s agent,
    /// bumping its version, if its version is `expected` (`None`: any) and
    /// the agent's name presentation admits it: its controller, the
    /// installation and the version now in force. A refusal changes nothing.
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn install_catalog_if(
        &self,
        principal: &str,
        wire: serde_json::Value,
        catalog: &Catalog<S>,
        expected: Option<u64>,
    ) -> Result<(ProfileController<S>, Installation, u64), CatalogRefusal> {
        // Held throughout: no other change of the agent falls between the
        // check of its version, the install and the bump.
        let _writing = self.write_lock();
        let key = Principal::new(principal);
        let (controller, version_read) = {
            let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
            let agent = agents.get(&key).ok_or(CatalogRefusal::NoAgent)?;
            if expected.is_some_and(|expected| expected != agent.version) {
                return Err(CatalogRefusal::Conflict(agent.version));
            }
            (agent.controller.clone(), agent.version)
        };
        // Installed outside the agents' lock (installing notifies sessions)
        // and before the version moves, so a catalog the presentation
        // refuses leaves the version and the stored wire form as they were.
        let installation = controller
            .at_revision(version_read + 1)
            .set_catalog(Some(catalog));
        if let Some(refused) = installation.refused {
            return Err(CatalogRefusal::Presented(refused));
        }
        let mut agents = self.agents.write().unwrap_or_else(|e| e.into_inner());
        let agent = agents.get_mut(&key).ok_or(CatalogRefusal::NoAgent)?;
        agent.version += 1;
        agent.catalog = Some((wire, crate::audit::states::CatalogSummary::of(catalog)));
        let version = agent.version;
        drop(agents);
        self.sync_views(&key);
        Ok((controller, installation, version))
    }

    /// The wire form of `principal`'s catalog and the agent's version;
    /// `None` if it has no agent here.
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn catalog_wire(&self, principal: &str) -> Option<(Option<serde_json::Value>, u64)> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        let agent = agents.get(&Principal::new(principal))?;
        let wire = agent.catalog.as_ref().map(|(wire, _)| wire.clone());
        Some((wire, agent.version))
    }

    /// What the audit trail says of `principal`'s catalog, put through this
    /// store; `None` if it has none (or no agent).
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn catalog_summary(
        &self,
        principal: &str,
    ) -> Option<crate::audit::states::CatalogSummary> {
        let agents = self.agents.read().unwrap_or_else(|e| e.into_inner());
        let agent = agents.get(&Principal::new(principal))?;
        agent.catalog.as_ref().map(|(_, summary)| summary.clone())
    }
}

impl<S: Vocabulary> ProfileStore<S> {
    /// A controller for `principal`'s agent first seen whole, its catalog
    /// installed before any session can see it.
    fn whole_controller(
        &self,
        principal: &str,
        update: AgentUpdate<S>,
        version: u64,
    ) -> ProfileController<S> {
        match update {
            AgentUpdate::Context(context) => self.new_controller(context, version, Some(principal)),
            #[cfg(feature = "runtime-tools")]
            AgentUpdate::Whole(context, catalog) => {
                let controller = self.new_controller(context, version, Some(principal));
                if catalog.is_some()
                    && let Some(refused) = controller
                        .at_revision(version)
                        .set_catalog(catalog.as_ref())
                        .refused
                {
                    not_presentable(principal, &refused);
                }
                controller
            }
        }
    }
}

/// Reports a stored catalog of `principal` this instance's name
/// presentation refuses: the agent is served without it. Only a deployment
/// whose instances present names differently stores one.
#[cfg(feature = "runtime-tools")]
fn not_presentable(principal: &str, refused: &PresentationError) {
    tracing::error!(
        principal,
        %refused,
        "stored catalog collides under this instance's name presentation; not serving it"
    );
}
