//! `OAuthConfig` decodes strictly and refuses what would weaken the checks.

use std::time::Duration;

use mcp_profiles_serve::oauth::{OAuthConfig, SigningAlgorithm};
use serde_json::json;

use super::issuer::merged;

fn decode(value: serde_json::Value) -> Result<OAuthConfig, String> {
    serde_json::from_value(value).map_err(|error| error.to_string())
}

#[test]
fn the_serde_form_has_defaults_and_round_trips() {
    let config = decode(json!({
        "issuer": "https://auth.example.com",
        "resource": "https://mcp.example.com/mcp",
    }))
    .unwrap();
    assert_eq!(config.issuer(), "https://auth.example.com");
    assert_eq!(config.leeway(), Duration::from_secs(30));
    assert_eq!(config.jwks_refetch_interval(), Duration::from_secs(60));
    assert_eq!(config.jwks_max_age(), Duration::from_secs(3600));
    let all = [
        SigningAlgorithm::RS256,
        SigningAlgorithm::ES256,
        SigningAlgorithm::EdDSA,
    ];
    assert!(config.algorithms().eq(all));
    let again: OAuthConfig =
        serde_json::from_value(serde_json::to_value(&config).unwrap()).unwrap();
    assert_eq!(again, config);

    let narrow = decode(json!({
        "issuer": "http://127.0.0.1:8080/tenant",
        "resource": "http://localhost:3000/mcp",
        "algorithms": ["EdDSA"],
        "leeway_seconds": 5,
        "jwks_refetch_interval_seconds": 10,
        "jwks_max_age_seconds": 600,
        "scopes_supported": ["a"],
    }))
    .unwrap();
    assert!(narrow.algorithms().eq([SigningAlgorithm::EdDSA]));
    assert_eq!(narrow.scopes_supported(), ["a"]);
}

#[test]
fn what_would_weaken_the_checks_is_refused_naming_the_field() {
    let base =
        json!({ "issuer": "https://auth.example.com", "resource": "https://mcp.example.com" });
    let cases = [
        (json!({ "audience": "x" }), "unknown field `audience`"),
        (
            json!({ "algorithms": ["HS256"] }),
            "unknown variant `HS256`",
        ),
        (json!({ "algorithms": ["none"] }), "unknown variant `none`"),
        (json!({ "algorithms": [] }), "`algorithms`"),
        (
            json!({ "issuer": "http://auth.example.com" }),
            "`issuer` must be https",
        ),
        (
            json!({ "issuer": "https://auth.example.com?x=1" }),
            "`issuer` must have no query",
        ),
        (
            json!({ "resource": "https://mcp.example.com/#f" }),
            "`resource` must have no fragment",
        ),
        (json!({ "resource": "mcp" }), "`resource`"),
        (json!({ "leeway_seconds": 301 }), "`leeway_seconds`"),
        (
            json!({ "jwks_refetch_interval_seconds": 0 }),
            "`jwks_refetch_interval_seconds`",
        ),
        (
            json!({ "jwks_max_age_seconds": 30 }),
            "`jwks_max_age_seconds`",
        ),
    ];
    for (change, expected) in cases {
        let error = decode(merged(base.clone(), &change)).expect_err(expected);
        assert!(error.contains(expected), "{change}: {error}");
    }
}
