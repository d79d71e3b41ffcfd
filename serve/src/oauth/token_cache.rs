//! What a token was found to be, reused for a while: an introspection
//! endpoint's active answer, or a JWT whose signature and claims were
//! checked. Keyed by the SHA-256 of the token, so the token itself is never
//! kept, and never kept beyond the token's `exp`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

/// A token's SHA-256: what the cache knows of it.
pub(super) type TokenDigest = [u8; 32];

pub(super) fn digest(token: &str) -> TokenDigest {
    Sha256::digest(token.as_bytes()).into()
}

struct Entry<V> {
    value: V,
    until: Instant,
}

pub(super) struct TokenCache<V> {
    ttl: Duration,
    max_entries: usize,
    entries: Mutex<HashMap<TokenDigest, Entry<V>>>,
}

impl<V: Clone> TokenCache<V> {
    pub(super) fn new(ttl: Duration, max_entries: usize) -> Self {
        TokenCache {
            ttl,
            max_entries,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// What is kept for the token with this digest, if it has not expired
    /// (an expired entry is dropped).
    pub(super) fn get(&self, digest: &TokenDigest) -> Option<V> {
        let mut entries = self.lock();
        let entry = entries.get(digest)?;
        if entry.until > Instant::now() {
            return Some(entry.value.clone());
        }
        entries.remove(digest);
        None
    }

    /// Keeps `value` for the token with this digest for the TTL, or until
    /// `exp` (seconds since the epoch) when that comes first. When full,
    /// expired entries are dropped, then the one nearest its expiry.
    pub(super) fn insert(&self, digest: TokenDigest, value: V, exp: f64) {
        let Some(lifetime) = self.lifetime(exp) else {
            return;
        };
        let now = Instant::now();
        let mut entries = self.lock();
        if entries.len() >= self.max_entries && !entries.contains_key(&digest) {
            entries.retain(|_, entry| entry.until > now);
            if entries.len() >= self.max_entries {
                let nearest = entries
                    .iter()
                    .min_by_key(|(_, entry)| entry.until)
                    .map(|(key, _)| *key);
                if let Some(key) = nearest {
                    entries.remove(&key);
                }
            }
        }
        let until = now + lifetime;
        entries.insert(digest, Entry { value, until });
    }

    /// The TTL, shortened to the time left until `exp`; `None` when that is
    /// none (a token accepted within the leeway past its `exp`) or the TTL
    /// is zero.
    fn lifetime(&self, exp: f64) -> Option<Duration> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let left = exp - now;
        let lifetime = if left >= self.ttl.as_secs_f64() {
            self.ttl
        } else if left > 0.0 {
            Duration::from_secs_f64(left)
        } else {
            Duration::ZERO
        };
        (!lifetime.is_zero()).then_some(lifetime)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TokenDigest, Entry<V>>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
