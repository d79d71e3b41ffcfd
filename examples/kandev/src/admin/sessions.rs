//! Who is logged in to the admin page: the control token, presented once
//! through the login form, buys a session whose random id travels in an
//! `HttpOnly`, `SameSite=Strict` cookie (the token itself never does), and
//! whose CSRF token every form carries back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};

use mcp_profiles_serve::control::constant_time_eq;

/// The admin session cookie's name.
pub const COOKIE: &str = "kandev_admin";

/// How long a login lasts.
pub const LIFETIME: Duration = Duration::from_secs(8 * 60 * 60);

/// The most logins kept at once; a new one past it ends the oldest.
pub const MAX_SESSIONS: usize = 64;

/// The logins of one control listener.
pub struct Sessions {
    token: Arc<str>,
    live: Mutex<HashMap<String, Session>>,
}

struct Session {
    csrf: String,
    expires: Instant,
}

/// A request's live login: its id and the CSRF token its forms carry.
#[derive(Clone)]
pub struct SignedIn {
    id: String,
    csrf: String,
}

impl SignedIn {
    /// The value every form of this login carries in its `csrf` field.
    pub fn csrf(&self) -> &str {
        &self.csrf
    }

    /// Whether `presented` is this login's CSRF token.
    pub fn accepts(&self, presented: &str) -> bool {
        constant_time_eq(presented.as_bytes(), self.csrf.as_bytes())
    }
}

impl Sessions {
    /// The logins of a listener whose control token is `token`.
    pub fn new(token: &str) -> Arc<Self> {
        Arc::new(Sessions {
            token: Arc::from(token),
            live: Mutex::new(HashMap::new()),
        })
    }

    /// A new login if `presented` is the control token: its cookie value.
    pub fn log_in(&self, presented: &str) -> Option<String> {
        if !constant_time_eq(presented.as_bytes(), self.token.as_bytes()) {
            return None;
        }
        let id = random();
        let now = Instant::now();
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|_, session| session.expires > now);
        if live.len() >= MAX_SESSIONS {
            let oldest = live
                .iter()
                .min_by_key(|(_, session)| session.expires)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                live.remove(&oldest);
            }
        }
        let session = Session {
            csrf: random(),
            expires: now + LIFETIME,
        };
        live.insert(id.clone(), session);
        Some(id)
    }

    /// The live login whose cookie `headers` carry, if any.
    pub fn signed_in(&self, headers: &HeaderMap) -> Option<SignedIn> {
        let id = cookie(headers)?;
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        let session = live.get(id)?;
        if session.expires <= Instant::now() {
            live.remove(id);
            return None;
        }
        Some(SignedIn {
            id: id.to_owned(),
            csrf: session.csrf.clone(),
        })
    }

    /// Ends `login`.
    pub fn log_out(&self, login: &SignedIn) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.remove(&login.id);
    }
}

/// The `Set-Cookie` value that hands a browser login `id`.
pub fn set_cookie(id: &str) -> String {
    format!(
        "{COOKIE}={id}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age={}",
        LIFETIME.as_secs()
    )
}

/// The `Set-Cookie` value that makes a browser forget its login.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// The admin cookie among every `Cookie` header's pairs.
fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == COOKIE).then_some(value)
        })
}

/// 244 random bits as 64 hex digits: two version-4 UUIDs, from the
/// operating system's generator.
fn random() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_cookie(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn only_the_token_logs_in_and_the_cookie_finds_the_login() {
        let sessions = Sessions::new("secret");
        assert!(sessions.log_in("secreT").is_none());
        assert!(sessions.log_in("").is_none());
        let id = sessions.log_in("secret").unwrap();
        assert!(!id.contains("secret"));
        let login = sessions
            .signed_in(&with_cookie(&format!("other=1; {COOKIE}={id}")))
            .unwrap();
        assert!(login.accepts(login.csrf()));
        assert!(!login.accepts("forged"));
        assert!(
            sessions
                .signed_in(&with_cookie(&format!("{COOKIE}=x")))
                .is_none()
        );
        sessions.log_out(&login);
        assert!(
            sessions
                .signed_in(&with_cookie(&format!("{COOKIE}={id}")))
                .is_none()
        );
    }

    #[test]
    fn logins_past_the_cap_end_the_oldest() {
        let sessions = Sessions::new("t");
        let first = sessions.log_in("t").unwrap();
        for _ in 0..MAX_SESSIONS {
            sessions.log_in("t").unwrap();
        }
        assert!(
            sessions
                .signed_in(&with_cookie(&format!("{COOKIE}={first}")))
                .is_none()
        );
        assert_eq!(sessions.live.lock().unwrap().len(), MAX_SESSIONS);
    }
}
