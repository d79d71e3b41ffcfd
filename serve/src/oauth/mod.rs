//! An OAuth 2.1 resource server's parts, as the MCP authorization
//! specification asks of an HTTP MCP server (feature `oauth`).
//!
//! - [`OAuthConfig`]: the issuer, this server's resource URI (the `aud` of
//!   its tokens, RFC 8707), the accepted algorithms, the clock leeway and
//!   the JWKS timings; strictly decoded with serde.
//! - [`TokenValidator`]: validates JWT access tokens against the issuer's
//!   JWKS, found through its metadata (RFC 8414, else OpenID discovery),
//!   cached and refetched for an unknown `kid` at most once per interval.
//!   When the keys cannot be had, every token is refused
//!   ([`TokenError::Unavailable`], HTTP 503).
//! - [`TokenError`]: what failed, with the HTTP answer (401 with
//!   `WWW-Authenticate`, or 503); [`bearer_challenge`] builds the header.
//! - [`ProtectedResourceMetadata`] and [`metadata_router`]: the RFC 9728
//!   document at `/.well-known/oauth-protected-resource` (and its
//!   path-suffixed form).
//!
//! The HTTP serving of this crate does not use these yet.

mod config;
mod discovery;
mod error;
mod jwks;
mod mapping;
mod metadata;
mod resource;
mod validator;

pub use config::{ConfigError, OAuthConfig, SigningAlgorithm};
pub use error::{TokenError, bearer_challenge};
pub use mapping::{ClaimMapping, MappingError};
pub use metadata::{ProtectedResourceMetadata, metadata_router};
pub(crate) use resource::Admission;
pub use resource::{OAuth, OAuthError};
pub use validator::{AccessToken, TokenValidator};
