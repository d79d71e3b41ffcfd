//! Why a request's access token was refused, and the HTTP answer the MCP
//! authorization specification gives each reason.

use std::fmt;

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};

/// Why an access token was not accepted. Each reason maps to the answer of
/// the MCP authorization specification: [`TokenError::status`] is 401 for a
/// missing or invalid token and 503 when the issuer's keys or its
/// introspection endpoint cannot be had;
/// [`TokenError::www_authenticate`] gives the 401's challenge.
///
/// The `Display` text names what failed, for logs; it may quote the token's
/// `kid` or `alg`. The challenge's `error_description` never does: it is a
/// fixed sentence per reason, so nothing a caller sent is echoed in a
/// header.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// The request carries no bearer token.
    Missing,
    /// The token is not a compact JWS with a JSON header and payload; with
    /// introspection configured, a token that is not a JWT is refused so
    /// only when it is not a bearer token's characters (RFC 6750 §2.1) or
    /// longer than 4 KiB.
    Malformed(String),
    /// The header's `alg` is not one of the configured asymmetric
    /// algorithms (`none` and `HS256` never are).
    AlgorithmNotAllowed(String),
    /// The header names no `kid`, so no key of the JWKS can be chosen.
    MissingKeyId,
    /// No key of the issuer's JWKS has this `kid`, even after the refetch
    /// the refetch interval allowed.
    UnknownKey(String),
    /// The key with this `kid` is not of the header's algorithm.
    KeyMismatch {
        /// The key's id.
        kid: String,
        /// The token header's algorithm.
        alg: String,
    },
    /// The signature does not verify with the issuer's key.
    BadSignature,
    /// `exp` is past, beyond the leeway.
    Expired,
    /// `nbf` is ahead, beyond the leeway.
    NotYetValid,
    /// `iss` is not the configured issuer.
    WrongIssuer,
    /// `aud` does not contain this server's resource URI.
    WrongAudience,
    /// A claim that must be present is not (`exp`, `iss` or `aud`).
    MissingClaim(String),
    /// A claim has the wrong type (e.g. `scope` not a string).
    InvalidClaim(String),
    /// The JWT's header is not typed `at+jwt` where the configuration
    /// requires it (`OAuthConfig::requiring_at_jwt`): an ID token or
    /// another JWT of the issuer, not an access token (RFC 9068 §4). The
    /// `typ` it has, if any.
    NotAnAccessToken(Option<String>),
    /// The issuer's introspection endpoint answered that the token is not
    /// active (RFC 7662 §2.2): unknown, expired, revoked or not meant to be
    /// introspected by this server.
    Inactive,
    /// The issuer's metadata, JWKS or introspection endpoint could not be
    /// fetched or used: nothing is accepted until it can (HTTP 503).
    Unavailable(String),
}

impl TokenError {
    /// The HTTP status of the answer: 503 for [`TokenError::Unavailable`],
    /// 401 for every other reason.
    pub fn status(&self) -> StatusCode {
        match self {
            TokenError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::UNAUTHORIZED,
        }
    }

    /// The `WWW-Authenticate` value of a 401 answer, pointing the client at
    /// the resource metadata; `None` for a 503, which no new token fixes.
    pub fn www_authenticate(&self, resource_metadata_url: &str) -> Option<String> {
        match self {
            TokenError::Unavailable(_) => None,
            TokenError::Missing => Some(bearer_challenge(resource_metadata_url, None)),
            other => Some(bearer_challenge(
                resource_metadata_url,
                Some(other.description()),
            )),
        }
    }

