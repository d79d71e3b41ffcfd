//! The context's runtime allow list: which runtime tools it serves.

use super::ProfileContext;
use crate::policy::RuntimeAllowList;
use crate::{AllowError, Vocabulary};

impl<S: Vocabulary> ProfileContext<S> {
    /// The same context serving, of the runtime tools its rules enable,
    /// only those named in `names` (none, for an empty list). Compiled
    /// tools are never affected.
    ///
    /// The vocabulary must declare the list, and its most names, with
    /// `#[runtime_allow_list(max = N)]` on its `server` line. Strict, as
    /// decoding the context's `"runtime_allow"` is: a vocabulary that
    /// declares none, a name that is not a valid MCP tool name (1 to 128 of
    /// `A-Z a-z 0-9 _ - .`), a name given twice or more than `max` names is
    /// an error naming it, and nothing is changed. Order does not matter.
    ///
    /// The names are not checked against a catalog: runtime tools come and
    /// go, and a name no installed tool has keeps that tool out until it is
    /// installed. A runtime tool left out is not listed, and a call to it
    /// is refused like a call to any tool outside the profile.
    ///
    /// ```
    /// # mod server { pub struct Desk; }
    /// # use server::Desk;
    /// # mcp_profiles::vocabulary! {
    /// #     #[runtime_allow_list(max = 2)]
    /// #     server Desk;
    /// #     #[surfaces] pub enum Surface { Ticket }
    /// #     #[capabilities] pub enum Capability {}
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// use mcp_profiles::ProfileContext;
    ///
    /// let plain = ProfileContext::<Desk>::new(Surface::Ticket);
    /// assert_eq!(plain.runtime_allowed(), None); // every runtime tool its rules enable
    ///
    /// let two = plain.with_runtime_allowed(["plugin_search", "plugin_fetch"])?;
    /// assert_eq!(two.runtime_allowed(), Some(&["plugin_fetch", "plugin_search"][..]));
    /// assert_eq!(
    ///     two.to_json(),
    ///     r#"{"surface":"ticket","capabilities":[],"providers":[],"runtime_allow":["plugin_fetch","plugin_search"]}"#
    /// );
    ///
    /// let err = plain.with_runtime_allowed(["a", "b", "c"]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "the runtime allow list names 3 tools; it may name at most 2 \
    ///      (the vocabulary's `#[runtime_allow_list(max = 2)]`)"
    /// );
    /// assert_eq!(two.without_runtime_allowed(), plain);
    /// # Ok::<(), mcp_profiles::AllowError>(())
    /// ```
    pub fn with_runtime_allowed<N: AsRef<str>>(
        self,
        names: impl IntoIterator<Item = N>,
    ) -> Result<Self, AllowError> {
        Ok(self.with_runtime_allow_list(RuntimeAllowList::new::<S, N>(names)?))
    }

    /// The same context with runtime tools unrestricted again: every
    /// runtime tool its rules enable is served.
    pub fn without_runtime_allowed(self) -> Self {
        self.with_runtime_allow_list(RuntimeAllowList::UNRESTRICTED)
    }

    /// The runtime tools this context serves, sorted: `None` when runtime
    /// tools are unrestricted (the default), `Some` of the list set with
    /// [`with_runtime_allowed`](Self::with_runtime_allowed) otherwise.
    pub fn runtime_allowed(&self) -> Option<&'static [&'static str]> {
        self.runtime_allow.names()
    }

    /// The runtime allow list itself, for judging runtime tools.
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn runtime_allow_list(&self) -> RuntimeAllowList {
        self.runtime_allow
    }

    pub(super) fn with_runtime_allow_list(mut self, list: RuntimeAllowList) -> Self {
        self.runtime_allow = list;
        self
    }
}
