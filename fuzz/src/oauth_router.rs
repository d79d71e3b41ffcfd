//! The check behind the `oauth_router` fuzz target, shared with the corpus
//! replay test (included with `lib.rs`, so it depends on nothing libFuzzer
//! brings).
//!
//! Once per process, an issuer is served on 127.0.0.1 (its RFC 8414
//! metadata and a JWKS of one fixed Ed25519 key), and one genuine token is
//! signed with that key: `sub` alice, the issuer's `iss`, the resource's
//! `aud`, valid for ten years. Once per thread, `oauth_router` serves a
//! Kandev agent `alice` behind an `OAuth` validating that issuer's tokens
//! (no network but 127.0.0.1).
//!
//! Input: byte 0 `% 6` says what the `Authorization` header is, from the
//! rest of the input: 0 the raw header value; 1 `Bearer ` and the token
//! text; 2 the genuine token with its signature part replaced by the text;
//! 3 its header part replaced by the text base64url-encoded; 4 its payload
//! part replaced likewise; 5 the genuine token as it is (the rest unused).
//! Bit 3 of byte 0 adds a second `Authorization` header carrying the
//! genuine token. A value that is no valid header value is not sent (the
//! request carries no token). Every request is an MCP `initialize` POST.
//!
//! Oracle, from `oauth_router`'s documented rules: two `Authorization`
//! headers are 400 naming the header; a 2xx answers only a token that is
//! validly signed by the issuer (its header and payload parts the genuine
//! ones, its signature part decoding to the genuine signature), and the
//! genuine token itself is admitted (2xx); every other request is 401 with
//! `WWW-Authenticate: Bearer resource_metadata="..."` naming the resource
//! metadata, with `error="invalid_token"` when a token was presented. No
//! answer panics, and neither the body nor the challenge echoes the token.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::{HeaderValue, Request, header};
use axum::response::IntoResponse;
use axum::routing::get;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use kandev_mcp::{Kandev, Surface};
use mcp_profiles::ProfileContext;
use mcp_profiles::rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use mcp_profiles_serve::ProfileStore;
use mcp_profiles_serve::http::{MCP_PATH, oauth_router};
use mcp_profiles_serve::oauth::{ClaimMapping, OAuth, OAuthConfig, TokenValidator};
use serde_json::json;
use tower::ServiceExt;

/// The resource the tokens are meant for.
const RESOURCE: &str = "http://localhost/mcp";

/// The fixed Ed25519 seed the issuer signs with.
const SEED: [u8; 32] = *b"mcp-profiles fuzz issuer seed 01";

/// The running issuer: its URL and the genuine token.
struct Issuer {
    url: String,
    token: String,
}

fn issuer() -> &'static Issuer {
    static ISSUER: OnceLock<Issuer> = OnceLock::new();
    ISSUER.get_or_init(|| {
        // PKCS#8 v1 of an Ed25519 seed: the fixed prefix, then the seed.
        let mut der = vec![
            0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22,
            0x04, 0x20,
        ];
        der.extend_from_slice(&SEED);
        let key = EncodingKey::from_ed_der(&der);
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::EdDSA).expect("a public JWK");
        jwk.common.key_id = Some("fuzz-1".to_owned());

        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("non-blocking");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let metadata = json!({ "issuer": url, "jwks_uri": format!("{url}/jwks") }).to_string();
        let jwks = json!({ "keys": [jwk] }).to_string();
        let json = |body: String| ([(header::CONTENT_TYPE, "application/json")], body);
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(move || async move { json(metadata).into_response() }),
            )
            .route(
                "/jwks",
                get(move || async move { json(jwks).into_response() }),
            );
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
                axum::serve(listener, app).await.expect("the issuer serves");
            });
        });

        let now = jsonwebtoken::get_current_timestamp();
        let claims = json!({
            "iss": url,
            "aud": RESOURCE,
            "sub": "alice",
            "iat": now,
            "exp": now + 10 * 365 * 24 * 3600,
        });
        let mut head = Header::new(Algorithm::EdDSA);
        head.kid = Some("fuzz-1".to_owned());
        let token = jsonwebtoken::encode(&head, &claims, &key).expect("signed");
        Issuer { url, token }
    })
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    metadata_url: String,
}

thread_local! {
    static HARNESS: RefCell<Option<Harness>> = const { RefCell::new(None) };
}

fn harness() -> Harness {
    let issuer = issuer();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let store = Arc::new(ProfileStore::<Kandev>::default());
    store.add_agent("alice", ProfileContext::new(Surface::KanbanTask));
    let config = OAuthConfig::new(&issuer.url, RESOURCE).expect("a valid config");
    let oauth = OAuth::new(TokenValidator::new(config), ClaimMapping::stored());
    let metadata_url = oauth.config().resource_metadata_url();
    let mcp = StreamableHttpServerConfig::default()
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let router = oauth_router(&store, Kandev::demo(), Arc::new(oauth), mcp);
    Harness {
        runtime,
        router,
        metadata_url,
    }
}

