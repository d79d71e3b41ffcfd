//! What the resource server trusts: the issuer, its own resource URI, the
//! signing algorithms, the clock leeway, the JWKS timings and, for opaque
//! tokens, the issuer's introspection endpoint.

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use reqwest::Url;
use serde::{Deserialize, Serialize};

use super::config_check::{ConfigError, checked_url, is_scope_token};
use super::introspection::Introspection;

/// The leeway applied to `exp` and `nbf` unless configured.
const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
/// How long a JWT found valid is taken as valid again without checking its
/// signature unless configured.
const DEFAULT_VERIFIED_CACHE: Duration = Duration::from_secs(60);
/// The longest such reuse: a key the issuer withdraws stops being trusted
/// within it.
const MAX_VERIFIED_CACHE: Duration = Duration::from_secs(3600);
/// How many verified JWTs are kept at most.
pub(super) const VERIFIED_CACHE_ENTRIES: usize = 10_000;
/// A larger leeway would keep an expired token alive for minutes: refused.
const MAX_LEEWAY: Duration = Duration::from_secs(300);
/// The least time between two JWKS fetches unless configured.
const DEFAULT_REFETCH_INTERVAL: Duration = Duration::from_secs(60);
/// How long a fetched JWKS is used before it is fetched again unless
/// configured: a key the issuer withdrew stops being accepted by then.
const DEFAULT_JWKS_MAX_AGE: Duration = Duration::from_secs(3600);

/// A signature algorithm an access token may use. Only asymmetric ones
/// exist here: a shared-secret algorithm (HS256) would let anyone who knows
/// the issuer's public key mint tokens, and `none` is no signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SigningAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// Ed25519.
    EdDSA,
}

impl SigningAlgorithm {
    /// The JOSE name, as in a token's `alg` header.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RS256 => "RS256",
            Self::ES256 => "ES256",
            Self::EdDSA => "EdDSA",
        }
    }

    pub(super) fn jwt(self) -> jsonwebtoken::Algorithm {
        match self {
            Self::RS256 => jsonwebtoken::Algorithm::RS256,
            Self::ES256 => jsonwebtoken::Algorithm::ES256,
            Self::EdDSA => jsonwebtoken::Algorithm::EdDSA,
        }
    }

    pub(super) fn from_jose(alg: &str) -> Option<Self> {
        [Self::RS256, Self::ES256, Self::EdDSA]
            .into_iter()
            .find(|known| known.as_str() == alg)
    }
}

impl fmt::Display for SigningAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A resource server's OAuth settings.
///
/// Built with [`OAuthConfig::new`] and the `with_*` methods, or decoded with
/// serde from an object with exactly these fields (an unknown field is
/// refused; all but `issuer` and `resource` are optional):
///
/// ```json
/// {
///   "issuer": "https://auth.example.com",
///   "resource": "https://mcp.example.com/mcp",
///   "algorithms": ["RS256", "ES256", "EdDSA"],
///   "leeway_seconds": 30,
///   "jwks_refetch_interval_seconds": 60,
///   "jwks_max_age_seconds": 3600,
///   "verified_cache_seconds": 60,
///   "scopes_supported": ["tickets:read"],
///   "required_scopes": ["mcp"],
///   "require_at_jwt": false,
///   "introspection": { "client_id": "mcp-server", "client_secret": "…" }
/// }
/// ```
///
/// `required_scopes` are needed for any access at all (see
/// [`with_required_scopes`](Self::with_required_scopes)); `require_at_jwt`
/// accepts only JWTs typed as access tokens (see
/// [`requiring_at_jwt`](Self::requiring_at_jwt)).
///
/// Both URLs must be `https`, except `http` on a loopback host (for local
/// development and tests); the issuer has no query or fragment (RFC 8414)
/// and the resource no fragment (RFC 8707). Without `introspection` (see
/// [`Introspection`] for its fields) only JWT access tokens are accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawConfig", into = "RawConfig")]
pub struct OAuthConfig {
    issuer: String,
    issuer_url: Url,
    resource: String,
    resource_url: Url,
    algorithms: BTreeSet<SigningAlgorithm>,
    leeway: Duration,
    refetch_interval: Duration,
    jwks_max_age: Duration,
    verified_cache: Duration,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    require_at_jwt: bool,
    introspection: Option<Introspection>,
}

