//! The `oauth` feature of `mcp-profiles-serve` with real parts: keys
//! generated here, an issuer's metadata and JWKS served by axum on
//! 127.0.0.1, tokens minted per case; and the official TypeScript MCP
//! SDK's client against the resource server (`sdk`).

mod config;
mod issuer;
mod keys;
mod metadata;
mod rotation;
mod sdk;
mod tokens;
