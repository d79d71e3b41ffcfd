//! Step-up: a `tools/call` of a tool that a scope the mapping marks as
//! obtainable would reveal is answered with the spec's scope challenge (403
//! `insufficient_scope` naming the scope), so the client can re-authorise;
//! any other hidden tool stays unknown.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use mcp_profiles::{Profile, ProfileHandle, Vocabulary};

use super::config_check::is_scope_token;
use super::mapping::TokenProfile;
use super::{AccessToken, OAuth, bearer_challenge};
use crate::ProfileStore;
use crate::agents::Narrowing;
use crate::identity::Principal;

impl<S: Vocabulary> OAuth<S> {
    /// The step-up scope that would let `token` call `tool`, which its
    /// profile does not serve; `None` if none would (the call is
    /// then refused like any hidden tool's, revealing nothing).
    pub(crate) fn step_up_scope(
        &self,
        store: &ProfileStore<S>,
        served: &ProfileHandle<S>,
        token: &AccessToken,
        tool: &str,
    ) -> Option<String> {
        let missing = self.mapping().missing_step_up(token);
        if missing.is_empty()
            || store.killed().contains(tool)
            || lists(store, &served.current(), tool)
        {
            return None;
        }
        // The stored profile a wider token would narrow, read once.
        let stored = match self.mapping().profile(token).ok()? {
            TokenProfile::Stored { principal, .. } => {
                let whole = store.view(&Principal::new(&principal), &Narrowing::none())?;
                Some(*whole.current().context())
            }
            TokenProfile::Derived { .. } => None,
        };
        missing.into_iter().find_map(|scope| {
            let mut scopes = token.scopes().clone();
            scopes.insert(scope.to_owned());
            let wider = match self.mapping().profile_with(token, &scopes).ok()? {
                TokenProfile::Stored { narrowing, .. } => narrowing.apply(stored.as_ref()?),
                TokenProfile::Derived { context, .. } => context,
            };
            let reveals = lists(store, &S::registry().assemble(&wider), tool);
            reveals.then(|| scope.to_owned())
        })
    }

    /// The 403 asking for `scope` besides those `token` has, for a tool.
    pub(crate) fn insufficient_scope(&self, token: &AccessToken, scope: &str) -> Response {
        self.insufficient_scopes(token, &[scope], "the tool needs scope")
    }

    /// The 403 asking for `needed` besides the scopes `token` has (the
    /// spec's scope challenge: the scopes already granted are kept, so the
    /// client does not lose them re-authorising); `what` says what needs
    /// them, before their names.
    pub(crate) fn insufficient_scopes(
        &self,
        token: &AccessToken,
        needed: &[&str],
        what: &str,
    ) -> Response {
        // The token's scopes are the issuer's text: only well-formed ones
        // are repeated in the header.
        let mut scopes: Vec<&str> = token
            .scopes()
            .iter()
            .map(String::as_str)
            .filter(|scope| is_scope_token(scope))
            .collect();
        scopes.extend_from_slice(needed);
        scopes.sort_unstable();
        scopes.dedup();
        let challenge = format!(
            "{}, error=\"insufficient_scope\", scope=\"{}\", error_description=\"{what} {}\"",
            bearer_challenge(self.metadata_url(), None),
            scopes.join(" "),
            needed.join(" ")
        );
        let named: Vec<String> = needed.iter().map(|scope| format!("`{scope}`")).collect();
        let mut response = (
            StatusCode::FORBIDDEN,
            format!("insufficient scope: {what} {}", named.join(", ")),
        )
            .into_response();
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// Whether `profile` has a tool a client calls `tool`, under the store's
/// presentation.
fn lists<S: Vocabulary>(store: &ProfileStore<S>, profile: &Profile<S>, tool: &str) -> bool {
    match store.presentation() {
        None => profile.contains(tool),
        Some(presentation) => profile
            .tool_names()
            .iter()
            .any(|name| presentation.present(name) == tool),
    }
}
