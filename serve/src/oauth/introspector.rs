//! Checking one opaque access token: asking the issuer's introspection
//! endpoint (RFC 7662) whether it is active, then checking the answer's
//! claims as a JWT's would be, failing closed at each step.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderValue, StatusCode, header};
use reqwest::{Client, Url};
use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use super::discovery;
use super::introspection::Introspection;
use super::token_cache::{self, TokenCache};
use super::{OAuthConfig, TokenError};

/// An opaque token is a handle: a longer one is refused without asking, so
/// a request cannot make this server post megabytes to the issuer.
const MAX_TOKEN_BYTES: usize = 4096;

pub(super) struct Introspector {
    client: Client,
    issuer: String,
    issuer_url: Url,
    resource: String,
    leeway: Duration,
    /// The least time between two discoveries of the endpoint after one
    /// failed: the JWKS refetch interval.
    retry_interval: Duration,
    /// `Basic …`, marked sensitive so that it is never logged.
    credentials: HeaderValue,
    /// Set from the configuration, or by the first discovery that succeeds.
    endpoint: OnceCell<Url>,
    last_failure: Mutex<Option<(Instant, String)>>,
    cache: TokenCache<Map<String, Value>>,
}

impl Introspector {
    /// The introspector of `config`, `None` when it configures no
    /// introspection.
    pub(super) fn new(config: &OAuthConfig, client: Client) -> Option<Self> {
        let introspection = config.introspection()?;
        let endpoint = match introspection.endpoint_url() {
            Some(url) => OnceCell::new_with(Some(url.clone())),
            None => OnceCell::new(),
        };
        Some(Introspector {
            client,
            issuer: config.issuer().to_owned(),
            issuer_url: config.issuer_url().clone(),
            resource: config.resource().to_owned(),
            leeway: config.leeway(),
            retry_interval: config.jwks_refetch_interval(),
            credentials: basic_credentials(introspection),
            endpoint,
            last_failure: Mutex::new(None),
            cache: TokenCache::new(introspection.cache_ttl(), introspection.cache_max_entries()),
        })
    }

