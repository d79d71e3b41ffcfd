//! An OAuth 2.1 resource server's parts, as the MCP authorization
//! specification asks of an HTTP MCP server (feature `oauth`).
//!
//! - [`OAuthConfig`]: the issuer, this server's resource URI (the `aud` of
//!   its tokens, RFC 8707), the accepted algorithms, the clock leeway and
//!   the JWKS timings; strictly decoded with serde.
//! - [`Introspection`]: optional, part of the configuration: the issuer's
//!   token introspection endpoint (RFC 7662; configured, or named by its
//!   metadata), this server's client credentials there and how long an
//!   active answer is reused.
//! - [`TokenValidator`]: validates JWT access tokens against the issuer's
//!   JWKS, found through its metadata (RFC 8414, else OpenID discovery),
//!   cached and refetched for an unknown `kid` at most once per interval.
//!   With [`Introspection`], any other (opaque) token is sent to the
//!   introspection endpoint; an active answer is checked like a JWT's
//!   claims and cached by the token's SHA-256, never beyond its `exp`.
//!   When the keys or the endpoint cannot be had, every token that needs
//!   them is refused ([`TokenError::Unavailable`], HTTP 503). `https` is
//!   fetched with rustls and the platform's root certificates.
//! - [`TokenError`]: what failed, with the HTTP answer (401 with
//!   `WWW-Authenticate`, or 503); [`bearer_challenge`] builds the header.
//! - [`ProtectedResourceMetadata`] and [`metadata_router`]: the RFC 9728
//!   document at `/.well-known/oauth-protected-resource` (and its
//!   path-suffixed form).
//! - [`ClaimMapping`]: how a token's claims become its profile (whose
//!   stored profile, which scopes grant which capabilities, which scopes a
//!   client may be asked to step up to); [`OAuth`]: a validator and a
//!   mapping, the resource server that
//!   [`http::oauth_router`](crate::http::oauth_router) and
//!   [`Serve::oauth`](crate::http::Serve::oauth) put in front of a
//!   [`ProfileStore`](crate::ProfileStore)'s agents.

mod config;
mod config_check;
mod discovery;
mod error;
mod introspection;
mod introspector;
mod jwks;
mod mapping;
mod metadata;
mod resource;
mod step_up;
mod token_cache;
mod validator;

pub use config::{OAuthConfig, SigningAlgorithm};
pub use config_check::ConfigError;
pub use error::{TokenError, bearer_challenge};
pub use introspection::Introspection;
pub use mapping::{ClaimMapping, MappingError};
pub use metadata::{ProtectedResourceMetadata, metadata_router};
pub(crate) use resource::Admission;
pub use resource::{OAuth, OAuthError};
pub use validator::{AccessToken, TokenValidator};
