//! An OAuth authorization server's parts for tests and benchmarks: signing
//! keys generated per run ([`keys`]) and an issuer serving its discovery
//! document and JWKS on 127.0.0.1 ([`issuer`]), so tokens are minted per
//! case and validated against real HTTP; [`probe`] sends one request with
//! a token and reads the status and challenge back.

pub mod issuer;
pub mod keys;
pub mod probe;
