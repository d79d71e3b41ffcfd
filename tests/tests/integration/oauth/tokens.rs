//! Each token case against a validator of a live issuer: accepted, or
//! refused naming what failed; and an `https` issuer is spoken to over TLS.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use std::time::Duration;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_profiles_serve::oauth::{OAuthConfig, SigningAlgorithm, TokenError, TokenValidator};
use serde_json::json;

use super::issuer::{Discovery, Issuer, RESOURCE, merged, now};
use super::keys::{TestKey, rsa_public_der};

struct Setup {
    issuer: Issuer,
    validator: TokenValidator,
    rsa: TestKey,
    ec: TestKey,
    ed: TestKey,
}

async fn setup() -> Setup {
    let (rsa, ec, ed) = (
        TestKey::rs256("rsa-1"),
        TestKey::es256("ec-1"),
        TestKey::ed25519("ed-1"),
    );
    let issuer = Issuer::start(Discovery::OAuth, &[&rsa, &ec, &ed]).await;
    let validator = issuer.validator();
    Setup {
        issuer,
        validator,
        rsa,
        ec,
        ed,
    }
}

fn encode(part: &serde_json::Value) -> String {
    URL_SAFE_NO_PAD.encode(part.to_string())
}

#[tokio::test]
async fn a_good_token_of_each_algorithm_is_accepted_with_its_claims() {
    let s = setup().await;
    for key in [&s.rsa, &s.ec, &s.ed] {
        let mut claims = s.issuer.claims();
        claims["scp"] = json!(["admin"]);
        let token = s
            .validator
            .validate(&key.sign(&claims))
            .await
            .expect("accepted");
        assert_eq!(token.subject(), Some("alice"), "{:?}", key.alg);
        assert_eq!(token.client_id(), Some("desk-client"));
        let scopes: Vec<&str> = token.scopes().iter().map(String::as_str).collect();
        assert_eq!(scopes, ["admin", "tickets:read", "tickets:write"]);
        assert!(token.has_scope("tickets:write"));
        assert_eq!(token.claims()["iss"], json!(s.issuer.url));
    }
    // Discovered and fetched once for all three.
    assert_eq!(s.issuer.jwks_hits(), 1);
}

#[tokio::test]
async fn an_audience_list_containing_the_resource_is_accepted() {
    let s = setup().await;
    let mut claims = s.issuer.claims();
    claims["aud"] = json!(["https://other.example.com", super::issuer::RESOURCE]);
    s.validator
        .validate(&s.ec.sign(&claims))
        .await
        .expect("accepted");
}

#[tokio::test]
async fn time_claims_are_checked_with_the_leeway() {
    let s = setup().await;
    let cases = [
        (json!({ "exp": now() - 120 }), Some(TokenError::Expired)),
        (json!({ "exp": now() - 10 }), None),
        (json!({ "nbf": now() + 120 }), Some(TokenError::NotYetValid)),
        (json!({ "nbf": now() + 10 }), None),
    ];
    for (change, expected) in cases {
        let claims = merged(s.issuer.claims(), &change);
        let outcome = s.validator.validate(&s.ed.sign(&claims)).await;
        assert_eq!(outcome.err(), expected, "{change}");
    }
}

#[tokio::test]
async fn issuer_audience_and_required_claims_are_checked() {
    let s = setup().await;
    let cases = [
        (
            json!({ "iss": "http://127.0.0.1:1" }),
            TokenError::WrongIssuer,
        ),
        (
            json!({ "iss": format!("{}/", s.issuer.url) }),
            TokenError::WrongIssuer,
        ),
        (
            json!({ "aud": "https://mcp.example.com/other" }),
            TokenError::WrongAudience,
        ),
        (
            json!({ "aud": ["https://other.example.com"] }),
            TokenError::WrongAudience,
        ),
        (
            json!({ "scope": ["tickets:read"] }),
            TokenError::InvalidClaim("scope".into()),
        ),
        (json!({ "sub": 7 }), TokenError::InvalidClaim("sub".into())),
    ];
    for (change, expected) in cases {
        let claims = merged(s.issuer.claims(), &change);
        let outcome = s.validator.validate(&s.rsa.sign(&claims)).await;
        assert_eq!(outcome.err(), Some(expected), "{change}");
    }
    for claim in ["exp", "iss", "aud"] {
        let mut claims = s.issuer.claims();
        claims.as_object_mut().unwrap().remove(claim);
        let outcome = s.validator.validate(&s.rsa.sign(&claims)).await;
        assert_eq!(
            outcome.err(),
            Some(TokenError::MissingClaim(claim.into())),
            "{claim}"
        );
    }
}

#[tokio::test]
async fn alg_none_is_refused() {
    let s = setup().await;
    let header = json!({ "alg": "none", "typ": "JWT", "kid": "rsa-1" });
    let token = format!("{}.{}.", encode(&header), encode(&s.issuer.claims()));
    let outcome = s.validator.validate(&token).await;
    assert_eq!(
        outcome.err(),
        Some(TokenError::AlgorithmNotAllowed("none".into()))
    );
}

