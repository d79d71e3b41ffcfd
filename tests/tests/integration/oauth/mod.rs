//! The `oauth` feature of `mcp-profiles-serve` with real parts: keys
//! generated here, an issuer's metadata, JWKS and introspection endpoint
//! served by axum on 127.0.0.1, tokens minted per case; the resource server
//! over HTTP; and the official TypeScript MCP SDK's client against it
//! (`sdk`).

mod access;
mod claims;
mod config;
mod introspection;
mod metadata;
mod resource;
mod rotation;
mod sdk;
mod serving;
mod tokens;
mod verified;

// The issuer and keys are shared with the benchmarks and Kandev's tests.
use mcp_profiles_tests::oauth::{issuer, keys};
