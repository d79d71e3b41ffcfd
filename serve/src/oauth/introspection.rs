//! How opaque access tokens are checked: the issuer's token introspection
//! endpoint (RFC 7662), this server's client credentials there, and how
//! long an active answer is reused.

use std::fmt;
use std::time::Duration;

use reqwest::Url;
use serde::{Deserialize, Serialize};

use super::config_check::{ConfigError, checked_url};

/// How long an active answer is reused unless configured.
const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(60);
/// A revoked token stays accepted until its cached answer expires: a longer
/// reuse is refused.
const MAX_CACHE_TTL: Duration = Duration::from_secs(3600);
/// How many active answers are kept unless configured.
const DEFAULT_CACHE_MAX_ENTRIES: usize = 10_000;

/// Token introspection (RFC 7662) for access tokens that are not JWTs, a
/// part of an [`OAuthConfig`](super::OAuthConfig)
/// ([`with_introspection`](super::OAuthConfig::with_introspection), or its
/// `introspection` field).
///
/// Built with [`Introspection::new`] and the `with_*` methods, or decoded
/// with serde from an object with exactly these fields (an unknown field is
/// refused; `client_id` and `client_secret` are required):
///
/// ```json
/// {
///   "endpoint": "https://auth.example.com/oauth2/introspect",
///   "client_id": "mcp-server",
///   "client_secret": "…",
///   "cache_ttl_seconds": 60,
///   "cache_max_entries": 10000
/// }
/// ```
///
/// Without `endpoint`, the `introspection_endpoint` of the issuer's
/// metadata (RFC 8414, else OpenID discovery) is used. The endpoint must be
/// `https`, except `http` on a loopback host. The credentials are sent with
/// HTTP Basic, each form-urlencoded first (RFC 7662 §2.1, RFC 6749
/// §2.3.1).
///
/// `Debug` leaves the secret out; the serde form carries it (it is the
/// configuration's round trip), so keep serialized settings as private as
/// the file they came from.
///
/// ```
/// use std::time::Duration;
/// use mcp_profiles_serve::oauth::{Introspection, OAuthConfig};
///
/// let introspection = Introspection::new("mcp-server", "s3cret")?
///     .with_endpoint("https://auth.example.com/oauth2/introspect")?
///     .with_cache_ttl(Duration::from_secs(30))?;
/// let config = OAuthConfig::new("https://auth.example.com", "https://mcp.example.com/mcp")?
///     .with_introspection(introspection);
/// assert_eq!(config.introspection().unwrap().client_id(), "mcp-server");
/// # Ok::<(), mcp_profiles_serve::oauth::ConfigError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawIntrospection", into = "RawIntrospection")]
pub struct Introspection {
    endpoint: Option<String>,
    endpoint_url: Option<Url>,
    client_id: String,
    client_secret: String,
    cache_ttl: Duration,
    cache_max_entries: usize,
}

/// The serde form, checked by [`Introspection::try_from`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIntrospection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    endpoint: Option<String>,
    client_id: String,
    client_secret: String,
    #[serde(default = "default_cache_ttl")]
    cache_ttl_seconds: u64,
    #[serde(default = "default_cache_max_entries")]
    cache_max_entries: usize,
}

fn default_cache_ttl() -> u64 {
    DEFAULT_CACHE_TTL.as_secs()
}
fn default_cache_max_entries() -> usize {
    DEFAULT_CACHE_MAX_ENTRIES
}

impl TryFrom<RawIntrospection> for Introspection {
    type Error = ConfigError;

    fn try_from(raw: RawIntrospection) -> Result<Self, ConfigError> {
        let introspection = Introspection::new(&raw.client_id, &raw.client_secret)?
            .with_cache_ttl(Duration::from_secs(raw.cache_ttl_seconds))?
            .with_cache_max_entries(raw.cache_max_entries)?;
        match raw.endpoint {
            Some(endpoint) => introspection.with_endpoint(&endpoint),
            None => Ok(introspection),
        }
    }
}

impl From<Introspection> for RawIntrospection {
    fn from(introspection: Introspection) -> Self {
        RawIntrospection {
            endpoint: introspection.endpoint,
            client_id: introspection.client_id,
            client_secret: introspection.client_secret,
            cache_ttl_seconds: introspection.cache_ttl.as_secs(),
            cache_max_entries: introspection.cache_max_entries,
        }
    }
}

impl Introspection {
    /// Introspection as the client `client_id` with `client_secret` (both
    /// non-empty), at the endpoint the issuer's metadata names, with the
    /// defaults: an active answer reused for 60 s (never beyond the token's
    /// `exp`), at most 10 000 answers kept.
    pub fn new(client_id: &str, client_secret: &str) -> Result<Self, ConfigError> {
        if client_id.is_empty() {
            return Err(ConfigError::new(
                "introspection.client_id",
                "must not be empty",
            ));
        }
        if client_secret.is_empty() {
            return Err(ConfigError::new(
                "introspection.client_secret",
                "must not be empty",
            ));
        }
        Ok(Introspection {
            endpoint: None,
            endpoint_url: None,
            client_id: client_id.to_owned(),
            client_secret: client_secret.to_owned(),
            cache_ttl: DEFAULT_CACHE_TTL,
            cache_max_entries: DEFAULT_CACHE_MAX_ENTRIES,
        })
    }

    /// Ask this endpoint instead of the one the issuer's metadata names.
    pub fn with_endpoint(mut self, endpoint: &str) -> Result<Self, ConfigError> {
        let url = checked_url("introspection.endpoint", endpoint)?;
        self.endpoint = Some(endpoint.to_owned());
        self.endpoint_url = Some(url);
        Ok(self)
    }

    /// How long an active answer is reused, at most an hour (a revoked
    /// token is accepted until then); zero asks the endpoint on every
    /// validation. Never beyond the token's `exp`, whatever this says.
    pub fn with_cache_ttl(mut self, ttl: Duration) -> Result<Self, ConfigError> {
        if ttl > MAX_CACHE_TTL {
            return Err(ConfigError::new(
                "introspection.cache_ttl_seconds",
                "must be at most 3600",
            ));
        }
        self.cache_ttl = ttl;
        Ok(self)
    }

    /// How many active answers are kept, at least one: when full, the one
    /// nearest its expiry makes room.
    pub fn with_cache_max_entries(mut self, entries: usize) -> Result<Self, ConfigError> {
        if entries == 0 {
            return Err(ConfigError::new(
                "introspection.cache_max_entries",
                "must be at least 1",
            ));
        }
        self.cache_max_entries = entries;
        Ok(self)
    }

    /// The configured endpoint, or `None` when the issuer's metadata names
    /// it.
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// This server's client id at the endpoint.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// How long an active answer is reused.
    pub fn cache_ttl(&self) -> Duration {
        self.cache_ttl
    }

    /// How many active answers are kept.
    pub fn cache_max_entries(&self) -> usize {
        self.cache_max_entries
    }

    pub(super) fn endpoint_url(&self) -> Option<&Url> {
        self.endpoint_url.as_ref()
    }

    pub(super) fn client_secret(&self) -> &str {
        &self.client_secret
    }
}

impl fmt::Debug for Introspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Settings get logged; the secret must not be.
        f.debug_struct("Introspection")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("cache_ttl", &self.cache_ttl)
            .field("cache_max_entries", &self.cache_max_entries)
            .finish()
    }
}
