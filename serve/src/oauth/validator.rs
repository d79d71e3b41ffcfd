//! Checking one access token: a JWT by its algorithm, its key, its
//! signature and its claims; any other through introspection when
//! configured. Failing closed at each step.

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Validation, decode, decode_header};
use reqwest::Client;
use serde_json::{Map, Value};

use super::config::VERIFIED_CACHE_ENTRIES;
use super::introspector::Introspector;
use super::jwks::KeyCache;
use super::token_cache::{self, TokenCache};
use super::{OAuthConfig, SigningAlgorithm, TokenError};

/// How long one discovery, JWKS or introspection request may take unless
/// the caller's client says otherwise: a hanging issuer must not hold
/// requests forever.
const FETCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Validates access tokens for one resource. A JWT (a compact JWS): its
/// signature by a key of the issuer's JWKS, `iss`, `aud`, `exp` and `nbf`.
/// Any other token, when the configuration has
/// [`Introspection`](super::Introspection): the issuer's introspection
/// endpoint must call it active (RFC 7662), and the answer's `iss` (if
/// present), `aud`, `exp` and `nbf` (if present) are checked the same way;
/// without it, such a token is refused ([`TokenError::Malformed`]).
///
/// The JWKS is discovered and fetched on the first validation, then cached
/// (see [`OAuthConfig`] for its timings); active introspection answers are
/// cached by the token's SHA-256 (see [`Introspection`](super::Introspection)).
/// Cheap to share behind an `Arc`.
///
/// ```no_run
/// use mcp_profiles_serve::oauth::{OAuthConfig, TokenValidator};
///
/// # async fn check(bearer: &str) -> Result<(), Box<dyn std::error::Error>> {
/// let config = OAuthConfig::new("https://auth.example.com", "https://mcp.example.com/mcp")?;
/// let validator = TokenValidator::new(config);
/// let token = validator.validate(bearer).await?;
/// println!("{:?} may {:?}", token.subject(), token.scopes());
/// # Ok(())
/// # }
/// ```
pub struct TokenValidator {
    config: OAuthConfig,
    keys: KeyCache,
    introspector: Option<Introspector>,
    /// JWTs found valid, with the `kid` of the key that signed them.
    verified: TokenCache<(String, AccessToken)>,
}

impl std::fmt::Debug for TokenValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenValidator")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl TokenValidator {
    /// A validator fetching with a client of its own: 10 s timeout, TLS by
    /// rustls trusting the platform's root certificates. Where the platform
    /// has none, the client trusts no certificate, so an `https` issuer is
    /// unavailable (every token it would check is refused with 503) rather
    /// than this panicking; give a client of your own through
    /// [`TokenValidator::with_client`] then.
    pub fn new(config: OAuthConfig) -> Self {
        let builder = || Client::builder().timeout(FETCH_TIMEOUT);
        let client = builder().build().unwrap_or_else(|error| {
            tracing::warn!(%error, "no TLS client with the platform's roots; https issuers are unavailable");
            builder()
                .tls_certs_only([])
                .build()
                .expect("a client trusting no certificate needs nothing of the platform")
        });
        Self::with_client(config, client)
    }

    /// A validator fetching the issuer's metadata and JWKS, and asking its
    /// introspection endpoint, with `client`.
    pub fn with_client(config: OAuthConfig, client: Client) -> Self {
        let introspector = Introspector::new(&config, client.clone());
        let keys = KeyCache::new(&config, client);
        let verified = TokenCache::new(config.verified_cache(), VERIFIED_CACHE_ENTRIES);
        TokenValidator {
            config,
            keys,
            introspector,
            verified,
        }
    }

    /// The configuration this validator enforces.
    pub fn config(&self) -> &OAuthConfig {
        &self.config
    }

    /// Checks `token` (the bearer token, without `Bearer `) and returns its
    /// claims, or the first check it failed: as a JWT when it has three
    /// dot-separated parts, else through introspection when configured.
    pub async fn validate(&self, token: &str) -> Result<AccessToken, TokenError> {
        match &self.introspector {
            Some(introspector) if !is_compact_jws(token) => {
                AccessToken::from_claims(introspector.claims(token).await?)
            }
            _ => self.verified_jwt(token).await,
        }
    }

    /// A JWT found valid within the verified-cache time (while the key
    /// that signed it is still in the JWKS in use), else checked now and
    /// kept until then or its `exp`.
    async fn verified_jwt(&self, token: &str) -> Result<AccessToken, TokenError> {
        let caching = !self.config.verified_cache().is_zero();
        let digest = caching.then(|| token_cache::digest(token));
        if let Some(digest) = &digest
            && let Some((kid, token)) = self.verified.get(digest)
            && self.keys.has_fresh_key(&kid)
        {
            return Ok(token);
        }
        let (kid, claims) = self.verified_claims(token).await?;
        let exp = claims.get("exp").and_then(Value::as_f64);
        let access = AccessToken::from_claims(claims)?;
        if let (Some(digest), Some(exp)) = (digest, exp) {
            self.verified.insert(digest, (kid, access.clone()), exp);
        }
        Ok(access)
    }

    /// The `kid` and claims of a JWT whose signature and claims pass the
    /// checks.
    async fn verified_claims(
        &self,
        token: &str,
    ) -> Result<(String, Map<String, Value>), TokenError> {
        let algorithm = self.allowed_algorithm(token)?;
        let header =
            decode_header(token).map_err(|error| TokenError::Malformed(error.to_string()))?;
        if self.config.requires_at_jwt() {
            let typed = header.typ.as_deref().is_some_and(|typ| {
                typ.eq_ignore_ascii_case("at+jwt") || typ.eq_ignore_ascii_case("application/at+jwt")
            });
            if !typed {
                return Err(TokenError::NotAnAccessToken(header.typ));
            }
        }
        let kid = header.kid.ok_or(TokenError::MissingKeyId)?;
        let key = self.keys.key(&kid).await?;
        let alg = algorithm.jwt();
        if !key.fits(alg) {
            return Err(TokenError::KeyMismatch {
                kid,
                alg: algorithm.as_str().to_owned(),
            });
        }
        let mut validation = Validation::new(alg);
        validation.algorithms = vec![alg];
        validation.leeway = self.config.leeway().as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = true;
        validation.set_issuer(&[self.config.issuer()]);
        validation.set_audience(&[self.config.resource()]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = decode::<Map<String, Value>>(token, &key.key, &validation)
            .map_err(|error| refusal(error.into_kind(), &kid, algorithm))?;
        Ok((kid, data.claims))
    }

    /// The header's `alg`, if it is one of the configured algorithms. Read
    /// before jsonwebtoken parses the header, which cannot name an `alg` it
    /// does not know (`none`).
    fn allowed_algorithm(&self, token: &str) -> Result<SigningAlgorithm, TokenError> {
        let malformed = |what: &str| TokenError::Malformed(what.to_owned());
        if !is_compact_jws(token) {
            return Err(malformed("not three dot-separated parts"));
        }
        let encoded = token.split('.').next().unwrap_or_default();
        let bytes = URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|_| malformed("the header is not base64url"))?;
        let header: Value =
            serde_json::from_slice(&bytes).map_err(|_| malformed("the header is not JSON"))?;
        let alg = header
            .get("alg")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("the header has no `alg`"))?;
        SigningAlgorithm::from_jose(alg)
            .filter(|known| self.config.algorithms().any(|allowed| allowed == *known))
            .ok_or_else(|| TokenError::AlgorithmNotAllowed(alg.to_owned()))
    }
}

