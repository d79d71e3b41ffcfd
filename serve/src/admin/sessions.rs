//! Who is logged in to the admin page: the control token, presented once
//! through the login form, buys a session whose random id travels in an
//! `HttpOnly`, `SameSite=Strict` cookie (the token itself never does), and
//! whose CSRF token every form carries back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};

use crate::control::constant_time_eq;

/// The admin pages' name unless told ([`Naming::default`]).
pub const DEFAULT_NAME: &str = "MCP admin";

/// The login cookie's name unless told ([`Naming::default`]).
pub const DEFAULT_COOKIE: &str = "mcp_profiles_admin";

/// How long a login lasts.
pub const LIFETIME: Duration = Duration::from_secs(8 * 60 * 60);

/// The most logins kept at once; a new one past it ends the oldest.
pub const MAX_SESSIONS: usize = 64;

/// What a listener's admin pages are called: the name in every page's
/// title and header, and the name of the cookie their login travels in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    name: Arc<str>,
    cookie: Arc<str>,
}

impl Default for Naming {
    /// [`DEFAULT_NAME`] in a [`DEFAULT_COOKIE`].
    fn default() -> Self {
        Naming::new(DEFAULT_NAME, DEFAULT_COOKIE)
    }
}

impl Naming {
    /// Pages called `name`, their login in the cookie `cookie`.
    ///
    /// # Panics
    ///
    /// If `cookie` is not a cookie name (1 to 64 of `A-Z a-z 0-9 _ -`),
    /// naming it.
    pub fn new(name: &str, cookie: &str) -> Self {
        let valid = (1..=64).contains(&cookie.len())
            && cookie
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        assert!(
            valid,
            "`{cookie}` is not a cookie name: 1 to 64 of `A-Z a-z 0-9 _ -`"
        );
        Naming {
            name: Arc::from(name),
            cookie: Arc::from(cookie),
        }
    }

    /// The name every page's title and header carry.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The login cookie's name.
    pub fn cookie(&self) -> &str {
        &self.cookie
    }
}

/// The logins of one control listener.
pub struct Sessions {
    token: Arc<str>,
    naming: Naming,
    live: Mutex<HashMap<String, Session>>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Neither the token nor a login's id.
        f.debug_struct("Sessions")
            .field("naming", &self.naming)
            .finish_non_exhaustive()
    }
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

impl std::fmt::Debug for SignedIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignedIn").finish_non_exhaustive()
    }
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
    /// The logins of a listener whose control token is `token`, whose
    /// pages are called and keep their cookie as `naming` says.
    pub fn new(token: &str, naming: Naming) -> Arc<Self> {
        Arc::new(Sessions {
            token: Arc::from(token),
            naming,
            live: Mutex::new(HashMap::new()),
        })
    }

    /// What the pages are called, and their cookie.
    pub fn naming(&self) -> &Naming {
        &self.naming
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
        let id = self.cookie(headers)?;
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

    /// The `Set-Cookie` value that hands a browser login `id`.
    pub fn set_cookie(&self, id: &str) -> String {
        format!(
            "{}={id}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age={}",
            self.naming.cookie,
            LIFETIME.as_secs()
        )
    }

    /// The `Set-Cookie` value that makes a browser forget its login.
    pub fn clear_cookie(&self) -> String {
        format!(
            "{}=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0",
            self.naming.cookie
        )
    }

    /// The admin cookie among every `Cookie` header's pairs.
    fn cookie<'h>(&self, headers: &'h HeaderMap) -> Option<&'h str> {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(';'))
            .find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                (name == &*self.naming.cookie).then_some(value)
            })
    }
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
        let sessions = Sessions::new("secret", Naming::default());
        assert!(sessions.log_in("secreT").is_none());
        assert!(sessions.log_in("").is_none());
        let id = sessions.log_in("secret").unwrap();
        assert!(!id.contains("secret"));
        let login = sessions
            .signed_in(&with_cookie(&format!("other=1; {DEFAULT_COOKIE}={id}")))
            .unwrap();
        assert!(login.accepts(login.csrf()));
        assert!(!login.accepts("forged"));
        assert!(
            sessions
                .signed_in(&with_cookie(&format!("{DEFAULT_COOKIE}=x")))
                .is_none()
        );
        sessions.log_out(&login);
        assert!(
            sessions
                .signed_in(&with_cookie(&format!("{DEFAULT_COOKIE}={id}")))
                .is_none()
        );
    }

    #[test]
    fn the_cookie_is_the_one_named() {
        let sessions = Sessions::new("t", Naming::new("Desk admin", "desk_admin"));
        let id = sessions.log_in("t").unwrap();
        assert!(
            sessions
                .set_cookie(&id)
                .starts_with(&format!("desk_admin={id};"))
        );
        assert!(sessions.clear_cookie().starts_with("desk_admin=;"));
        let other = with_cookie(&format!("{DEFAULT_COOKIE}={id}"));
        assert!(sessions.signed_in(&other).is_none());
        assert!(
            sessions
                .signed_in(&with_cookie(&format!("desk_admin={id}")))
                .is_some()
        );
    }

    #[test]
    #[should_panic(expected = "`a b` is not a cookie name")]
    fn a_cookie_name_is_a_token() {
        Naming::new("admin", "a b");
    }

    #[test]
    fn logins_past_the_cap_end_the_oldest() {
        let sessions = Sessions::new("t", Naming::default());
        let first = sessions.log_in("t").unwrap();
        for _ in 0..MAX_SESSIONS {
            sessions.log_in("t").unwrap();
        }
        assert!(
            sessions
                .signed_in(&with_cookie(&format!("{DEFAULT_COOKIE}={first}")))
                .is_none()
        );
        assert_eq!(sessions.live.lock().unwrap().len(), MAX_SESSIONS);
    }
}
