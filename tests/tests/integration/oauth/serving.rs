//! Every token case over HTTP against the resource server: the exact status
//! and `WWW-Authenticate` the MCP authorization specification gives each,
//! the resource metadata, and sessions bound to the principal that opened
//! them.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_profiles_tests::raw::RawSession;
use serde_json::json;

use super::issuer::now;
use super::keys::{TestKey, rsa_public_der};
use super::resource::{ALICE, MAPPING, Resource, context, initialize, request};

fn invalid(resource: &Resource, why: &str) -> String {
    format!(
        "Bearer resource_metadata=\"{}\", error=\"invalid_token\", error_description=\"{why}\"",
        resource.metadata_url()
    )
}

#[tokio::test]
async fn each_token_case_gets_its_status_and_challenge() {
    let r = Resource::start(MAPPING).await;
    let claims = |change| r.claims(change);
    let sign = |change| r.key.sign(&claims(change));
    let forged = |header: serde_json::Value, payload: serde_json::Value, signature: &str| {
        let encode = |part: &serde_json::Value| URL_SAFE_NO_PAD.encode(part.to_string());
        format!("{}.{}.{signature}", encode(&header), encode(&payload))
    };
    let hs256 = {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("ec-1".into());
        let secret = EncodingKey::from_secret(&rsa_public_der()).unwrap();
        jsonwebtoken::encode(&header, &claims(json!({})), &secret).unwrap()
    };
    let tampered = {
        let good = sign(json!({ "scope": "tasks:ask" }));
        let parts: Vec<&str> = good.split('.').collect();
        let payload =
            URL_SAFE_NO_PAD.encode(claims(json!({ "scope": "tasks:ask tasks:title" })).to_string());
        format!("{}.{payload}.{}", parts[0], parts[2])
    };
    let cases: Vec<(&str, Option<String>, u16, String)> = vec![
        ("good", Some(sign(json!({}))), 200, String::new()),
        (
            "no token",
            None,
            401,
            format!(
                "Bearer resource_metadata=\"{}\", scope=\"tasks:ask\"",
                r.metadata_url()
            ),
        ),
        (
            "expired",
            Some(sign(json!({ "exp": now() - 600 }))),
            401,
            invalid(&r, "the token has expired"),
        ),
        (
            "not yet valid",
            Some(sign(json!({ "nbf": now() + 600 }))),
            401,
            invalid(&r, "the token is not valid yet"),
        ),
        (
            "wrong issuer",
            Some(sign(json!({ "iss": "http://127.0.0.1:1" }))),
            401,
            invalid(&r, "the token is from another issuer"),
        ),
        (
            "wrong audience",
            Some(sign(json!({ "aud": "https://other.example.com/mcp" }))),
            401,
            invalid(&r, "the token is not meant for this resource"),
        ),
        (
            "alg none",
            Some(forged(
                json!({"alg": "none", "kid": "ec-1"}),
                claims(json!({})),
                "",
            )),
            401,
            invalid(&r, "the token's signing algorithm is not accepted"),
        ),
        (
            "HS256 with the public key as secret",
            Some(hs256),
            401,
            invalid(&r, "the token's signing algorithm is not accepted"),
        ),
        (
            "tampered payload",
            Some(tampered),
            401,
            invalid(&r, "the token's signature is invalid"),
        ),
    ];
    for (case, token, status, challenge) in cases {
        let answer = request(&r.uri, token.as_deref(), initialize()).await;
        assert_eq!(
            (answer.0, answer.1.as_str()),
            (status, challenge.as_str()),
            "{case}: {}",
            answer.2
        );
    }
}

#[tokio::test]
async fn an_unknown_kid_is_refused_until_the_issuer_publishes_it() {
    let interval = Duration::from_secs(1);
    let r = Resource::start_with(MAPPING, |config| {
        config.with_jwks_refetch_interval(interval).unwrap()
    })
    .await;
    assert_eq!(
        request(&r.uri, Some(&r.token("")), initialize()).await.0,
        200
    );
    let rotated = TestKey::ed25519("rotated");
    let token = rotated.sign(&r.claims(json!({})));
    let answer = request(&r.uri, Some(&token), initialize()).await;
    assert_eq!(
        (answer.0, answer.1),
        (
            401,
            invalid(&r, "the token's key id is not among the issuer's keys")
        )
    );
    r.issuer.publish(&rotated);
    // The refetch an unknown kid may cause is rate-limited: once the
    // interval has passed, the rotated key is fetched and accepted.
    tokio::time::sleep(interval + Duration::from_millis(100)).await;
    assert_eq!(request(&r.uri, Some(&token), initialize()).await.0, 200);
}