/// The serde form, checked by [`OAuthConfig::try_from`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    issuer: String,
    resource: String,
    #[serde(default = "all_algorithms")]
    algorithms: Vec<SigningAlgorithm>,
    #[serde(default = "default_leeway")]
    leeway_seconds: u64,
    #[serde(default = "default_refetch_interval")]
    jwks_refetch_interval_seconds: u64,
    #[serde(default = "default_jwks_max_age")]
    jwks_max_age_seconds: u64,
    #[serde(default = "default_verified_cache")]
    verified_cache_seconds: u64,
    #[serde(default)]
    scopes_supported: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    required_scopes: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    require_at_jwt: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    introspection: Option<Introspection>,
}

fn all_algorithms() -> Vec<SigningAlgorithm> {
    vec![
        SigningAlgorithm::RS256,
        SigningAlgorithm::ES256,
        SigningAlgorithm::EdDSA,
    ]
}
fn default_leeway() -> u64 {
    DEFAULT_LEEWAY.as_secs()
}
fn default_refetch_interval() -> u64 {
    DEFAULT_REFETCH_INTERVAL.as_secs()
}
fn default_jwks_max_age() -> u64 {
    DEFAULT_JWKS_MAX_AGE.as_secs()
}
fn default_verified_cache() -> u64 {
    DEFAULT_VERIFIED_CACHE.as_secs()
}

impl TryFrom<RawConfig> for OAuthConfig {
    type Error = ConfigError;

    fn try_from(raw: RawConfig) -> Result<Self, ConfigError> {
        let mut config = OAuthConfig::new(&raw.issuer, &raw.resource)?
            .with_algorithms(raw.algorithms)?
            .with_leeway(Duration::from_secs(raw.leeway_seconds))?
            .with_jwks_refetch_interval(Duration::from_secs(raw.jwks_refetch_interval_seconds))?
            .with_jwks_max_age(Duration::from_secs(raw.jwks_max_age_seconds))?
            .with_verified_cache(Duration::from_secs(raw.verified_cache_seconds))?
            .with_scopes_supported(raw.scopes_supported)
            .with_required_scopes(raw.required_scopes)?;
        config.require_at_jwt = raw.require_at_jwt;
        config.introspection = raw.introspection;
        Ok(config)
    }
}

impl From<OAuthConfig> for RawConfig {
    fn from(config: OAuthConfig) -> Self {
        RawConfig {
            issuer: config.issuer,
            resource: config.resource,
            algorithms: config.algorithms.into_iter().collect(),
            leeway_seconds: config.leeway.as_secs(),
            jwks_refetch_interval_seconds: config.refetch_interval.as_secs(),
            jwks_max_age_seconds: config.jwks_max_age.as_secs(),
            verified_cache_seconds: config.verified_cache.as_secs(),
            scopes_supported: config.scopes_supported,
            required_scopes: config.required_scopes,
            require_at_jwt: config.require_at_jwt,
            introspection: config.introspection,
        }
    }
}

