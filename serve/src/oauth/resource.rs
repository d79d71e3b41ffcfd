//! The resource server in front of a [`ProfileStore`]'s agents: an access
//! token in, the profile its request is served out — or the answer the MCP
//! authorization specification gives instead.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};

use http::{HeaderValue, StatusCode, header};
use mcp_profiles::{ProfileContext, ProfileController, ProfileHandle, Vocabulary};
use serde::Deserialize;
use serde_json::Value;

use axum::response::{IntoResponse, Response};

use super::mapping::{MappingRefusal, TokenProfile};
use super::{
    AccessToken, ClaimMapping, ConfigError, MappingError, OAuthConfig, TokenError, TokenValidator,
    bearer_challenge,
};
use crate::ProfileStore;
use crate::identity::{Grant, Principal};
use crate::telemetry;

/// An OAuth 2.1 resource server for a [`ProfileStore`]'s agents: validates
/// each request's access token ([`TokenValidator`]) and maps it to the
/// profile it is served ([`ClaimMapping`]). Serve it with
/// [`http::oauth_router`](crate::http::oauth_router) or
/// [`Serve::oauth`](crate::http::Serve::oauth).
///
/// Decoded from one JSON document with [`OAuth::from_json`]:
///
/// ```json
/// {
///   "token": { "issuer": "https://auth.example.com", "resource": "https://mcp.example.com/mcp" },
///   "claims": { "profile": "stored", "scopes": { "tickets:refund": ["refund"] } }
/// }
/// ```
///
/// `token` is an [`OAuthConfig`], `claims` a [`ClaimMapping`] (default: each
/// principal's stored profile, no narrowing).
pub struct OAuth<S: Vocabulary> {
    validator: TokenValidator,
    /// Where the resource metadata is, as every challenge names it.
    metadata_url: String,
    mapping: ClaimMapping<S>,
    /// The profiles derived from tokens (a ceiling mapping), one
    /// controller per distinct context: few, as a mapping has few outputs.
    derived: Mutex<HashMap<ProfileContext<S>, ProfileController<S>>>,
}

/// The serde form of [`OAuth`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOAuth {
    token: OAuthConfig,
    #[serde(default)]
    claims: Option<Value>,
}

/// Why an [`OAuth`] document was refused: names the bad field or value.
#[derive(Debug)]
pub struct OAuthError(String);

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OAuthError {}

impl From<ConfigError> for OAuthError {
    fn from(error: ConfigError) -> Self {
        OAuthError(error.to_string())
    }
}

impl From<MappingError> for OAuthError {
    fn from(error: MappingError) -> Self {
        OAuthError(error.to_string())
    }
}

/// A request admitted: whose it is, the profile it is served, and its
/// token.
pub(crate) struct Admission<S: Vocabulary> {
    pub(crate) grant: Arc<Grant>,
    pub(crate) handle: ProfileHandle<S>,
    pub(crate) token: AccessToken,
}

impl<S: Vocabulary> OAuth<S> {
    /// A resource server validating with `validator` and mapping tokens
    /// with `mapping`. The resource metadata advertises the mapping's
    /// scopes besides the configuration's own.
    pub fn new(validator: TokenValidator, mapping: ClaimMapping<S>) -> Self {
        OAuth {
            metadata_url: validator.config().resource_metadata_url(),
            validator,
            mapping,
            derived: Mutex::default(),
        }
    }

    /// Decodes the `{"token": ..., "claims": ...}` document strictly (see
    /// [`OAuth`]); the validator fetches with a client of its own.
    pub fn from_json(json: &str) -> Result<Self, OAuthError> {
        let raw: RawOAuth = serde_json::from_str(json)
            .map_err(|error| OAuthError(format!("oauth settings: {error}")))?;
        let mapping = match raw.claims {
            None => ClaimMapping::stored(),
            Some(claims) => ClaimMapping::from_value(claims)?,
        };
        Ok(Self::new(TokenValidator::new(raw.token), mapping))
    }

    /// The validator's configuration.
    pub fn config(&self) -> &OAuthConfig {
        self.validator.config()
    }

    /// The URL of the resource metadata, as challenges name it.
    pub(crate) fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The claim mapping.
    pub fn mapping(&self) -> &ClaimMapping<S> {
        &self.mapping
    }

    /// The resource metadata's configuration: the validator's, with the
    /// mapping's scopes among those supported.
    pub(crate) fn metadata_config(&self) -> OAuthConfig {
        let mut scopes: BTreeSet<String> =
            self.config().scopes_supported().iter().cloned().collect();
        scopes.extend(self.mapping.scopes().map(str::to_owned));
        self.config().clone().with_scopes_supported(scopes)
    }

