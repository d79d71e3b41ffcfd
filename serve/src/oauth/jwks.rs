//! The issuer's signing keys: fetched on first use, used for at most the
//! configured age, refetched when a token names a `kid` they lack — at most
//! once per refetch interval — and never replaced by anything when a fetch
//! fails.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use reqwest::{Client, Url};

use super::discovery;
use super::{OAuthConfig, TokenError};

/// One usable verification key of the JWKS.
pub(super) struct VerificationKey {
    pub(super) key: DecodingKey,
    /// The key's `alg`, when the JWKS says it: then only that algorithm.
    pub(super) alg: Option<Algorithm>,
}

impl VerificationKey {
    pub(super) fn fits(&self, alg: Algorithm) -> bool {
        self.key.family() == alg.family() && self.alg.is_none_or(|only| only == alg)
    }
}

struct KeySet {
    keys: HashMap<String, Arc<VerificationKey>>,
    fetched_at: Instant,
}

/// What only the one fetching task changes, under the fetch lock.
#[derive(Default)]
struct FetchState {
    jwks_uri: Option<Url>,
    last_attempt: Option<Instant>,
    last_failure: Option<String>,
}

pub(super) struct KeyCache {
    client: Client,
    issuer: String,
    issuer_url: Url,
    refetch_interval: Duration,
    max_age: Duration,
    current: RwLock<Option<Arc<KeySet>>>,
    // One fetch at a time: concurrent requests with the same new `kid`
    // wait for the one fetch instead of each fetching.
    fetch: tokio::sync::Mutex<FetchState>,
}

impl KeyCache {
    pub(super) fn new(config: &OAuthConfig, client: Client) -> Self {
        KeyCache {
            client,
            issuer: config.issuer().to_owned(),
            issuer_url: config.issuer_url().clone(),
            refetch_interval: config.jwks_refetch_interval(),
            max_age: config.jwks_max_age(),
            current: RwLock::new(None),
            fetch: tokio::sync::Mutex::new(FetchState::default()),
        }
    }

    /// The key with this `kid`, fetching the JWKS when there is none yet,
    /// when it is older than the max age, or when it lacks the `kid` and
    /// the refetch interval has passed since the last fetch.
    pub(super) async fn key(&self, kid: &str) -> Result<Arc<VerificationKey>, TokenError> {
        if let Some(found) = self.fresh_key(kid) {
            return Ok(found);
        }
        let mut state = self.fetch.lock().await;
        // Another task may have fetched while this one waited.
        if let Some(found) = self.fresh_key(kid) {
            return Ok(found);
        }
        let usable = self
            .snapshot()
            .filter(|set| set.fetched_at.elapsed() < self.max_age);
        let recently = state
            .last_attempt
            .is_some_and(|at| at.elapsed() < self.refetch_interval);
        if recently {
            return Err(match (&usable, &state.last_failure) {
                (Some(_), _) => TokenError::UnknownKey(kid.to_owned()),
                (None, Some(failure)) => TokenError::Unavailable(failure.clone()),
                (None, None) => TokenError::Unavailable("the JWKS has expired".to_owned()),
            });
        }
        state.last_attempt = Some(Instant::now());
        match self.fetch_keys(&mut state).await {
            Ok(set) => {
                state.last_failure = None;
                let found = set.keys.get(kid).cloned();
                *self
                    .current
                    .write()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Arc::new(set));
                found.ok_or_else(|| TokenError::UnknownKey(kid.to_owned()))
            }
            Err(failure) => {
                tracing::warn!(issuer = %self.issuer, %failure, "fetching the issuer's JWKS failed");
                state.last_failure = Some(failure.clone());
                Err(TokenError::Unavailable(failure))
            }
        }
    }

    fn snapshot(&self) -> Option<Arc<KeySet>> {
        self.current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Whether the JWKS in use, fetched within the max age, has `kid`:
    /// what a token verified earlier with that key still needs.
    pub(super) fn has_fresh_key(&self, kid: &str) -> bool {
        self.fresh_key(kid).is_some()
    }

    fn fresh_key(&self, kid: &str) -> Option<Arc<VerificationKey>> {
        let set = self.snapshot()?;
        if set.fetched_at.elapsed() >= self.max_age {
            return None;
        }
        set.keys.get(kid).cloned()
    }

    async fn fetch_keys(&self, state: &mut FetchState) -> Result<KeySet, String> {
        let jwks_uri = match &state.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                let uri = discovery::jwks_uri(&self.client, &self.issuer, &self.issuer_url).await?;
                state.jwks_uri = Some(uri.clone());
                uri
            }
        };
        let document = discovery::fetch_json(&self.client, &jwks_uri).await?;
        let keys = usable_keys(&document).map_err(|error| format!("{jwks_uri}: {error}"))?;
        Ok(KeySet {
            keys,
            fetched_at: Instant::now(),
        })
    }
}

/// The JWKS's signature keys by `kid`. A key that cannot be used (no `kid`,
/// for encryption, symmetric, of an unsupported type) is left out rather
/// than failing the set; a `kid` that two keys share is left out entirely,
/// since a token naming it could not say which it means.
fn usable_keys(
    document: &serde_json::Value,
) -> Result<HashMap<String, Arc<VerificationKey>>, String> {
    let entries = document
        .get("keys")
        .and_then(serde_json::Value::as_array)
        .ok_or("not a JWKS: no `keys` array")?;
    let mut keys = HashMap::new();
    let mut shared = Vec::new();
    for entry in entries {
        let Some((kid, key)) = usable_key(entry) else {
            continue;
        };
        if keys.insert(kid.clone(), Arc::new(key)).is_some() {
            shared.push(kid);
        }
    }
    for kid in shared {
        keys.remove(&kid);
    }
    Ok(keys)
}

fn usable_key(entry: &serde_json::Value) -> Option<(String, VerificationKey)> {
    let jwk: Jwk = serde_json::from_value(entry.clone()).ok()?;
    let kid = jwk.common.key_id.clone()?;
    if matches!(jwk.common.public_key_use, Some(ref usage) if *usage != PublicKeyUse::Signature) {
        return None;
    }
    // A symmetric key in a JWKS would make HS256 tokens verifiable with
    // published material: never a verification key.
    if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
        return None;
    }
    let alg = match jwk.common.key_algorithm {
        Some(declared) => Some(declared.to_string().parse::<Algorithm>().ok()?),
        None => None,
    };
    let key = DecodingKey::from_jwk(&jwk).ok()?;
    if key.family() == AlgorithmFamily::Hmac {
        return None;
    }
    Some((kid, VerificationKey { key, alg }))
}
