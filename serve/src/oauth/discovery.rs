//! Where the issuer's keys are: its authorization server metadata (RFC
//! 8414, else OpenID Connect discovery) names the `jwks_uri`.

use reqwest::{Client, Url};
use serde::Deserialize;

use super::config::is_loopback;

/// A metadata document or JWKS larger than this is refused: the issuer's
/// answers are small, and an unbounded read would let a broken or hostile
/// endpoint fill the memory.
const MAX_DOCUMENT_BYTES: usize = 512 * 1024;

#[derive(Deserialize)]
struct ServerMetadata {
    issuer: String,
    jwks_uri: Option<String>,
}

/// The issuer's `jwks_uri`, from the first discovery document that answers,
/// in the order the MCP specification gives. The document must name the
/// configured issuer exactly (RFC 8414 §3.3), or its keys are not trusted.
pub(super) async fn jwks_uri(
    client: &Client,
    issuer: &str,
    issuer_url: &Url,
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
        let jwks_uri = metadata
            .jwks_uri
            .ok_or_else(|| format!("{url}: names no jwks_uri"))?;
        let jwks_url =
            Url::parse(&jwks_uri).map_err(|error| format!("{url}: jwks_uri: {error}"))?;
        if jwks_url.scheme() != "https" && !(jwks_url.scheme() == "http" && is_loopback(&jwks_url))
        {
            return Err(format!("{url}: jwks_uri `{jwks_uri}` is not https"));
        }
        return Ok(jwks_url);
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
    let mut response = client
        .get(url.clone())
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|error| format!("{url}: {error}"))?;
    if !response.status().is_success() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
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
