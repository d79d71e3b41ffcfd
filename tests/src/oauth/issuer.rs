//! An authorization server's discovery document and JWKS on 127.0.0.1.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use jsonwebtoken::jwk::Jwk;
use mcp_profiles_serve::oauth::{OAuthConfig, TokenValidator};
use serde_json::json;

use super::keys::TestKey;

/// The resource URI of the validators [`Issuer::validator`] makes.
pub const RESOURCE: &str = "https://mcp.example.com/mcp";

/// Which discovery document the issuer serves.
#[derive(Clone, Copy)]
pub enum Discovery {
    /// RFC 8414's `oauth-authorization-server`.
    OAuth,
    /// Only OpenID's `openid-configuration`.
    OpenId,
    /// RFC 8414's, naming another issuer.
    Impostor,
}

/// A running issuer: its URL, the keys its JWKS publishes, and switches
/// for the failure cases.
pub struct Issuer {
    /// `http://127.0.0.1:PORT`, its `iss`.
    pub url: String,
    keys: Arc<Mutex<Vec<Jwk>>>,
    jwks_hits: Arc<AtomicUsize>,
    jwks_down: Arc<Mutex<bool>>,
}

impl Issuer {
    /// Serves `discovery`'s metadata and a JWKS of `keys` on 127.0.0.1.
    pub async fn start(discovery: Discovery, keys: &[&TestKey]) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let issuer = Issuer {
            url: url.clone(),
            keys: Arc::new(Mutex::new(keys.iter().map(|key| key.jwk.clone()).collect())),
            jwks_hits: Arc::default(),
            jwks_down: Arc::default(),
        };
        let named = match discovery {
            Discovery::Impostor => "http://impostor.example".to_owned(),
            _ => url.clone(),
        };
        let metadata = json!({ "issuer": named, "jwks_uri": format!("{url}/jwks") }).to_string();
        let well_known = match discovery {
            Discovery::OpenId => "/.well-known/openid-configuration",
            _ => "/.well-known/oauth-authorization-server",
        };
        let (keys, hits, down) = (
            issuer.keys.clone(),
            issuer.jwks_hits.clone(),
            issuer.jwks_down.clone(),
        );
        let app = Router::new()
            .route(
                well_known,
                get(move || async move { json_response(metadata) }),
            )
            .route(
                "/jwks",
                get(move || async move {
                    hits.fetch_add(1, Ordering::SeqCst);
                    if *down.lock().unwrap() {
                        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                    }
                    let keys = keys.lock().unwrap().clone();
                    json_response(json!({ "keys": keys }).to_string())
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        issuer
    }

    /// Publishes `key` beside the others (the issuer rotates it in).
    pub fn publish(&self, key: &TestKey) {
        self.keys.lock().unwrap().push(key.jwk.clone());
    }

    /// Takes the key `kid` out of the JWKS (the issuer withdraws it).
    pub fn withdraw(&self, kid: &str) {
        self.keys
            .lock()
            .unwrap()
            .retain(|jwk| jwk.common.key_id.as_deref() != Some(kid));
    }

    /// Makes the JWKS endpoint answer 500 from now on.
    pub fn break_jwks(&self) {
        *self.jwks_down.lock().unwrap() = true;
    }

    /// How many times the JWKS was fetched.
    pub fn jwks_hits(&self) -> usize {
        self.jwks_hits.load(Ordering::SeqCst)
    }

    /// A configuration trusting this issuer for [`RESOURCE`].
    pub fn config(&self) -> OAuthConfig {
        OAuthConfig::new(&self.url, RESOURCE).expect("a valid config")
    }

    /// A validator of [`config`](Self::config).
    pub fn validator(&self) -> TokenValidator {
        TokenValidator::new(self.config())
    }

    /// Claims valid for five minutes, for this issuer and the resource.
    pub fn claims(&self) -> serde_json::Value {
        let now = now();
        json!({
            "iss": self.url,
            "aud": RESOURCE,
            "sub": "alice",
            "client_id": "desk-client",
            "scope": "tickets:read tickets:write",
            "iat": now,
            "exp": now + 300,
        })
    }
}

/// `base` with the fields of `change` set over it.
pub fn merged(mut base: serde_json::Value, change: &serde_json::Value) -> serde_json::Value {
    let fields = change.as_object().expect("an object").clone();
    base.as_object_mut().expect("an object").extend(fields);
    base
}

/// Seconds since the epoch, as `exp` counts them.
pub fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

fn json_response(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}