/// Whether `token` has the shape of a compact JWS: three dot-separated
/// parts. A JWE (five) or anything else is not a JWT this server can read.
fn is_compact_jws(token: &str) -> bool {
    token.split('.').count() == 3
}

/// jsonwebtoken's reason, as ours.
fn refusal(kind: ErrorKind, kid: &str, algorithm: SigningAlgorithm) -> TokenError {
    match kind {
        ErrorKind::InvalidSignature => TokenError::BadSignature,
        ErrorKind::ExpiredSignature => TokenError::Expired,
        ErrorKind::ImmatureSignature => TokenError::NotYetValid,
        ErrorKind::InvalidIssuer => TokenError::WrongIssuer,
        ErrorKind::InvalidAudience => TokenError::WrongAudience,
        ErrorKind::MissingRequiredClaim(claim) => TokenError::MissingClaim(claim),
        ErrorKind::InvalidClaimFormat(claim) => TokenError::InvalidClaim(claim),
        ErrorKind::InvalidAlgorithm
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidEddsaKey
        | ErrorKind::InvalidRsaKey(_)
        | ErrorKind::InvalidKeyFormat => TokenError::KeyMismatch {
            kid: kid.to_owned(),
            alg: algorithm.as_str().to_owned(),
        },
        other => TokenError::Malformed(format!("{other:?}")),
    }
}

/// A validated access token's claims: a JWT's payload, or an active
/// introspection answer (with its `active` member).
#[derive(Clone, Debug, PartialEq)]
pub struct AccessToken {
    subject: Option<String>,
    client_id: Option<String>,
    scopes: BTreeSet<String>,
    claims: Map<String, Value>,
}

impl AccessToken {
    fn from_claims(claims: Map<String, Value>) -> Result<Self, TokenError> {
        let text = |name: &str| -> Result<Option<String>, TokenError> {
            match claims.get(name) {
                None => Ok(None),
                Some(Value::String(value)) => Ok(Some(value.clone())),
                Some(_) => Err(TokenError::InvalidClaim(name.to_owned())),
            }
        };
        let subject = text("sub")?;
        let client_id = text("client_id")?;
        let mut scopes = BTreeSet::new();
        for name in ["scope", "scp"] {
            match claims.get(name) {
                None => {}
                // RFC 9068: `scope` is one space-separated string; some
                // issuers (Entra, Okta) send `scp` as a string or an array.
                Some(Value::String(list)) => {
                    scopes.extend(list.split(' ').filter(|s| !s.is_empty()).map(str::to_owned));
                }
                Some(Value::Array(items)) if name == "scp" => {
                    for item in items {
                        let scope = item
                            .as_str()
                            .ok_or_else(|| TokenError::InvalidClaim(name.to_owned()))?;
                        scopes.insert(scope.to_owned());
                    }
                }
                Some(_) => return Err(TokenError::InvalidClaim(name.to_owned())),
            }
        }
        Ok(AccessToken {
            subject,
            client_id,
            scopes,
            claims,
        })
    }

    /// `sub`, if the token has one.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// `client_id` (RFC 9068), if the token has one.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The granted scopes: `scope` split on spaces, together with `scp`.
    pub fn scopes(&self) -> &BTreeSet<String> {
        &self.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// Every claim of the payload, as sent.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}
