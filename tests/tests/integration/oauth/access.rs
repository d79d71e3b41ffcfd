//! Two settings a deployment turns on for stricter access: scopes every
//! access needs (403 `insufficient_scope` naming them, as the MCP
//! authorization spec's scope challenge, before any profile is looked at),
//! and JWT access tokens typed `at+jwt` only (RFC 9068 §4: an ID token of
//! the same issuer, for the same audience, is not an access token). Each
//! on both stores: agents in memory and in Redis.

use jsonwebtoken::Header;
use mcp_profiles_serve::oauth::OAuthConfig;
use serde_json::json;

use super::resource::{MAPPING, Resource, initialize, request};

#[tokio::test]
async fn a_token_without_a_required_scope_is_refused_403_naming_it() {
    let each = Resource::on_each_store(MAPPING, |config| {
        config
            .with_required_scopes(["mcp".to_owned(), "tasks:read".to_owned()])
            .unwrap()
    })
    .await;
    for r in &each {
        refuses_what_lacks_a_required_scope(r).await;
    }
}

async fn refuses_what_lacks_a_required_scope(r: &Resource) {
    let kept = r.kept();
    let metadata = r.metadata_url();
    let cases = [
        (
            "none of them",
            "tasks:ask",
            format!(
                "Bearer resource_metadata=\"{metadata}\", error=\"insufficient_scope\", \
                 scope=\"mcp tasks:ask tasks:read\", error_description=\"any access needs scope mcp tasks:read\""
            ),
            "insufficient scope: any access needs scope `mcp`, `tasks:read`",
        ),
        (
            "one of them",
            "mcp tasks:ask",
            format!(
                "Bearer resource_metadata=\"{metadata}\", error=\"insufficient_scope\", \
                 scope=\"mcp tasks:ask tasks:read\", error_description=\"any access needs scope tasks:read\""
            ),
            "insufficient scope: any access needs scope `tasks:read`",
        ),
    ];
    for (case, scope, challenge, body) in cases {
        let (status, said, text) = request(&r.uri, Some(&r.token(scope)), initialize()).await;
        assert_eq!(
            (status, said.as_str(), text.as_str()),
            (403, challenge.as_str(), body),
            "{case}, {kept}"
        );
    }
    let (status, _, text) = request(&r.uri, Some(&r.token("mcp tasks:read")), initialize()).await;
    assert_eq!(status, 200, "with both, {kept}: {text}");
    // Without a token, the challenge asks for them first.
    let (status, said, _) = request(&r.uri, None, initialize()).await;
    assert_eq!(
        (status, said),
        (
            401,
            format!("Bearer resource_metadata=\"{metadata}\", scope=\"mcp tasks:read tasks:ask\"")
        ),
        "{kept}"
    );
}

#[tokio::test]
async fn only_tokens_typed_at_jwt_are_accepted_where_required() {
    let stricts = Resource::on_each_store(MAPPING, OAuthConfig::requiring_at_jwt).await;
    let lenients = Resource::on_each_store(MAPPING, |config| config).await;
    for (strict, lenient) in stricts.iter().zip(&lenients) {
        accepts_only_at_jwt_where_required(strict, lenient).await;
    }
}

async fn accepts_only_at_jwt_where_required(strict: &Resource, lenient: &Resource) {
    let kept = strict.kept();
    let typed = |r: &Resource, typ: Option<&str>| {
        let mut header: Header = r.key.header();
        header.typ = typ.map(str::to_owned);
        jsonwebtoken::encode(&header, &r.claims(json!({})), &r.key.encoding).unwrap()
    };
    let refused = |r: &Resource| {
        format!(
            "Bearer resource_metadata=\"{}\", error=\"invalid_token\", \
             error_description=\"the token is not typed as an access token (at+jwt)\"",
            r.metadata_url()
        )
    };
    for (typ, status) in [
        (Some("at+jwt"), 200),
        (Some("application/at+jwt"), 200),
        (Some("AT+JWT"), 200),
        (Some("JWT"), 401),
        (None, 401),
    ] {
        let (got, said, text) = request(&strict.uri, Some(&typed(strict, typ)), initialize()).await;
        let expected = if status == 200 {
            String::new()
        } else {
            refused(strict)
        };
        assert_eq!(
            (got, said),
            (status, expected),
            "typ {typ:?}, {kept}: {text}"
        );
        // Unless required, any `typ` is taken.
        let (got, _, text) = request(&lenient.uri, Some(&typed(lenient, typ)), initialize()).await;
        assert_eq!(got, 200, "typ {typ:?} where not required, {kept}: {text}");
    }
}

#[test]
fn the_settings_read_from_json_and_a_bad_scope_is_refused_naming_it() {
    let config: OAuthConfig = serde_json::from_value(json!({
        "issuer": "https://auth.example.com",
        "resource": "https://mcp.example.com/mcp",
        "required_scopes": ["mcp"],
        "require_at_jwt": true,
    }))
    .unwrap();
    assert_eq!(config.required_scopes(), ["mcp"]);
    assert!(config.requires_at_jwt());
    let bad = serde_json::from_value::<OAuthConfig>(json!({
        "issuer": "https://auth.example.com",
        "resource": "https://mcp.example.com/mcp",
        "required_scopes": ["two words"],
    }))
    .unwrap_err()
    .to_string();
    assert!(
        bad.contains("required_scopes") && bad.contains("`two words`"),
        "{bad}"
    );
}