impl OAuthConfig {
    /// Settings for tokens of `issuer` (compared with a token's `iss`
    /// exactly as written here) meant for `resource` (this server's
    /// canonical URI, required in a token's `aud`), with the defaults: all
    /// three algorithms, 30 s leeway, at most one JWKS fetch a minute, a
    /// JWKS used for at most an hour, no introspection (only JWTs).
    pub fn new(issuer: &str, resource: &str) -> Result<Self, ConfigError> {
        let issuer_url = checked_url("issuer", issuer)?;
        if issuer_url.query().is_some() || issuer_url.fragment().is_some() {
            return Err(ConfigError::new(
                "issuer",
                "must have no query or fragment (RFC 8414)",
            ));
        }
        let resource_url = checked_url("resource", resource)?;
        if resource_url.fragment().is_some() {
            return Err(ConfigError::new(
                "resource",
                "must have no fragment (RFC 8707)",
            ));
        }
        Ok(OAuthConfig {
            issuer: issuer.to_owned(),
            issuer_url,
            resource: resource.to_owned(),
            resource_url,
            algorithms: all_algorithms().into_iter().collect(),
            leeway: DEFAULT_LEEWAY,
            refetch_interval: DEFAULT_REFETCH_INTERVAL,
            jwks_max_age: DEFAULT_JWKS_MAX_AGE,
            verified_cache: DEFAULT_VERIFIED_CACHE,
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            require_at_jwt: false,
            introspection: None,
        })
    }

    /// Accept only these algorithms (at least one).
    pub fn with_algorithms(
        mut self,
        algorithms: impl IntoIterator<Item = SigningAlgorithm>,
    ) -> Result<Self, ConfigError> {
        self.algorithms = algorithms.into_iter().collect();
        if self.algorithms.is_empty() {
            return Err(ConfigError::new(
                "algorithms",
                "must name at least one algorithm",
            ));
        }
        Ok(self)
    }

    /// The clock leeway on `exp` and `nbf`, at most 5 minutes.
    pub fn with_leeway(mut self, leeway: Duration) -> Result<Self, ConfigError> {
        if leeway > MAX_LEEWAY {
            return Err(ConfigError::new("leeway_seconds", "must be at most 300"));
        }
        self.leeway = leeway;
        Ok(self)
    }

    /// The least time between two JWKS fetches, at least one second: a
    /// token with an unknown `kid` refetches at most this often, so forged
    /// `kid`s cannot turn each request into a request to the issuer. A
    /// failed discovery of the introspection endpoint is retried at most
    /// this often too.
    pub fn with_jwks_refetch_interval(mut self, interval: Duration) -> Result<Self, ConfigError> {
        if interval < Duration::from_secs(1) {
            return Err(ConfigError::new(
                "jwks_refetch_interval_seconds",
                "must be at least 1",
            ));
        }
        self.refetch_interval = interval;
        Ok(self)
    }

    /// How long a fetched JWKS is used before the next validation fetches
    /// it again; not shorter than the refetch interval.
    pub fn with_jwks_max_age(mut self, max_age: Duration) -> Result<Self, ConfigError> {
        if max_age < self.refetch_interval {
            return Err(ConfigError::new(
                "jwks_max_age_seconds",
                "must be at least the refetch interval",
            ));
        }
        self.jwks_max_age = max_age;
        Ok(self)
    }

    /// How long a JWT whose signature and claims were checked is accepted
    /// again without checking its signature (never beyond its `exp`, and
    /// only while the key that signed it is in the JWKS in use); zero turns
    /// this off, at most an hour. The signature check is most of a
    /// validation's cost (tens of microseconds, more for ES256); a repeated
    /// token then costs its SHA-256 and a lookup.
    pub fn with_verified_cache(mut self, ttl: Duration) -> Result<Self, ConfigError> {
        if ttl > MAX_VERIFIED_CACHE {
            return Err(ConfigError::new(
                "verified_cache_seconds",
                "must be at most 3600",
            ));
        }
        self.verified_cache = ttl;
        Ok(self)
    }

    /// The scopes the resource metadata advertises (`scopes_supported`).
    pub fn with_scopes_supported(mut self, scopes: impl IntoIterator<Item = String>) -> Self {
        self.scopes_supported = scopes.into_iter().collect();
        self
    }

