//! Where the issuer's endpoints are: its authorization server metadata (RFC
//! 8414, else OpenID Connect discovery) names the `jwks_uri` and the
//! `introspection_endpoint`.

use reqwest::{Client, Response, Url};
use serde::Deserialize;

use super::config_check::is_loopback;

/// A metadata document or JWKS larger than this is refused: the issuer's
/// answers are small, and an unbounded read would let a broken or hostile
/// endpoint fill the memory.
const MAX_DOCUMENT_BYTES: usize = 512 * 1024;

#[derive(Deserialize)]
struct ServerMetadata {
    issuer: String,
    jwks_uri: Option<String>,
    introspection_endpoint: Option<String>,
}

/// The issuer's `jwks_uri`: see [`endpoint`].
pub(super) async fn jwks_uri(
    client: &Client,
    issuer: &str,
    issuer_url: &Url,
) -> Result<Url, String> {
    endpoint(client, issuer, issuer_url, "jwks_uri", |metadata| {
        metadata.jwks_uri
    })
    .await
}

/// The issuer's `introspection_endpoint` (RFC 8414 §2, RFC 7662 §4): see
/// [`endpoint`].
pub(super) async fn introspection_endpoint(
    client: &Client,
    issuer: &str,
    issuer_url: &Url,
) -> Result<Url, String> {
    endpoint(
        client,
        issuer,
        issuer_url,
        "introspection_endpoint",
        |metadata| metadata.introspection_endpoint,
    )
    .await
}

/// The endpoint `name` (picked from the metadata by `pick`), from the first
/// discovery document that answers, in the order the MCP specification
/// gives. The document must name the configured issuer exactly (RFC 8414
/// §3.3), or its endpoints are not trusted; the endpoint must be `https`
/// (`http` only on loopback).
async fn endpoint(
    client: &Client,
    issuer: &str,
    issuer_url: &Url,
    name: &str,
    pick: fn(ServerMetadata) -> Option<String>,
) -> Result<Url, String> {
    let mut failures = Vec::new();
    for url in discovery_urls(issuer_url) {
        let document = match fetch_json(client, &url).await {
            Ok(document) => document,
            Err(failure) => {
                failures.push(failure);
                continue;
            }
        };
        let metadata: ServerMetadata = serde_json::from_value(document)
            .map_err(|error| format!("{url}: not authorization server metadata: {error}"))?;
        if metadata.issuer != issuer {
            return Err(format!(
                "{url}: names issuer `{}`, not `{issuer}`",
                metadata.issuer
            ));
        }
        let named = pick(metadata).ok_or_else(|| format!("{url}: names no {name}"))?;
        let named_url = Url::parse(&named).map_err(|error| format!("{url}: {name}: {error}"))?;
        if named_url.scheme() != "https"
            && !(named_url.scheme() == "http" && is_loopback(&named_url))
        {
            return Err(format!("{url}: {name} `{named}` is not https"));
        }
        return Ok(named_url);
    }
    Err(format!("no discovery document: {}", failures.join("; ")))
}

/// For an issuer without a path: the RFC 8414 document, then OpenID's. With
/// a path (`https://as/tenant`): each well-known name inserted before the
/// path, then OpenID's appended after it.
fn discovery_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let at = |well_known_path: String| {
        let mut url = issuer.clone();
        url.set_path(&well_known_path);
        url
    };
    let mut urls = vec![
        at(format!("/.well-known/oauth-authorization-server{path}")),
        at(format!("/.well-known/openid-configuration{path}")),
    ];
    if !path.is_empty() {
        urls.push(at(format!("{path}/.well-known/openid-configuration")));
    }
    urls
}

/// GETs `url` and decodes its JSON body, at most [`MAX_DOCUMENT_BYTES`].
pub(super) async fn fetch_json(client: &Client, url: &Url) -> Result<serde_json::Value, String> {
    let response = client
        .get(url.clone())
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|error| format!("{url}: {error}"))?;
    if !response.status().is_success() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    json_body(response, url).await
}

/// Decodes the JSON body of `response` (from `url`), at most
/// [`MAX_DOCUMENT_BYTES`].
pub(super) async fn json_body(
    mut response: Response,
    url: &Url,
) -> Result<serde_json::Value, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| format!("{url}: {error}"))?
    {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(format!("{url}: larger than {MAX_DOCUMENT_BYTES} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|error| format!("{url}: not JSON: {error}"))
}