#[tokio::test]
async fn keys_out_of_reach_refuse_every_token_with_503() {
    let r = Resource::start(MAPPING).await;
    r.issuer.break_jwks();
    let (status, challenge, body) = request(&r.uri, Some(&r.token("")), initialize()).await;
    assert_eq!((status, challenge.as_str()), (503, ""));
    assert_eq!(body, "the authorization server is unavailable");
}

#[tokio::test]
async fn the_resource_metadata_is_served_at_both_well_known_paths() {
    let r = Resource::start(MAPPING).await;
    let root = r.uri.trim_end_matches("/mcp");
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let response = reqwest::get(format!("{root}{path}")).await.unwrap();
        assert_eq!(response.status().as_u16(), 200, "{path}");
        let document: serde_json::Value = response.json().await.unwrap();
        assert_eq!(document["resource"], json!(r.uri), "{path}");
        assert_eq!(document["authorization_servers"], json!([r.issuer.url]));
        assert_eq!(
            document["scopes_supported"],
            json!(["tasks:ask", "tasks:title"])
        );
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
    }
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let r = Resource::start(MAPPING).await;
    r.store.add_agent("bob", context(ALICE));
    let alice = r.token("tasks:ask");
    let session = RawSession::open(&r.uri, &alice).await;
    assert_eq!(session.list_status(&alice).await, 200);
    // Another token of alice's (more scopes, as after a step-up) goes on.
    assert_eq!(
        session.list_status(&r.token("tasks:ask tasks:title")).await,
        200
    );
    // Bob's token on alice's session: as if the session did not exist.
    let bob = r.key.sign(&r.claims(json!({ "sub": "bob" })));
    assert_eq!(session.list_status(&bob).await, 404);
    // A token past its `exp` is refused on its next request.
    let expired = r.key.sign(&r.claims(json!({ "exp": now() - 600 })));
    assert_eq!(session.list_status(&expired).await, 401);
    assert_eq!(session.list_status(&alice).await, 200);
}

/// Removing a principal's agent ends the sessions its OAuth tokens opened,
/// and their streams, as revoking a control-API token does: put back, the
/// principal opens new sessions, never the old ones.
#[tokio::test]
async fn removing_the_agent_ends_its_oauth_sessions_and_streams() {
    let r = Resource::start(MAPPING).await;
    let alice = r.token("tasks:ask");
    let mut session = RawSession::open(&r.uri, &alice).await;
    assert_eq!(session.list_status(&alice).await, 200);
    assert!(r.store.remove_agent("alice").is_some());
    session.expect_stream_end().await;
    r.store.add_agent("alice", context(ALICE));
    assert_eq!(session.list_status(&alice).await, 404);
    let again = RawSession::open(&r.uri, &alice).await;
    assert_eq!(again.list_status(&alice).await, 200);
}

/// The same over Redis: the agent deleted through another gateway's store
/// ends, through the feed, the OAuth sessions and streams this one served
/// (its agent loaded here on the token's first use).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_the_agent_on_another_gateway_ends_its_oauth_streams_here() {
    use mcp_profiles_serve::{AgentStore, RedisOptions, RedisStore};
    use mcp_profiles_tests::audit::by;
    use mcp_profiles_tests::redis::RedisServer;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let connect = || async {
        RedisStore::<mcp_profiles_tests::TaskServer>::connect(&redis.url(), RedisOptions::default())
            .await
            .expect("the store connects")
    };
    let (control, here) = (connect().await, connect().await);
    control
        .put_agent("alice", context(ALICE), by())
        .await
        .unwrap();
    let r = Resource::start_on(
        MAPPING,
        |config| config,
        std::sync::Arc::clone(here.profiles()),
    )
    .await;
    let alice = r.token("tasks:ask");
    let mut session = RawSession::open(&r.uri, &alice).await;
    assert_eq!(session.list_status(&alice).await, 200);
    assert!(control.delete_agent("alice", by()).await.unwrap().value);
    session.expect_stream_end().await;
    control
        .put_agent("alice", context(ALICE), by())
        .await
        .unwrap();
    assert_eq!(
        session.list_status(&alice).await,
        404,
        "the old session is gone"
    );
    let again = RawSession::open(&r.uri, &alice).await;
    assert_eq!(again.list_status(&alice).await, 200);
}
