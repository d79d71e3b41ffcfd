//! Key rotation and an unreachable JWKS: an unknown `kid` refetches at most
//! once per interval, and no fetch failure ever lets a token through.

use std::time::Duration;

use mcp_profiles_serve::oauth::{OAuthConfig, TokenError, TokenValidator};

use super::issuer::{Discovery, Issuer, RESOURCE};
use super::keys::TestKey;

const INTERVAL: Duration = Duration::from_secs(1);

fn validator(issuer: &Issuer) -> TokenValidator {
    let config = issuer
        .config()
        .with_jwks_refetch_interval(INTERVAL)
        .unwrap();
    TokenValidator::new(config)
}

/// An issuer publishing `key`, and a validator that has fetched its JWKS
/// once, for a token of that key.
async fn warmed(key: &TestKey) -> (Issuer, TokenValidator) {
    let issuer = Issuer::start(Discovery::OAuth, &[key]).await;
    let validator = validator(&issuer);
    let token = key.sign(&issuer.claims());
    validator.validate(&token).await.expect("accepted");
    assert_eq!(issuer.jwks_hits(), 1);
    (issuer, validator)
}

#[tokio::test]
async fn an_unknown_kid_refetches_once_per_interval() {
    let old = TestKey::es256("old");
    let (issuer, validator) = warmed(&old).await;

    let rotated = TestKey::ed25519("rotated");
    issuer.publish(&rotated);
    let token = rotated.sign(&issuer.claims());
    // Within the interval of the first fetch: refused without a refetch.
    let outcome = validator.validate(&token).await;
    assert_eq!(
        outcome.err(),
        Some(TokenError::UnknownKey("rotated".into()))
    );
    assert_eq!(issuer.jwks_hits(), 1);

    tokio::time::sleep(INTERVAL + Duration::from_millis(100)).await;
    let accepted = validator
        .validate(&token)
        .await
        .expect("the refetch finds the rotated key");
    assert_eq!(accepted.subject(), Some("alice"));
    assert_eq!(issuer.jwks_hits(), 2);

    // A second unknown kid right after: no refetch, refused.
    let stranger = TestKey::es256("stranger");
    issuer.publish(&stranger);
    let outcome = validator.validate(&stranger.sign(&issuer.claims())).await;
    assert_eq!(
        outcome.err(),
        Some(TokenError::UnknownKey("stranger".into()))
    );
    assert_eq!(issuer.jwks_hits(), 2);
    // Known keys keep working from the cache.
    validator
        .validate(&old.sign(&issuer.claims()))
        .await
        .expect("accepted");
    assert_eq!(issuer.jwks_hits(), 2);
}

#[tokio::test]
async fn an_unreachable_issuer_fails_closed() {
    // A port that was just free: nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let key = TestKey::es256("ec-1");
    let validator = TokenValidator::new(OAuthConfig::new(&url, RESOURCE).unwrap());
    let mut claims = serde_json::json!({ "iss": url, "aud": RESOURCE, "sub": "alice" });
    claims["exp"] = (super::issuer::now() + 300).into();
    let token = key.sign(&claims);
    for _ in 0..2 {
        let outcome = validator.validate(&token).await;
        assert!(
            matches!(&outcome, Err(TokenError::Unavailable(_))),
            "{outcome:?}"
        );
        assert_eq!(outcome.unwrap_err().status(), 503);
    }
}

#[tokio::test]
async fn a_failing_jwks_endpoint_fails_closed_and_keeps_the_cached_keys() {
    let key = TestKey::es256("ec-1");
    let issuer = Issuer::start(Discovery::OAuth, &[]).await;
    issuer.break_jwks();
    let validator = validator(&issuer);
    let token = key.sign(&issuer.claims());
    let outcome = validator.validate(&token).await;
    assert!(matches!(&outcome, Err(TokenError::Unavailable(why)) if why.contains("500")));
    // Within the interval the failure is answered without another fetch.
    let outcome = validator.validate(&token).await;
    assert!(
        matches!(&outcome, Err(TokenError::Unavailable(_))),
        "{outcome:?}"
    );
    assert_eq!(issuer.jwks_hits(), 1);
}

#[tokio::test]
async fn an_unknown_kid_while_the_jwks_is_down_is_unavailable_not_accepted() {
    let known = TestKey::rs256("rsa-1");
    let (issuer, validator) = warmed(&known).await;
    issuer.break_jwks();
    tokio::time::sleep(INTERVAL + Duration::from_millis(100)).await;
    let stranger = TestKey::ed25519("stranger");
    let outcome = validator.validate(&stranger.sign(&issuer.claims())).await;
    assert!(
        matches!(&outcome, Err(TokenError::Unavailable(_))),
        "{outcome:?}"
    );
    // The keys fetched before the failure still verify their tokens.
    validator
        .validate(&known.sign(&issuer.claims()))
        .await
        .expect("accepted");
}