#[tokio::test]
async fn hs256_with_the_public_key_as_secret_is_refused() {
    let s = setup().await;
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("rsa-1".into());
    let secret = EncodingKey::from_secret(&rsa_public_der()).unwrap();
    let token = jsonwebtoken::encode(&header, &s.issuer.claims(), &secret).unwrap();
    let outcome = s.validator.validate(&token).await;
    assert_eq!(
        outcome.err(),
        Some(TokenError::AlgorithmNotAllowed("HS256".into()))
    );
    // Refused before any key was looked up.
    assert_eq!(s.issuer.jwks_hits(), 0);
}

#[tokio::test]
async fn an_algorithm_left_out_of_the_config_is_refused() {
    let s = setup().await;
    let config = s
        .issuer
        .config()
        .with_algorithms([SigningAlgorithm::ES256])
        .unwrap();
    let validator = TokenValidator::new(config);
    let outcome = validator.validate(&s.rsa.sign(&s.issuer.claims())).await;
    assert_eq!(
        outcome.err(),
        Some(TokenError::AlgorithmNotAllowed("RS256".into()))
    );
    validator
        .validate(&s.ec.sign(&s.issuer.claims()))
        .await
        .expect("ES256 accepted");
}

#[tokio::test]
async fn a_key_of_another_type_than_the_alg_is_refused() {
    let s = setup().await;
    // Signed by the EC key, but naming the RSA key's id.
    let mut header = s.ec.header();
    header.kid = Some("rsa-1".into());
    let token = jsonwebtoken::encode(&header, &s.issuer.claims(), &s.ec.encoding).unwrap();
    let outcome = s.validator.validate(&token).await;
    let expected = TokenError::KeyMismatch {
        kid: "rsa-1".into(),
        alg: "ES256".into(),
    };
    assert_eq!(outcome.err(), Some(expected));
}

#[tokio::test]
async fn a_tampered_payload_is_refused() {
    let s = setup().await;
    for key in [&s.rsa, &s.ec, &s.ed] {
        let token = key.sign(&s.issuer.claims());
        let parts: Vec<&str> = token.split('.').collect();
        let mut claims = s.issuer.claims();
        claims["scope"] = json!("tickets:read tickets:write admin");
        let forged = format!("{}.{}.{}", parts[0], encode(&claims), parts[2]);
        let outcome = s.validator.validate(&forged).await;
        assert_eq!(
            outcome.err(),
            Some(TokenError::BadSignature),
            "{:?}",
            key.alg
        );
    }
}

#[tokio::test]
async fn malformed_tokens_and_a_missing_kid_are_refused() {
    let s = setup().await;
    for token in [
        "",
        "abc",
        "a.b.c",
        "e30.e30.",
        "a.b.c.d.e",
        "not a token at all",
    ] {
        let outcome = s.validator.validate(token).await;
        assert!(
            matches!(outcome, Err(TokenError::Malformed(_))),
            "{token:?}: {outcome:?}"
        );
    }
    let mut header = s.ed.header();
    header.kid = None;
    let token = jsonwebtoken::encode(&header, &s.issuer.claims(), &s.ed.encoding).unwrap();
    assert_eq!(
        s.validator.validate(&token).await.err(),
        Some(TokenError::MissingKeyId)
    );
}

#[tokio::test]
async fn openid_discovery_is_the_fallback() {
    let key = TestKey::es256("ec-1");
    let issuer = Issuer::start(Discovery::OpenId, &[&key]).await;
    issuer
        .validator()
        .validate(&key.sign(&issuer.claims()))
        .await
        .expect("accepted");
}

#[tokio::test]
async fn metadata_naming_another_issuer_is_not_trusted() {
    let key = TestKey::es256("ec-1");
    let issuer = Issuer::start(Discovery::Impostor, &[&key]).await;
    let outcome = issuer
        .validator()
        .validate(&key.sign(&issuer.claims()))
        .await;
    assert!(matches!(&outcome, Err(TokenError::Unavailable(why)) if why.contains("impostor")));
    assert_eq!(issuer.jwks_hits(), 0);
}

#[tokio::test]
async fn an_https_issuer_is_fetched_over_tls() {
    use tokio::io::AsyncReadExt as _;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://{}", listener.local_addr().unwrap());
    let validator = TokenValidator::new(OAuthConfig::new(&url, RESOURCE).unwrap());
    let key = TestKey::es256("ec-1");
    let claims = json!({ "iss": url, "aud": RESOURCE, "exp": now() + 300 });
    let token = key.sign(&claims);
    let validation = tokio::spawn(async move { validator.validate(&token).await });
    let (mut stream, _) = tokio::time::timeout(Duration::from_secs(5), listener.accept())
        .await
        .expect("the validator connects")
        .unwrap();
    // A TLS handshake record (the ClientHello), not a plain HTTP request.
    let mut record = [0; 2];
    stream.read_exact(&mut record).await.unwrap();
    assert_eq!(record, [0x16, 0x03]);
    drop((stream, listener));
    let outcome = validation.await.unwrap();
    assert!(
        matches!(&outcome, Err(TokenError::Unavailable(_))),
        "{outcome:?}"
    );
}