    /// Validates the request's bearer token and finds the profile it is
    /// served, or the answer refusing it: 401 (no or a bad token), 403 (a
    /// token mapping to no profile), 503 (the keys or the shared store out
    /// of reach).
    pub(crate) async fn admit(
        &self,
        store: &ProfileStore<S>,
        bearer: Option<&str>,
    ) -> Result<Admission<S>, Response> {
        let metadata_url = &self.metadata_url;
        let bearer = bearer.ok_or_else(|| self.unauthenticated(metadata_url))?;
        let token = self
            .validator
            .validate(bearer)
            .await
            .map_err(|error| refused(&error, metadata_url))?;
        let missing: Vec<&str> = self
            .validator
            .config()
            .required_scopes()
            .iter()
            .map(String::as_str)
            .filter(|scope| !token.has_scope(scope))
            .collect();
        if !missing.is_empty() {
            telemetry::oauth_refused("insufficient_scope");
            return Err(self.insufficient_scopes(&token, &missing, "any access needs scope"));
        }
        let profile = self
            .mapping
            .profile(&token)
            .map_err(|why| forbidden(&why))?;
        let handle = self.handle(store, &profile).await?;
        let grant = store.identity(profile.principal());
        Ok(Admission {
            grant,
            handle,
            token,
        })
    }

    /// The 401 of a request without a token: the challenge names the
    /// mapping's scopes that are not step-up ones, the scopes a client
    /// asks for first (the spec's scope selection), and the scopes every
    /// access needs; step-up scopes are asked for when a call needs them.
    fn unauthenticated(&self, metadata_url: &str) -> Response {
        telemetry::oauth_refused(TokenError::Missing.reason());
        let mut response = TokenError::Missing.response(metadata_url);
        let mut first: Vec<&str> = self
            .validator
            .config()
            .required_scopes()
            .iter()
            .map(String::as_str)
            .chain(self.mapping.scopes().filter(|scope| {
                !self
                    .mapping
                    .step_up_scopes()
                    .any(|step_up| step_up == *scope)
            }))
            .collect();
        // Each once, in the order given.
        let mut seen = std::collections::HashSet::new();
        first.retain(|scope| seen.insert(*scope));
        if !first.is_empty() {
            let challenge = format!(
                "{}, scope=\"{}\"",
                bearer_challenge(metadata_url, None),
                first.join(" ")
            );
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, value);
            }
        }
        response
    }

    /// The profile `profile` names.
    async fn handle(
        &self,
        store: &ProfileStore<S>,
        profile: &TokenProfile<S>,
    ) -> Result<ProfileHandle<S>, Response> {
        match profile {
            TokenProfile::Stored {
                principal,
                narrowing,
                surface,
            } => {
                let found = store
                    .find_agent(principal)
                    .await
                    .map_err(|refusal| unavailable(&refusal.to_string()))?;
                let no_agent = || {
                    forbidden(&MappingRefusal(format!(
                        "principal `{principal}` has no profile here"
                    )))
                };
                if !found {
                    return Err(no_agent());
                }
                let handle = store
                    .view(&Principal::new(principal), narrowing)
                    .ok_or_else(no_agent)?;
                let stored = handle.current().context().surface();
                if let Some(surface) = surface
                    && *surface != stored
                {
                    return Err(forbidden(&MappingRefusal(format!(
                        "the token's surface `{surface}` is not principal `{principal}`'s `{stored}`"
                    ))));
                }
                Ok(handle)
            }
            TokenProfile::Derived { context, .. } => {
                store
                    .serving(None)
                    .map_err(|refusal| unavailable(&refusal.to_string()))?;
                Ok(self.derived(store, context))
            }
        }
    }

    /// The controller serving a token-derived `context`.
    fn derived(&self, store: &ProfileStore<S>, context: &ProfileContext<S>) -> ProfileHandle<S> {
        let mut derived = self.derived.lock().unwrap_or_else(|e| e.into_inner());
        derived
            .entry(*context)
            .or_insert_with(|| store.new_controller(*context, 1, None))
            .handle()
    }
}

impl<S: Vocabulary> fmt::Debug for OAuth<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("validator", &self.validator)
            .field("mapping", &self.mapping)
            .finish_non_exhaustive()
    }
}

/// A token refused: its answer, and a log line saying why.
fn refused(error: &TokenError, metadata_url: &str) -> Response {
    telemetry::oauth_refused(error.reason());
    tracing::info!(%error, "access token refused");
    error.response(metadata_url)
}

/// A valid token that maps to no profile: 403, saying why.
fn forbidden(why: &MappingRefusal) -> Response {
    telemetry::oauth_refused("no_profile");
    tracing::info!(%why, "access token maps to no profile");
    (StatusCode::FORBIDDEN, format!("forbidden: {why}")).into_response()
}

fn unavailable(why: &str) -> Response {
    telemetry::oauth_refused("store_unavailable");
    (StatusCode::SERVICE_UNAVAILABLE, why.to_owned()).into_response()
}