    /// The whole HTTP answer: the status, the challenge of a 401 and a
    /// one-line plain-text body saying what failed.
    pub fn response(&self, resource_metadata_url: &str) -> Response {
        let mut response = (self.status(), self.description()).into_response();
        if let Some(challenge) = self.www_authenticate(resource_metadata_url) {
            // The URL comes from the configuration and the description
            // from the fixed sentences below; a URL with a control
            // character would fail here, and then no challenge is better
            // than a panic.
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, value);
            }
        }
        response
    }

    /// The reason as a fixed snake_case name (`missing`, `malformed`,
    /// `algorithm_not_allowed`, `missing_key_id`, `unknown_key`,
    /// `key_mismatch`, `bad_signature`, `expired`, `not_yet_valid`,
    /// `wrong_issuer`, `wrong_audience`, `missing_claim`, `invalid_claim`,
    /// `not_an_access_token`, `inactive`, `unavailable`): a metric label or a log field that
    /// never carries the token's own text.
    pub fn reason(&self) -> &'static str {
        match self {
            TokenError::Missing => "missing",
            TokenError::Malformed(_) => "malformed",
            TokenError::AlgorithmNotAllowed(_) => "algorithm_not_allowed",
            TokenError::MissingKeyId => "missing_key_id",
            TokenError::UnknownKey(_) => "unknown_key",
            TokenError::KeyMismatch { .. } => "key_mismatch",
            TokenError::BadSignature => "bad_signature",
            TokenError::Expired => "expired",
            TokenError::NotYetValid => "not_yet_valid",
            TokenError::WrongIssuer => "wrong_issuer",
            TokenError::WrongAudience => "wrong_audience",
            TokenError::MissingClaim(_) => "missing_claim",
            TokenError::InvalidClaim(_) => "invalid_claim",
            TokenError::NotAnAccessToken(_) => "not_an_access_token",
            TokenError::Inactive => "inactive",
            TokenError::Unavailable(_) => "unavailable",
        }
    }

    /// A fixed sentence per reason: safe as an RFC 6750 `error_description`
    /// (printable ASCII without `"` or `\`).
    fn description(&self) -> &'static str {
        match self {
            TokenError::Missing => "no bearer token",
            TokenError::Malformed(_) => "the token is malformed",
            TokenError::AlgorithmNotAllowed(_) => "the token's signing algorithm is not accepted",
            TokenError::MissingKeyId => "the token names no key id",
            TokenError::UnknownKey(_) => "the token's key id is not among the issuer's keys",
            TokenError::KeyMismatch { .. } => "the token's algorithm does not fit its key",
            TokenError::BadSignature => "the token's signature is invalid",
            TokenError::Expired => "the token has expired",
            TokenError::NotYetValid => "the token is not valid yet",
            TokenError::WrongIssuer => "the token is from another issuer",
            TokenError::WrongAudience => "the token is not meant for this resource",
            TokenError::MissingClaim(_) => "the token lacks a required claim",
            TokenError::InvalidClaim(_) => "the token has a claim of the wrong type",
            TokenError::NotAnAccessToken(_) => "the token is not typed as an access token (at+jwt)",
            TokenError::Inactive => "the token is not active",
            TokenError::Unavailable(_) => "the authorization server is unavailable",
        }
    }
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.description();
        match self {
            TokenError::Malformed(detail)
            | TokenError::MissingClaim(detail)
            | TokenError::InvalidClaim(detail)
            | TokenError::Unavailable(detail) => write!(f, "{what}: {detail}"),
            TokenError::AlgorithmNotAllowed(alg) => write!(f, "{what}: `{alg}`"),
            TokenError::UnknownKey(kid) => write!(f, "{what}: `{kid}`"),
            TokenError::KeyMismatch { kid, alg } => write!(f, "{what}: key `{kid}`, alg `{alg}`"),
            TokenError::NotAnAccessToken(Some(typ)) => write!(f, "{what}: its `typ` is `{typ}`"),
            TokenError::NotAnAccessToken(None) => write!(f, "{what}: it has no `typ`"),
            _ => f.write_str(what),
        }
    }
}

impl std::error::Error for TokenError {}

/// The `WWW-Authenticate` value of a 401 answer (RFC 6750 §3, RFC 9728
/// §5.1): `Bearer resource_metadata="<url>"`, and when a token was presented
/// and refused, `, error="invalid_token", error_description="<why>"`.
///
/// `error_description` must be printable ASCII without `"` or `\` (RFC 6750
/// §3); any other character is replaced by `?`, so the value is always a
/// valid quoted string.
pub fn bearer_challenge(resource_metadata_url: &str, invalid_token: Option<&str>) -> String {
    let mut challenge = format!(
        "Bearer resource_metadata=\"{}\"",
        quoted(resource_metadata_url)
    );
    if let Some(description) = invalid_token {
        challenge.push_str(", error=\"invalid_token\", error_description=\"");
        challenge.push_str(&quoted(description));
        challenge.push('"');
    }
    challenge
}

fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| {
            if (' '..='~').contains(&c) && c != '"' && c != '\\' {
                c
            } else {
                '?'
            }
        })
        .collect()
}
