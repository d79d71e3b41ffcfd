//! The operator's kill switch: one deny list over every profile of every
//! controller attached to it, flipped in one step for all of them.

use std::fmt;
use std::sync::{Arc, Mutex, RwLock, Weak};

use super::{Cell, ProfileController, Replacement};
use crate::{DenyList, Vocabulary};

/// A deny list the operator holds over every profile of every
/// [`ProfileController`] attached to it, on top of each context's own
/// [`Policy`](crate::Policy).
///
/// Cloning shares the switch: a serving layer (a `ProfileStore` of many
/// agents) holds one and attaches each agent's controller with
/// [`ProfileController::with_kill_switch`]; a controller made with
/// [`ProfileController::new`] has a switch of its own
/// ([`ProfileController::kill_switch`]).
///
/// [`set`](Self::set) replaces the profile of each attached controller
/// once: each session whose visible tools changed is sent exactly one
/// `tools/list_changed`, every other session none. A call already running
/// finishes; a new call of a killed tool is refused with JSON-RPC -32602
/// saying that the operator disabled it. The list holds compiled tool and
/// group names of the registry ([`DenyList`]) and removes every visible tool
/// with one of those names, runtime tools included.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Desk;
/// #     impl rmcp::ServerHandler for Desk {}
/// # }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// # use rmcp::{ErrorData, model::CallToolResult, tool};
/// #[mcp_profiles::tool_group(name = "tickets", surface = "ticket")]
/// impl Desk {
///     #[tool(description = "Close the ticket")]
///     async fn close_ticket(&self) -> Result<CallToolResult, ErrorData> { todo!() }
/// }
///
/// use mcp_profiles::{DenyList, KillSwitch, ProfileContext, ProfileController};
///
/// let switch = KillSwitch::<Desk>::new();
/// let ticket = ProfileController::with_kill_switch(ProfileContext::new(Surface::Ticket), &switch);
/// let chat = ProfileController::with_kill_switch(ProfileContext::new(Surface::Chat), &switch);
///
/// let change = switch.set(DenyList::new(["close_ticket"])?);
/// assert_eq!(change.replacements.len(), 1); // only the ticket agent saw it
/// assert_eq!(change.replacements[0].diff.removed, ["close_ticket"]);
/// assert_eq!(change.unchanged, 1);
/// assert!(ticket.current().tool_names().is_empty());
///
/// switch.set(DenyList::empty()); // back on
/// assert_eq!(ticket.current().tool_names(), ["close_ticket"]);
/// # drop(chat);
/// # Ok::<(), mcp_profiles::PolicyError>(())
/// ```
pub struct KillSwitch<S: Vocabulary> {
    inner: Arc<Inner<S>>,
}

struct Inner<S: Vocabulary> {
    /// The list in force. Controllers read it under their own replacement
    /// lock, never under `attached`, so lock order is always `attached`
    /// then a controller's.
    killed: RwLock<DenyList<S>>,
    /// The attached controllers' cells. Its lock also serialises flips
    /// with attachments, so a controller attached during a flip starts
    /// with the new list or is replaced by the flip, never neither.
    attached: Mutex<Vec<Weak<Cell<S>>>>,
}

/// What one [`KillSwitch::set`] did.
#[non_exhaustive]
pub struct KillSwitchChange<S: Vocabulary> {
    /// The list before.
    pub previous: DenyList<S>,
    /// The list now in force.
    pub killed: DenyList<S>,
    /// One replacement per attached controller whose visible tools changed,
    /// in attachment order; each notified its sessions once.
    pub replacements: Vec<Replacement<S>>,
    /// How many attached controllers saw no change (and were sent nothing).
    pub unchanged: usize,
}

impl<S: Vocabulary> KillSwitchChange<S> {
    /// How many sessions were sent a list_changed, over all controllers.
    pub fn notified_sessions(&self) -> usize {
        self.replacements.iter().map(|r| r.notified_sessions).sum()
    }
}

impl<S: Vocabulary> fmt::Debug for KillSwitchChange<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KillSwitchChange")
            .field("previous", &self.previous)
            .field("killed", &self.killed)
            .field("replacements", &self.replacements)
            .field("unchanged", &self.unchanged)
            .finish()
    }
}

impl<S: Vocabulary> KillSwitch<S> {
    /// A switch that kills nothing, with no controller attached.
    pub fn new() -> Self {
        KillSwitch {
            inner: Arc::new(Inner {
                killed: RwLock::new(DenyList::empty()),
                attached: Mutex::default(),
            }),
        }
    }

    /// The list in force.
    pub fn killed(&self) -> DenyList<S> {
        *self.inner.killed.read().unwrap_or_else(|e| e.into_inner())
    }

    /// How many live controllers are attached.
    pub fn controllers(&self) -> usize {
        let attached = self.attached();
        attached
            .iter()
            .filter(|cell| cell.strong_count() > 0)
            .count()
    }

    /// Whether both handles are the same switch.
    pub fn same_switch(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Puts `killed` in force over every attached controller: one
    /// replacement each (serialised with its own replacements), with one
    /// `tools/list_changed` per session whose visible tools changed and none
    /// elsewhere. Setting the list in force changes nothing.
    ///
    /// It takes each attached controller's replacement lock, so it must not
    /// be called from inside a [`ProfileController::update`] closure of one
    /// of them (as `replace` must not).
    pub fn set(&self, killed: DenyList<S>) -> KillSwitchChange<S> {
        let mut attached = self.attached();
        let previous = std::mem::replace(
            &mut *self.inner.killed.write().unwrap_or_else(|e| e.into_inner()),
            killed,
        );
        attached.retain(|cell| cell.strong_count() > 0);
        let cells: Vec<Arc<Cell<S>>> = attached.iter().filter_map(Weak::upgrade).collect();
        let mut change = KillSwitchChange {
            previous,
            killed,
            replacements: Vec::new(),
            unchanged: 0,
        };
        if previous == killed {
            change.unchanged = cells.len();
            return change;
        }
        for cell in cells {
            let replacement = ProfileController::from_cell(cell).reapply();
            if replacement.changed() {
                change.replacements.push(replacement);
            } else {
                change.unchanged += 1;
            }
        }
        drop(attached);
        tracing::info!(
            killed = %killed,
            previous = %previous,
            changed = change.replacements.len(),
            unchanged = change.unchanged,
            notified_sessions = change.notified_sessions(),
            "kill switch set"
        );
        change
    }

    /// Attaches the cell `make` builds from the list in force, under the
    /// attachment lock (see `Inner::attached`).
    pub(crate) fn attach(&self, make: impl FnOnce(DenyList<S>) -> Arc<Cell<S>>) -> Arc<Cell<S>> {
        let mut attached = self.attached();
        let cell = make(self.killed());
        // Forget dropped controllers before the list would grow: amortised,
        // so attaching stays cheap however many come and go.
        if attached.len() == attached.capacity() {
            attached.retain(|cell| cell.strong_count() > 0);
        }
        attached.push(Arc::downgrade(&cell));
        cell
    }

    fn attached(&self) -> std::sync::MutexGuard<'_, Vec<Weak<Cell<S>>>> {
        self.inner
            .attached
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

impl<S: Vocabulary> Default for KillSwitch<S> {
    fn default() -> Self {
        Self::new()
    }
}

/// Another handle on the same switch.
impl<S: Vocabulary> Clone for KillSwitch<S> {
    fn clone(&self) -> Self {
        KillSwitch {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<S: Vocabulary> fmt::Debug for KillSwitch<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KillSwitch")
            .field("killed", &self.killed())
            .field("controllers", &self.controllers())
            .finish()
    }
}