    /// The claims of `token` if the endpoint answers that it is active and
    /// the answer passes the checks, from the cache when an answer for it
    /// is kept.
    pub(super) async fn claims(&self, token: &str) -> Result<Map<String, Value>, TokenError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::Malformed(format!(
                "longer than {MAX_TOKEN_BYTES} bytes"
            )));
        }
        if !is_b64token(token) {
            return Err(TokenError::Malformed(
                "not a bearer token's characters (RFC 6750 b64token)".to_owned(),
            ));
        }
        let digest = token_cache::digest(token);
        if let Some(claims) = self.cache.get(&digest) {
            return Ok(claims);
        }
        let url = self.endpoint().await?;
        let answer = self.ask(url, token).await.map_err(|failure| {
            tracing::warn!(endpoint = %url, %failure, "token introspection failed");
            TokenError::Unavailable(failure)
        })?;
        let Value::Object(claims) = answer else {
            return Err(not_an_answer(url, "not a JSON object"));
        };
        match claims.get("active") {
            Some(Value::Bool(true)) => {}
            // Not cached: tokens that are not active are mostly made-up
            // ones, each new, so keeping them would fill the cache with
            // garbage and save no request.
            Some(Value::Bool(false)) => return Err(TokenError::Inactive),
            _ => return Err(not_an_answer(url, "no boolean `active`")),
        }
        let exp = self.checked(&claims)?;
        self.cache.insert(digest, claims.clone(), exp);
        Ok(claims)
    }

    /// The endpoint, discovered on first use when not configured; a failed
    /// discovery is answered without another for the retry interval.
    async fn endpoint(&self) -> Result<&Url, TokenError> {
        self.endpoint
            .get_or_try_init(|| async {
                if let Some(failure) = self.recent_failure() {
                    return Err(TokenError::Unavailable(failure));
                }
                discovery::introspection_endpoint(&self.client, &self.issuer, &self.issuer_url)
                    .await
                    .map_err(|failure| {
                        tracing::warn!(
                            issuer = %self.issuer,
                            %failure,
                            "discovering the introspection endpoint failed"
                        );
                        *self.failure_slot() = Some((Instant::now(), failure.clone()));
                        TokenError::Unavailable(failure)
                    })
            })
            .await
    }

    fn recent_failure(&self) -> Option<String> {
        match &*self.failure_slot() {
            Some((at, failure)) if at.elapsed() < self.retry_interval => Some(failure.clone()),
            _ => None,
        }
    }

    fn failure_slot(&self) -> std::sync::MutexGuard<'_, Option<(Instant, String)>> {
        self.last_failure
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// POSTs the token (RFC 7662 §2.1) and decodes the answer; anything
    /// but a 200 with a JSON body is a failure.
    async fn ask(&self, url: &Url, token: &str) -> Result<Value, String> {
        let body = form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .append_pair("token_type_hint", "access_token")
            .finish();
        let response = self
            .client
            .post(url.clone())
            .header(header::AUTHORIZATION, self.credentials.clone())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::ACCEPT, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|error| format!("{url}: {error}"))?;
        if response.status() != StatusCode::OK {
            return Err(format!("{url}: HTTP {}", response.status()));
        }
        discovery::json_body(response, url).await
    }

    /// The checks of a JWT's claims, on an active answer: `iss` (if
    /// present) is the issuer, `aud` (required) contains the resource,
    /// `exp` (required) and `nbf` (if present) hold with the leeway.
    /// Returns `exp`.
    fn checked(&self, claims: &Map<String, Value>) -> Result<f64, TokenError> {
        match claims.get("iss") {
            None => {}
            Some(Value::String(iss)) if *iss == self.issuer => {}
            Some(Value::String(_)) => return Err(TokenError::WrongIssuer),
            Some(_) => return Err(TokenError::InvalidClaim("iss".to_owned())),
        }
        let invalid_aud = || TokenError::InvalidClaim("aud".to_owned());
        let for_us = match claims.get("aud") {
            None => return Err(TokenError::MissingClaim("aud".to_owned())),
            Some(Value::String(aud)) => *aud == self.resource,
            Some(Value::Array(list)) => {
                let mut found = false;
                for aud in list {
                    found |= aud.as_str().ok_or_else(invalid_aud)? == self.resource;
                }
                found
            }
            Some(_) => return Err(invalid_aud()),
        };
        if !for_us {
            return Err(TokenError::WrongAudience);
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let leeway = self.leeway.as_secs_f64();
        let exp = numeric_date(claims, "exp")?
            .ok_or_else(|| TokenError::MissingClaim("exp".to_owned()))?;
        if exp + leeway < now {
            return Err(TokenError::Expired);
        }
        if numeric_date(claims, "nbf")?.is_some_and(|nbf| nbf - leeway > now) {
            return Err(TokenError::NotYetValid);
        }
        Ok(exp)
    }
}

/// A claim holding seconds since the epoch (RFC 7519 NumericDate).
fn numeric_date(claims: &Map<String, Value>, name: &str) -> Result<Option<f64>, TokenError> {
    match claims.get(name) {
        None => Ok(None),
        Some(Value::Number(seconds)) => seconds
            .as_f64()
            .map(Some)
            .ok_or_else(|| TokenError::InvalidClaim(name.to_owned())),
        Some(_) => Err(TokenError::InvalidClaim(name.to_owned())),
    }
}

fn not_an_answer(url: &Url, why: &str) -> TokenError {
    let failure = format!("{url}: not an introspection answer: {why}");
    tracing::warn!(endpoint = %url, %failure, "token introspection failed");
    TokenError::Unavailable(failure)
}

/// RFC 6750 §2.1's `b64token`: what a bearer token may hold. Anything else
/// is refused before it reaches the issuer.
fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"-._~+/".contains(&byte))
}

/// `Basic base64(id:secret)`, each form-urlencoded first as RFC 6749
/// §2.3.1 asks (a `:` in the id would otherwise end it early).
fn basic_credentials(introspection: &Introspection) -> HeaderValue {
    let encoded = |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
    let pair = format!(
        "{}:{}",
        encoded(introspection.client_id()),
        encoded(introspection.client_secret())
    );
    let mut value = HeaderValue::try_from(format!("Basic {}", STANDARD.encode(pair)))
        .expect("base64 is a valid header value");
    value.set_sensitive(true);
    value
}
