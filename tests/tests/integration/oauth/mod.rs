//! The `oauth` feature of `mcp-profiles-serve` with real parts: keys
//! generated here, an issuer's metadata and JWKS served by axum on
//! 127.0.0.1, tokens minted per case.

mod claims;
mod config;
mod issuer;
mod keys;
mod metadata;
mod resource;
mod rotation;
mod serving;
mod tokens;