    /// Requires every one of `scopes` for any access at all: a valid token
    /// lacking one is refused with 403 `insufficient_scope` naming the
    /// scopes to ask for (the MCP authorization spec's scope challenge),
    /// before any profile is looked at; a request without a token is
    /// challenged for them. Without this, any valid token for the resource
    /// reaches its profile (minus the capabilities its scopes gate). Each
    /// scope is an RFC 6749 scope token (visible ASCII but `"` and `\`).
    pub fn with_required_scopes(
        mut self,
        scopes: impl IntoIterator<Item = String>,
    ) -> Result<Self, ConfigError> {
        let scopes: Vec<String> = scopes.into_iter().collect();
        if let Some(bad) = scopes.iter().find(|scope| !is_scope_token(scope)) {
            return Err(ConfigError::new(
                "required_scopes",
                format!(
                    "`{bad}` is not a scope token (visible ASCII but `\"` and `\\`, not empty)"
                ),
            ));
        }
        self.required_scopes = scopes;
        Ok(self)
    }

    /// Accepts a JWT only when its header's `typ` is `at+jwt` (or
    /// `application/at+jwt`): a JWT access token as RFC 9068 §4 asks a
    /// resource server to check, so that an ID token or another JWT of the
    /// same issuer, for the same audience, is not taken for one. Off by
    /// default, as not every issuer types its access tokens; turn it on
    /// where the issuer does.
    pub fn requiring_at_jwt(mut self) -> Self {
        self.require_at_jwt = true;
        self
    }

    /// The scopes every access needs.
    pub fn required_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    /// Whether only JWTs typed `at+jwt` are accepted.
    pub fn requires_at_jwt(&self) -> bool {
        self.require_at_jwt
    }

    /// Check access tokens that are not JWTs through the issuer's token
    /// introspection (RFC 7662); JWTs are still checked against the JWKS.
    pub fn with_introspection(mut self, introspection: Introspection) -> Self {
        self.introspection = Some(introspection);
        self
    }

    /// The issuer, as configured.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The resource URI, as configured.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The accepted algorithms.
    pub fn algorithms(&self) -> impl Iterator<Item = SigningAlgorithm> + '_ {
        self.algorithms.iter().copied()
    }

    /// The clock leeway on `exp` and `nbf`.
    pub fn leeway(&self) -> Duration {
        self.leeway
    }

    /// How long a verified JWT is accepted again without its signature
    /// being checked (zero: never).
    pub fn verified_cache(&self) -> Duration {
        self.verified_cache
    }

    /// The least time between two JWKS fetches.
    pub fn jwks_refetch_interval(&self) -> Duration {
        self.refetch_interval
    }

    /// How long a fetched JWKS is used.
    pub fn jwks_max_age(&self) -> Duration {
        self.jwks_max_age
    }

    /// The scopes the resource metadata advertises.
    pub fn scopes_supported(&self) -> &[String] {
        &self.scopes_supported
    }

    /// The introspection settings, if opaque tokens are accepted.
    pub fn introspection(&self) -> Option<&Introspection> {
        self.introspection.as_ref()
    }

    /// The URL of this resource's Protected Resource Metadata (RFC 9728
    /// §3.1): `/.well-known/oauth-protected-resource` inserted between the
    /// resource's host and its path, as `WWW-Authenticate` names it.
    pub fn resource_metadata_url(&self) -> String {
        let mut url = self.resource_url.clone();
        url.set_query(None);
        url.set_path(&well_known_path(self.resource_url.path()));
        url.into()
    }

    pub(super) fn issuer_url(&self) -> &Url {
        &self.issuer_url
    }

    pub(super) fn resource_path(&self) -> &str {
        self.resource_url.path()
    }
}

/// Where a resource's Protected Resource Metadata is served (RFC 9728 §3.1).
pub(super) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata path for a resource at `resource_path` (RFC 9728 §3.1):
/// the well-known suffix, then the resource's path without its trailing
/// slash.
pub(super) fn well_known_path(resource_path: &str) -> String {
    format!("{WELL_KNOWN}{}", resource_path.trim_end_matches('/'))
}
