//! The `oauth` feature of `mcp-profiles-serve` with real parts: keys
//! generated here, an issuer's metadata, JWKS and introspection endpoint
//! served by axum on 127.0.0.1, tokens minted per case.

mod config;
mod introspection;
mod issuer;
mod keys;
mod metadata;
mod rotation;
mod tokens;