/// Base64url without padding.
fn encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// Base64url without padding, read leniently (the unused low bits of the
/// last character ignored); `None` for any other character or length.
fn decode(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    if text.len() % 4 == 1 {
        return None;
    }
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        bits = bits << 6 | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

/// Whether `token` is the genuine token, or one carrying the same signed
/// text and the same signature bytes.
fn validly_signed(token: &str, genuine: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    let real: Vec<&str> = genuine.split('.').collect();
    parts.len() == 3
        && parts[..2] == real[..2]
        && decode(parts[2]).is_some_and(|signature| Some(signature) == decode(real[2]))
}

/// Fuzz target `oauth_router`.
pub fn check_oauth_router(data: &[u8]) {
    let [how, rest @ ..] = data else {
        return;
    };
    let genuine = &issuer().token;
    let parts: Vec<&str> = genuine.split('.').collect();
    let text = String::from_utf8_lossy(rest);
    let value: Vec<u8> = match how % 6 {
        0 => rest.to_vec(),
        1 => [&b"Bearer "[..], rest].concat(),
        2 => format!("Bearer {}.{}.{text}", parts[0], parts[1]).into_bytes(),
        3 => format!("Bearer {}.{}.{}", encode(rest), parts[1], parts[2]).into_bytes(),
        4 => format!("Bearer {}.{}.{}", parts[0], encode(rest), parts[2]).into_bytes(),
        _ => format!("Bearer {genuine}").into_bytes(),
    };
    let repeated = how & 8 != 0;
    let sent = HeaderValue::from_bytes(&value).ok();

    let mut request = Request::builder()
        .method("POST")
        .uri(MCP_PATH)
        .header(header::HOST, "localhost")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream");
    if let Some(sent) = &sent {
        request = request.header(header::AUTHORIZATION, sent.clone());
    }
    if repeated {
        request = request.header(header::AUTHORIZATION, format!("Bearer {genuine}"));
    }
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"},
        },
    });
    let request = request
        .body(Body::from(initialize.to_string()))
        .expect("a request");

    HARNESS.with(|cell| {
        let mut cell = cell.borrow_mut();
        let harness = cell.get_or_insert_with(harness);
        let (status, challenge, body) = harness.runtime.block_on(async {
            let response = harness
                .router
                .clone()
                .oneshot(request)
                .await
                .expect("the router is infallible");
            let status = response.status().as_u16();
            let challenges: Vec<String> = response
                .headers()
                .get_all(header::WWW_AUTHENTICATE)
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .collect();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .expect("the answer is readable");
            (
                status,
                challenges,
                String::from_utf8_lossy(&body).into_owned(),
            )
        });
        let shown = String::from_utf8_lossy(&value);
        let what = format!("Authorization {shown:?} (repeated: {repeated}): {status} {body:?}");

        // The token never comes back, in the body or the challenge.
        let token = shown.strip_prefix("Bearer ").unwrap_or(&shown);
        // (A token that is part of the metadata URL the challenge names
        // is not the challenge echoing it.)
        if token.len() >= 16 && token != genuine.as_str() && !harness.metadata_url.contains(token) {
            assert!(!body.contains(token), "{what}: the body echoes the token");
            assert!(
                challenge.iter().all(|c| !c.contains(token)),
                "{what}: the challenge echoes the token"
            );
        }

        if repeated && sent.is_some() {
            assert_eq!(status, 400, "{what}");
            assert!(body.contains("Authorization"), "{what}: the header unnamed");
            return;
        }
        let presented = if repeated {
            Some(genuine.as_str())
        } else {
            sent.as_ref()
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .filter(|t| !t.is_empty())
        };
        if presented.is_some_and(|token| token == genuine.as_str()) {
            assert!(
                (200..300).contains(&status),
                "{what}: the genuine token refused"
            );
            return;
        }
        if (200..300).contains(&status) {
            assert!(
                presented.is_some_and(|token| validly_signed(token, genuine)),
                "{what}: admitted a token the issuer did not sign"
            );
            return;
        }
        assert_eq!(status, 401, "{what}");
        assert_eq!(challenge.len(), 1, "{what}: {challenge:?}");
        let expected = format!("Bearer resource_metadata=\"{}\"", harness.metadata_url);
        assert!(
            challenge[0].starts_with(&expected),
            "{what}: the challenge {:?}",
            challenge[0]
        );
        if presented.is_some() {
            assert!(
                challenge[0].contains("error=\"invalid_token\""),
                "{what}: the challenge {:?}",
                challenge[0]
            );
        }
    });
}
