//! Checking one access token: its algorithm, its key, its signature and its
//! claims, failing closed at each step.

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Validation, decode, decode_header};
use reqwest::Client;
use serde_json::{Map, Value};

use super::jwks::KeyCache;
use super::{OAuthConfig, SigningAlgorithm, TokenError};

/// How long one discovery or JWKS request may take unless the caller's
/// client says otherwise: a hanging issuer must not hold requests forever.
const FETCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Validates JWT access tokens for one resource: signature by a key of the
/// issuer's JWKS, `iss`, `aud`, `exp` and `nbf`.
///
/// The JWKS is discovered and fetched on the first validation, then cached
/// (see [`OAuthConfig`] for its timings). Cheap to share behind an `Arc`.
pub struct TokenValidator {
    config: OAuthConfig,
    keys: KeyCache,
}

impl std::fmt::Debug for TokenValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenValidator")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl TokenValidator {
    /// A validator fetching with a client of its own (10 s timeout). The
    /// client has whatever TLS support the build's `reqwest` features give:
    /// an `https` issuer needs one of reqwest's TLS features enabled.
    pub fn new(config: OAuthConfig) -> Self {
        let client = Client::builder()
            .timeout(FETCH_TIMEOUT)
            .build()
            .unwrap_or_else(|_| Client::new());
        Self::with_client(config, client)
    }

    /// A validator fetching the issuer's metadata and JWKS with `client`.
    pub fn with_client(config: OAuthConfig, client: Client) -> Self {
        let keys = KeyCache::new(&config, client);
        TokenValidator { config, keys }
    }

    /// The configuration this validator enforces.
    pub fn config(&self) -> &OAuthConfig {
        &self.config
    }

    /// Checks `token` (the bearer token, without `Bearer `) and returns its
    /// claims, or the first check it failed.
    pub async fn validate(&self, token: &str) -> Result<AccessToken, TokenError> {
        let algorithm = self.allowed_algorithm(token)?;
        let header =
            decode_header(token).map_err(|error| TokenError::Malformed(error.to_string()))?;
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
        AccessToken::from_claims(data.claims)
    }

    /// The header's `alg`, if it is one of the configured algorithms. Read
    /// before jsonwebtoken parses the header, which cannot name an `alg` it
    /// does not know (`none`).
    fn allowed_algorithm(&self, token: &str) -> Result<SigningAlgorithm, TokenError> {
        let malformed = |what: &str| TokenError::Malformed(what.to_owned());
        let mut parts = token.split('.');
        let encoded = parts.next().unwrap_or_default();
        // A compact JWS has exactly three parts; a JWE (five) is not an
        // access token this server can read.
        if parts.count() != 2 {
            return Err(malformed("not three dot-separated parts"));
        }
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

/// A validated access token's claims.
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
