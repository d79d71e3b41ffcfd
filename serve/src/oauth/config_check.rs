//! What every configured value is checked with: the refusal
//! ([`ConfigError`]) and the rule for URLs. Apart from config.rs so that the
//! introspection settings, a part of [`super::OAuthConfig`], use the same
//! rule without the two modules importing each other.

use std::fmt;

use reqwest::Url;

/// Parses `value` as an absolute `https` URL, or `http` on loopback.
pub(super) fn checked_url(field: &'static str, value: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(value).map_err(|error| ConfigError::new(field, error.to_string()))?;
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(&url) => {}
        _ => {
            return Err(ConfigError::new(
                field,
                "must be https (http only on a loopback host)",
            ));
        }
    }
    if url.host().is_none() {
        return Err(ConfigError::new(field, "must have a host"));
    }
    Ok(url)
}

pub(super) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// An [`OAuthConfig`](super::OAuthConfig) field that was refused, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    field: &'static str,
    reason: String,
}

impl ConfigError {
    pub(super) fn new(field: &'static str, reason: impl Into<String>) -> Self {
        ConfigError {
            field,
            reason: reason.into(),
        }
    }

    /// The refused field, as named in the serde form (a field of the
    /// `introspection` object as `introspection.<field>`).
    pub fn field(&self) -> &'static str {
        self.field
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oauth config: `{}` {}", self.field, self.reason)
    }
}

impl std::error::Error for ConfigError {}

/// Whether `scope` is one RFC 6749 scope token: printable ASCII without
/// space, `"` or `\`, so it can stand in a quoted header parameter.
pub(crate) fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|byte| matches!(byte, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}
