//! The one hook between the core and multi-agent serving: a
//! [`ProfileResolver`] finds the profile serving each request, so that
//! principals, tokens and transports stay outside the core.

use std::fmt;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::Extensions;

use crate::controller::Cell;
use crate::{Profile, ProfileController, Vocabulary};

/// A read-only handle on the profile a [`ProfileController`] serves: what
/// a [`ProfileResolver`] answers for a request. Cloning is a reference
/// count; a handle can never change the profile.
pub struct ProfileHandle<S: Vocabulary> {
    pub(crate) cell: Arc<Cell<S>>,
}

impl<S: Vocabulary> ProfileHandle<S> {
    /// The profile in force now.
    pub fn current(&self) -> Profile<S> {
        self.cell.current().profile.clone()
    }

    /// Whether both handles serve the same controller.
    pub fn same_controller(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.cell, &other.cell)
    }
}

/// Handing out handles.
impl<S: Vocabulary> ProfileController<S> {
    /// A read-only handle on this controller's profile, for a
    /// [`ProfileResolver`] to answer with.
    pub fn handle(&self) -> ProfileHandle<S> {
        ProfileHandle {
            cell: Arc::clone(self.cell()),
        }
    }
}

impl<S: Vocabulary> Clone for ProfileHandle<S> {
    fn clone(&self) -> Self {
        ProfileHandle {
            cell: Arc::clone(&self.cell),
        }
    }
}

impl<S: Vocabulary> fmt::Debug for ProfileHandle<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProfileHandle")
            .field("context", self.cell.current().profile.context())
            .finish_non_exhaustive()
    }
}

/// Finds the profile serving each request of a server made with
/// [`ProfiledServer::resolving`](crate::ProfiledServer::resolving): how a
/// serving layer (many agents behind one endpoint, each request naming its
/// principal) plugs into the core without the core knowing transports,
/// tokens or principals.
///
/// It runs on every request, so it should only read what the serving layer
/// already resolved (for instance a handle its HTTP middleware put into the
/// request's extensions), not look anything up again.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use std::sync::Arc;
/// use mcp_profiles::{ProfileContext, ProfileController, ProfileHandle, ProfileResolver, ProfiledServer};
/// use mcp_profiles::rmcp::{ErrorData, model::Extensions};
///
/// /// Serves every request from the handle the transport layer attached.
/// struct Attached;
///
/// impl ProfileResolver<Demo> for Attached {
///     fn resolve(&self, extensions: &Extensions) -> Result<ProfileHandle<Demo>, ErrorData> {
///         extensions
///             .get::<ProfileHandle<Demo>>()
///             .cloned()
///             .ok_or_else(|| ErrorData::invalid_request("no profile for this request", None))
///     }
/// }
///
/// let server = ProfiledServer::resolving(Demo, Arc::new(Attached));
/// // The transport layer, per request:
/// let controller = ProfileController::<Demo>::new(ProfileContext::new(Surface::Ticket));
/// let mut extensions = Extensions::new();
/// extensions.insert(controller.handle());
/// # drop(server);
/// ```
pub trait ProfileResolver<S: Vocabulary>: Send + Sync + 'static {
    /// The profile serving the request whose rmcp extensions are
    /// `extensions`, or the error the client gets instead (nothing runs).
    fn resolve(&self, extensions: &Extensions) -> Result<ProfileHandle<S>, ErrorData>;
}
