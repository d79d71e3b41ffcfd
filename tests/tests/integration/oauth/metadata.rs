//! The resource metadata routes and the exact `WWW-Authenticate` answers.

use axum::http::{HeaderValue, StatusCode, header};
use mcp_profiles_serve::oauth::{
    OAuthConfig, ProtectedResourceMetadata, TokenError, bearer_challenge, metadata_router,
};
use serde_json::json;

const METADATA_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

fn config() -> OAuthConfig {
    OAuthConfig::new("https://auth.example.com", "https://mcp.example.com/mcp")
        .unwrap()
        .with_scopes_supported(["tickets:read".to_owned(), "tickets:write".to_owned()])
}

/// GETs `paths` from the metadata router served on 127.0.0.1.
async fn get(paths: &[&str]) -> Vec<(StatusCode, Option<String>, Option<String>, Vec<u8>)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server =
        tokio::spawn(async move { axum::serve(listener, metadata_router(&config())).await });
    let mut answers = Vec::new();
    for path in paths {
        let response = reqwest::get(format!("http://{address}{path}"))
            .await
            .unwrap();
        let header = |name| {
            response
                .headers()
                .get(name)
                .map(|value: &HeaderValue| value.to_str().unwrap().to_owned())
        };
        let (content_type, cors) = (
            header(header::CONTENT_TYPE),
            header(header::ACCESS_CONTROL_ALLOW_ORIGIN),
        );
        let status = StatusCode::from_u16(response.status().as_u16()).unwrap();
        answers.push((
            status,
            content_type,
            cors,
            response.bytes().await.unwrap().to_vec(),
        ));
    }
    server.abort();
    answers
}

#[tokio::test]
async fn the_metadata_is_served_on_both_paths() {
    let expected = json!({
        "resource": "https://mcp.example.com/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["tickets:read", "tickets:write"],
        "bearer_methods_supported": ["header"],
        "resource_signing_alg_values_supported": ["RS256", "ES256", "EdDSA"],
    });
    let paths = [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource/other",
    ];
    let answers = get(&paths).await;
    for (path, (status, content_type, cors, body)) in paths.iter().zip(answers).take(2) {
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(content_type.as_deref(), Some("application/json"));
        assert_eq!(cors.as_deref(), Some("*"));
        let document: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(document, expected, "{path}");
        let typed: ProtectedResourceMetadata = serde_json::from_value(document).unwrap();
        assert_eq!(typed, ProtectedResourceMetadata::from_config(&config()));
    }
    assert_eq!(get(&paths[2..]).await[0].0, StatusCode::NOT_FOUND);
}

#[test]
fn the_metadata_url_inserts_the_well_known_path_before_the_resource_path() {
    assert_eq!(config().resource_metadata_url(), METADATA_URL);
    let root = OAuthConfig::new("https://auth.example.com", "https://mcp.example.com").unwrap();
    assert_eq!(
        root.resource_metadata_url(),
        "https://mcp.example.com/.well-known/oauth-protected-resource"
    );
}

#[test]
fn the_challenges_are_exact() {
    assert_eq!(
        bearer_challenge(METADATA_URL, None),
        format!("Bearer resource_metadata=\"{METADATA_URL}\"")
    );
    assert_eq!(
        TokenError::Missing.www_authenticate(METADATA_URL).unwrap(),
        format!("Bearer resource_metadata=\"{METADATA_URL}\"")
    );
    assert_eq!(
        TokenError::Expired.www_authenticate(METADATA_URL).unwrap(),
        format!(
            "Bearer resource_metadata=\"{METADATA_URL}\", error=\"invalid_token\", \
             error_description=\"the token has expired\""
        )
    );
    // Nothing the caller chose reaches the header: the kid stays out.
    assert_eq!(
        TokenError::UnknownKey("\"evil\r\n".into())
            .www_authenticate(METADATA_URL)
            .unwrap(),
        format!(
            "Bearer resource_metadata=\"{METADATA_URL}\", error=\"invalid_token\", \
             error_description=\"the token's key id is not among the issuer's keys\""
        )
    );
    assert_eq!(
        bearer_challenge("u", Some("a \"quoted\" \\ line\n")),
        "Bearer resource_metadata=\"u\", error=\"invalid_token\", \
         error_description=\"a ?quoted? ? line?\""
    );
    assert_eq!(
        TokenError::Unavailable("down".into()).www_authenticate(METADATA_URL),
        None
    );
}

#[test]
fn each_refusal_has_its_status_and_the_response_carries_the_challenge() {
    assert_eq!(TokenError::Missing.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(TokenError::BadSignature.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        TokenError::Unavailable("down".into()).status(),
        StatusCode::SERVICE_UNAVAILABLE
    );

    let response = TokenError::WrongAudience.response(METADATA_URL);
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        response.headers()[header::WWW_AUTHENTICATE],
        format!(
            "Bearer resource_metadata=\"{METADATA_URL}\", error=\"invalid_token\", \
             error_description=\"the token is not meant for this resource\""
        )
    );
    let response = TokenError::Unavailable("down".into()).response(METADATA_URL);
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(response.headers().get(header::WWW_AUTHENTICATE).is_none());
}
