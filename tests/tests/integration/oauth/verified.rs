//! JWTs found valid are accepted again without their signature being
//! checked for a while — never beyond their `exp`, and never once the key
//! that signed them has left the JWKS in use.

use std::time::Duration;

use mcp_profiles_serve::oauth::{TokenError, TokenValidator};
use serde_json::json;

use super::issuer::{Discovery, Issuer, merged, now};
use super::keys::TestKey;

#[tokio::test]
async fn a_verified_token_is_never_accepted_past_its_exp() {
    let key = TestKey::es256("ec-1");
    let issuer = Issuer::start(Discovery::OAuth, &[&key]).await;
    let config = issuer.config().with_leeway(Duration::ZERO).unwrap();
    let validator = TokenValidator::new(config);
    let token = key.sign(&merged(issuer.claims(), &json!({ "exp": now() + 2 })));
    for _ in 0..3 {
        validator
            .validate(&token)
            .await
            .expect("accepted while valid");
    }
    tokio::time::sleep(Duration::from_millis(3100)).await;
    assert_eq!(
        validator.validate(&token).await.err(),
        Some(TokenError::Expired)
    );
}

#[tokio::test]
async fn a_verified_token_is_refused_once_its_key_leaves_the_jwks() {
    let (old, new) = (TestKey::es256("old"), TestKey::es256("new"));
    let issuer = Issuer::start(Discovery::OAuth, &[&old, &new]).await;
    let interval = Duration::from_secs(1);
    let config = issuer
        .config()
        .with_jwks_refetch_interval(interval)
        .and_then(|config| config.with_jwks_max_age(interval))
        .unwrap();
    let validator = TokenValidator::new(config);
    let token = old.sign(&issuer.claims());
    validator.validate(&token).await.expect("accepted");
    validator.validate(&token).await.expect("accepted again");
    assert_eq!(issuer.jwks_hits(), 1);

    issuer.withdraw("old");
    tokio::time::sleep(interval + Duration::from_millis(100)).await;
    // The JWKS in use is past its age: the token is checked again against
    // the one fetched now, which lacks its key.
    assert_eq!(
        validator.validate(&token).await.err(),
        Some(TokenError::UnknownKey("old".into()))
    );
    validator
        .validate(&new.sign(&issuer.claims()))
        .await
        .expect("the remaining key's tokens are accepted");
}

#[tokio::test]
async fn without_the_cache_every_check_is_made_and_answers_the_same() {
    let key = TestKey::ed25519("ed-1");
    let issuer = Issuer::start(Discovery::OAuth, &[&key]).await;
    let uncached =
        TokenValidator::new(issuer.config().with_verified_cache(Duration::ZERO).unwrap());
    let cached = issuer.validator();
    let token = key.sign(&issuer.claims());
    for _ in 0..2 {
        assert_eq!(
            uncached.validate(&token).await.unwrap(),
            cached.validate(&token).await.unwrap()
        );
    }
    let refused = issuer
        .config()
        .with_verified_cache(Duration::from_secs(3601))
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "oauth config: `verified_cache_seconds` must be at most 3600"
    );
}
