//! Opaque access tokens through token introspection (RFC 7662), against an
//! introspection endpoint served by axum on 127.0.0.1 that checks the
//! client's Basic credentials and answers per token.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use mcp_profiles_serve::oauth::{Introspection, OAuthConfig, TokenError, TokenValidator};
use serde_json::{Value, json};

use super::issuer::{Discovery, Issuer, RESOURCE, merged, now};
use super::keys::TestKey;

const CLIENT_ID: &str = "mcp-server";
/// A secret with characters that RFC 6749 §2.3.1's form-urlencoding
/// changes, so the endpoint can tell whether the client encoded it.
const CLIENT_SECRET: &str = "s3cret:/+ é";
/// `CLIENT_ID:CLIENT_SECRET`, each form-urlencoded: what the Basic
/// credentials must carry.
const ENCODED_CREDENTIALS: &str = "mcp-server:s3cret%3A%2F%2B+%C3%A9";
const METADATA_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

/// What the endpoint answers for one token.
#[derive(Clone)]
enum Reply {
    Json(Value),
    Status(StatusCode),
    Text(&'static str),
}

/// An authorization server with an introspection endpoint and the metadata
/// naming it (and no `jwks_uri`: it issues only opaque tokens).
struct AuthServer {
    url: String,
    replies: Arc<Mutex<HashMap<String, Reply>>>,
    hits: Arc<AtomicUsize>,
}

impl AuthServer {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let server = AuthServer {
            url: url.clone(),
            replies: Arc::default(),
            hits: Arc::default(),
        };
        let metadata = json!({
            "issuer": url,
            "introspection_endpoint": format!("{url}/introspect"),
        })
        .to_string();
        let (replies, hits) = (server.replies.clone(), server.hits.clone());
        let app = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(move || async move {
                    ([(header::CONTENT_TYPE, "application/json")], metadata).into_response()
                }),
            )
            .route(
                "/introspect",
                post(move |headers: HeaderMap, body: String| async move {
                    hits.fetch_add(1, Ordering::SeqCst);
                    introspect(&replies, &headers, &body)
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        server
    }

    fn endpoint(&self) -> String {
        format!("{}/introspect", self.url)
    }

    /// Answers `reply` for `token` from now on (any other token: inactive).
    fn answer(&self, token: &str, reply: Reply) {
        self.replies.lock().unwrap().insert(token.to_owned(), reply);
    }

    /// Answers an active token with `claims` over the usual ones.
    fn activate(&self, token: &str, change: &Value) {
        self.answer(token, Reply::Json(merged(self.active_claims(), change)));
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// An active answer for this issuer and the resource, valid five
    /// minutes.
    fn active_claims(&self) -> Value {
        let now = now();
        json!({
            "active": true,
            "iss": self.url,
            "aud": RESOURCE,
            "sub": "alice",
            "client_id": "desk-client",
            "scope": "tickets:read tickets:write",
            "token_type": "Bearer",
            "iat": now,
            "exp": now + 300,
        })
    }

    /// Introspection at this server's endpoint with the right credentials.
    fn introspection(&self) -> Introspection {
        Introspection::new(CLIENT_ID, CLIENT_SECRET)
            .unwrap()
            .with_endpoint(&self.endpoint())
            .unwrap()
    }

    fn config(&self, introspection: Introspection) -> OAuthConfig {
        OAuthConfig::new(&self.url, RESOURCE)
            .unwrap()
            .with_introspection(introspection)
    }

    fn validator(&self) -> TokenValidator {
        TokenValidator::new(self.config(self.introspection()))
    }
}

/// The endpoint: 401 without the client's credentials or without a form
/// body naming the token as an access token, else the token's reply.
fn introspect(
    replies: &Mutex<HashMap<String, Reply>>,
    headers: &HeaderMap,
    body: &str,
) -> Response {
    let expected = format!("Basic {}", STANDARD.encode(ENCODED_CREDENTIALS));
    let form = headers
        .get(header::CONTENT_TYPE)
        .map(|value| value.as_bytes())
        == Some(b"application/x-www-form-urlencoded");
    if headers
        .get(header::AUTHORIZATION)
        .map(|value| value.as_bytes())
        != Some(expected.as_bytes())
        || !form
    {
        return (StatusCode::UNAUTHORIZED, "invalid_client").into_response();
    }
    let fields: HashMap<String, String> = form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    if fields.get("token_type_hint").map(String::as_str) != Some("access_token") {
        return StatusCode::BAD_REQUEST.into_response();
    }
    let token = fields.get("token").cloned().unwrap_or_default();
    let reply = replies.lock().unwrap().get(&token).cloned();
    match reply.unwrap_or(Reply::Json(json!({ "active": false }))) {
        Reply::Json(answer) => (
            [(header::CONTENT_TYPE, "application/json")],
            answer.to_string(),
        )
            .into_response(),
        Reply::Status(status) => status.into_response(),
        Reply::Text(text) => text.into_response(),
    }
}

/// The URL of a port that was just free: nothing listens there.
fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

#[tokio::test]
async fn an_active_token_is_accepted_with_its_claims_and_scopes() {
    let server = AuthServer::start().await;
    // `+`, `/` and `=` arrive intact only if the form body encodes them.
    let opaque = "opaque+tok/en==";
    server.activate(opaque, &json!({ "scope": "tickets:read admin" }));
    let token = server.validator().validate(opaque).await.expect("accepted");
    assert_eq!(token.subject(), Some("alice"));
    assert_eq!(token.client_id(), Some("desk-client"));
    let scopes: Vec<&str> = token.scopes().iter().map(String::as_str).collect();
    assert_eq!(scopes, ["admin", "tickets:read"]);
    assert!(token.has_scope("admin"));
    assert_eq!(token.claims()["active"], json!(true));
    assert_eq!(token.claims()["token_type"], json!("Bearer"));
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn an_answer_without_iss_and_an_audience_list_are_accepted() {
    let server = AuthServer::start().await;
    let mut claims = server.active_claims();
    claims.as_object_mut().unwrap().remove("iss");
    claims["aud"] = json!(["https://other.example.com", RESOURCE]);
    server.answer("no-iss", Reply::Json(claims));
    server
        .validator()
        .validate("no-iss")
        .await
        .expect("accepted");
}

#[tokio::test]
async fn an_inactive_token_is_refused_with_the_exact_challenge() {
    let server = AuthServer::start().await;
    let validator = server.validator();
    let refused = validator.validate("revoked-token").await.unwrap_err();
    assert_eq!(refused, TokenError::Inactive);
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let challenge = format!(
        "Bearer resource_metadata=\"{METADATA_URL}\", error=\"invalid_token\", \
         error_description=\"the token is not active\""
    );
    let metadata_url = validator.config().resource_metadata_url();
    assert_eq!(metadata_url, METADATA_URL);
    assert_eq!(
        refused.www_authenticate(&metadata_url).as_deref(),
        Some(challenge.as_str())
    );
    let response = refused.response(&metadata_url);
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(response.headers()[header::WWW_AUTHENTICATE], challenge);
}

#[tokio::test]
async fn the_answers_claims_are_checked_like_a_jwts() {
    let server = AuthServer::start().await;
    let validator = TokenValidator::new(
        server
            .config(server.introspection())
            .with_leeway(Duration::from_secs(30))
            .unwrap(),
    );
    let cases = [
        (
            json!({ "iss": "http://127.0.0.1:1" }),
            Some(TokenError::WrongIssuer),
        ),
        (
            json!({ "iss": 7 }),
            Some(TokenError::InvalidClaim("iss".into())),
        ),
        (
            json!({ "aud": "https://mcp.example.com/other" }),
            Some(TokenError::WrongAudience),
        ),
        (
            json!({ "aud": ["https://other.example.com"] }),
            Some(TokenError::WrongAudience),
        ),
        (
            json!({ "aud": [RESOURCE, 7] }),
            Some(TokenError::InvalidClaim("aud".into())),
        ),
        (json!({ "exp": now() - 120 }), Some(TokenError::Expired)),
        (json!({ "exp": now() - 10 }), None),
        (
            json!({ "exp": "tomorrow" }),
            Some(TokenError::InvalidClaim("exp".into())),
        ),
        (json!({ "nbf": now() + 120 }), Some(TokenError::NotYetValid)),
        (json!({ "nbf": now() + 10 }), None),
        (
            json!({ "sub": 7 }),
            Some(TokenError::InvalidClaim("sub".into())),
        ),
    ];
    for (index, (change, expected)) in cases.into_iter().enumerate() {
        let token = format!("case-{index}");
        server.activate(&token, &change);
        let outcome = validator.validate(&token).await;
        assert_eq!(outcome.err(), expected, "{change}");
    }
    for claim in ["aud", "exp"] {
        let mut claims = server.active_claims();
        claims.as_object_mut().unwrap().remove(claim);
        let token = format!("without-{claim}");
        server.answer(&token, Reply::Json(claims));
        assert_eq!(
            validator.validate(&token).await.err(),
            Some(TokenError::MissingClaim(claim.into())),
            "{claim}"
        );
    }
}

#[tokio::test]
async fn an_endpoint_that_fails_is_unavailable_and_accepts_nothing() {
    let server = AuthServer::start().await;
    let validator = server.validator();
    let replies = [
        (
            "status-500",
            Reply::Status(StatusCode::INTERNAL_SERVER_ERROR),
        ),
        ("status-204", Reply::Status(StatusCode::NO_CONTENT)),
        ("not-json", Reply::Text("<html>active</html>")),
        ("not-an-object", Reply::Json(json!(["active", true]))),
        (
            "no-active",
            Reply::Json(json!({ "sub": "alice", "aud": RESOURCE })),
        ),
        (
            "active-as-text",
            Reply::Json(merged(server.active_claims(), &json!({ "active": "true" }))),
        ),
    ];
    for (token, reply) in replies {
        server.answer(token, reply);
        let outcome = validator.validate(token).await;
        assert!(
            matches!(&outcome, Err(TokenError::Unavailable(_))),
            "{token}: {outcome:?}"
        );
        assert_eq!(
            outcome.unwrap_err().status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
    }

    // The endpoint refuses credentials it does not know (401): unavailable,
    // not the token's fault.
    server.activate("good-token", &json!({}));
    let wrong = Introspection::new(CLIENT_ID, "wrong")
        .unwrap()
        .with_endpoint(&server.endpoint())
        .unwrap();
    let outcome = TokenValidator::new(server.config(wrong))
        .validate("good-token")
        .await;
    assert!(
        matches!(&outcome, Err(TokenError::Unavailable(why)) if why.contains("401")),
        "{outcome:?}"
    );

    // Nothing listens at the endpoint.
    let down = Introspection::new(CLIENT_ID, CLIENT_SECRET)
        .unwrap()
        .with_endpoint(&format!("{}/introspect", closed_url()))
        .unwrap();
    let validator = TokenValidator::new(server.config(down));
    for _ in 0..2 {
        let outcome = validator.validate("good-token").await;
        assert!(
            matches!(&outcome, Err(TokenError::Unavailable(_))),
            "{outcome:?}"
        );
    }
}

#[tokio::test]
async fn active_answers_are_cached_until_the_ttl_and_inactive_ones_not_at_all() {
    let server = AuthServer::start().await;
    let introspection = server
        .introspection()
        .with_cache_ttl(Duration::from_secs(1))
        .unwrap();
    let validator = TokenValidator::new(server.config(introspection));
    server.activate("cached", &json!({}));
    for _ in 0..3 {
        validator.validate("cached").await.expect("accepted");
    }
    assert_eq!(server.hits(), 1);

    // Revoked at the issuer: accepted from the cache until the TTL ends,
    // then asked again and refused.
    server.answer("cached", Reply::Json(json!({ "active": false })));
    validator.validate("cached").await.expect("still cached");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(
        validator.validate("cached").await.err(),
        Some(TokenError::Inactive)
    );
    assert_eq!(server.hits(), 2);

    for _ in 0..2 {
        assert_eq!(
            validator.validate("cached").await.err(),
            Some(TokenError::Inactive)
        );
    }
    assert_eq!(server.hits(), 4);
}

#[tokio::test]
async fn a_cached_answer_never_outlives_the_tokens_exp() {
    let server = AuthServer::start().await;
    // The default TTL (60 s) is longer than the token's life, and no
    // leeway: once `exp` is past, only a new answer could accept it.
    let config = server
        .config(server.introspection())
        .with_leeway(Duration::ZERO)
        .unwrap();
    let validator = TokenValidator::new(config);
    server.activate("short-lived", &json!({ "exp": now() + 2 }));
    validator.validate("short-lived").await.expect("accepted");
    validator.validate("short-lived").await.expect("cached");
    assert_eq!(server.hits(), 1);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        validator.validate("short-lived").await.err(),
        Some(TokenError::Expired)
    );
    assert_eq!(server.hits(), 2);
}

#[tokio::test]
async fn a_full_cache_makes_room_with_the_answer_nearest_its_expiry() {
    let server = AuthServer::start().await;
    let introspection = server.introspection().with_cache_max_entries(1).unwrap();
    let validator = TokenValidator::new(server.config(introspection));
    server.activate("soon", &json!({ "exp": now() + 30 }));
    server.activate("later", &json!({ "exp": now() + 300 }));
    validator.validate("soon").await.expect("accepted");
    validator.validate("later").await.expect("accepted");
    assert_eq!(server.hits(), 2);
    // `soon` made room for `later`: asked again.
    validator.validate("soon").await.expect("accepted");
    validator.validate("soon").await.expect("cached");
    assert_eq!(server.hits(), 3);
}

#[tokio::test]
async fn a_jwt_still_goes_to_the_jwks_and_never_to_the_endpoint() {
    let key = TestKey::es256("ec-1");
    let issuer = Issuer::start(Discovery::OAuth, &[&key]).await;
    let server = AuthServer::start().await;
    let validator = TokenValidator::new(issuer.config().with_introspection(server.introspection()));
    let token = validator
        .validate(&key.sign(&issuer.claims()))
        .await
        .expect("accepted");
    assert_eq!(token.subject(), Some("alice"));
    assert_eq!(issuer.jwks_hits(), 1);
    // Three parts are a JWT, so a malformed one is refused as one.
    let outcome = validator.validate("a.b.c").await;
    assert!(
        matches!(&outcome, Err(TokenError::Malformed(_))),
        "{outcome:?}"
    );
    assert_eq!(server.hits(), 0);
}

#[tokio::test]
async fn what_is_not_a_bearer_token_never_reaches_the_endpoint() {
    let server = AuthServer::start().await;
    let validator = server.validator();
    let long = "x".repeat(4097);
    for token in [
        "",
        "=",
        "has space",
        "tök",
        "a=b",
        "tok\r\nen",
        long.as_str(),
    ] {
        let outcome = validator.validate(token).await;
        assert!(
            matches!(&outcome, Err(TokenError::Malformed(_))),
            "{token:?}: {outcome:?}"
        );
    }
    assert_eq!(server.hits(), 0);
}

#[tokio::test]
async fn without_introspection_an_opaque_token_is_malformed() {
    let key = TestKey::es256("ec-1");
    let issuer = Issuer::start(Discovery::OAuth, &[&key]).await;
    let outcome = issuer.validator().validate("opaque-token").await;
    assert_eq!(
        outcome.err(),
        Some(TokenError::Malformed(
            "not three dot-separated parts".into()
        ))
    );
    assert_eq!(issuer.jwks_hits(), 0);
}

#[tokio::test]
async fn the_endpoint_is_found_in_the_issuers_metadata() {
    let server = AuthServer::start().await;
    server.activate("discovered", &json!({}));
    let introspection = Introspection::new(CLIENT_ID, CLIENT_SECRET).unwrap();
    assert_eq!(introspection.endpoint(), None);
    let validator = TokenValidator::new(server.config(introspection.clone()));
    validator.validate("discovered").await.expect("accepted");
    validator.validate("other").await.unwrap_err();
    assert_eq!(server.hits(), 2);

    // An issuer whose metadata cannot be had: unavailable, each time.
    let url = closed_url();
    let config = OAuthConfig::new(&url, RESOURCE)
        .unwrap()
        .with_introspection(introspection);
    let validator = TokenValidator::new(config);
    for _ in 0..2 {
        let outcome = validator.validate("discovered").await;
        assert!(
            matches!(&outcome, Err(TokenError::Unavailable(why)) if why.contains("discovery")),
            "{outcome:?}"
        );
    }
}

#[tokio::test]
async fn metadata_without_an_introspection_endpoint_is_unavailable() {
    // The JWT issuer's metadata names only its `jwks_uri`.
    let issuer = Issuer::start(Discovery::OAuth, &[]).await;
    let introspection = Introspection::new(CLIENT_ID, CLIENT_SECRET).unwrap();
    let outcome = TokenValidator::new(issuer.config().with_introspection(introspection))
        .validate("opaque-token")
        .await;
    assert!(
        matches!(&outcome, Err(TokenError::Unavailable(why)) if why.contains("names no introspection_endpoint")),
        "{outcome:?}"
    );
}

#[test]
fn the_introspection_settings_decode_strictly() {
    let base = json!({
        "issuer": "https://auth.example.com",
        "resource": "https://mcp.example.com/mcp",
    });
    let config: OAuthConfig = serde_json::from_value(merged(
        base.clone(),
        &json!({ "introspection": { "client_id": "mcp-server", "client_secret": "s3cret" } }),
    ))
    .unwrap();
    let introspection = config.introspection().expect("configured");
    assert_eq!(introspection.endpoint(), None);
    assert_eq!(introspection.client_id(), "mcp-server");
    assert_eq!(introspection.cache_ttl(), Duration::from_secs(60));
    assert_eq!(introspection.cache_max_entries(), 10_000);
    // The secret stays out of logs.
    assert!(!format!("{config:?}").contains("s3cret"));

    let full = json!({
        "endpoint": "https://auth.example.com/oauth2/introspect",
        "client_id": "mcp-server",
        "client_secret": "s3cret",
        "cache_ttl_seconds": 0,
        "cache_max_entries": 5,
    });
    let config: OAuthConfig =
        serde_json::from_value(merged(base.clone(), &json!({ "introspection": full }))).unwrap();
    let introspection = config.introspection().unwrap();
    assert_eq!(
        introspection.endpoint(),
        Some("https://auth.example.com/oauth2/introspect")
    );
    assert_eq!(introspection.cache_ttl(), Duration::ZERO);
    let serialized = serde_json::to_value(&config).unwrap();
    assert_eq!(serialized["introspection"], full);
    let again: OAuthConfig = serde_json::from_value(serialized).unwrap();
    assert_eq!(again, config);
    // Without introspection the field is left out.
    let plain: OAuthConfig = serde_json::from_value(base.clone()).unwrap();
    assert!(
        serde_json::to_value(&plain)
            .unwrap()
            .get("introspection")
            .is_none()
    );

    let credentials = json!({ "client_id": "mcp-server", "client_secret": "s3cret" });
    let cases = [
        (json!({ "token": "x" }), "unknown field `token`"),
        (
            json!({ "endpoint": "http://auth.example.com/introspect" }),
            "`introspection.endpoint` must be https",
        ),
        (
            json!({ "endpoint": "introspect" }),
            "`introspection.endpoint`",
        ),
        (
            json!({ "client_id": "" }),
            "`introspection.client_id` must not be empty",
        ),
        (
            json!({ "client_secret": "" }),
            "`introspection.client_secret` must not be empty",
        ),
        (
            json!({ "cache_ttl_seconds": 3601 }),
            "`introspection.cache_ttl_seconds` must be at most 3600",
        ),
        (
            json!({ "cache_max_entries": 0 }),
            "`introspection.cache_max_entries` must be at least 1",
        ),
    ];
    for (change, expected) in cases {
        let introspection = merged(credentials.clone(), &change);
        let error = serde_json::from_value::<OAuthConfig>(merged(
            base.clone(),
            &json!({ "introspection": introspection }),
        ))
        .expect_err(expected)
        .to_string();
        assert!(error.contains(expected), "{change}: {error}");
    }
    let missing = serde_json::from_value::<OAuthConfig>(merged(
        base,
        &json!({ "introspection": { "client_id": "mcp-server" } }),
    ))
    .unwrap_err()
    .to_string();
    assert!(
        missing.contains("missing field `client_secret`"),
        "{missing}"
    );
}
