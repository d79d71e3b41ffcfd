//! Who may use the control API, and who made each change: every request
//! must bear the control token; one that does carries an [`Attribution`]
//! of the token's name and the request's id — its `X-Request-Id` header if
//! it sent one (1 to 128 characters of visible ASCII; anything else is 400
//! naming it), else a fresh UUID — which every change records in the audit
//! trail. The answer carries the id back in `X-Request-Id`.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};

use super::Refusal;
use crate::audit::Attribution;
use crate::http::repeated_header;

/// The header a request's id travels in, both ways.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The name changes are recorded under unless the deployment names its
/// control token otherwise.
pub const DEFAULT_TOKEN_NAME: &str = "control";

/// `name` if it can name the control token `token` in the audit trail: an
/// attribution's actor (1 to 256 bytes, no control character), and not the
/// token itself, which the trail must never hold. The message never shows
/// the token.
///
/// ```
/// use mcp_profiles_serve::control::token_name;
///
/// assert_eq!(token_name("ops-bot", "s3cret").unwrap(), "ops-bot");
/// assert!(token_name("s3cret", "s3cret").is_err());
/// ```
pub fn token_name(name: &str, token: &str) -> Result<String, String> {
    if name == token {
        return Err(
            "the control token's name is the control token itself; the audit trail would hold the secret"
                .into(),
        );
    }
    Attribution::new(name, "check")
        .map(|by| by.actor().to_owned())
        .map_err(|error| format!("the control token's name: {error}"))
}

/// Compares secrets in time independent of where they differ, so a caller
/// cannot tell from the time taken how much of a guess was right.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// 401 unless `headers` bear `Authorization: Bearer <expected>`; 400 when
/// they bear a credential or a request id more than once (see
/// [`repeated_header`](crate::http::repeated_header)).
pub fn check_token(headers: &HeaderMap, expected: &str) -> Result<(), Refusal> {
    if let Some(why) = repeated_header(headers) {
        return Err(Refusal::new(StatusCode::BAD_REQUEST, why));
    }
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    match presented {
        Some(token) if constant_time_eq(token.as_bytes(), expected.as_bytes()) => Ok(()),
        Some(_) => Err(Refusal::new(StatusCode::UNAUTHORIZED, "wrong bearer token")),
        None => Err(Refusal::new(
            StatusCode::UNAUTHORIZED,
            "missing `Authorization: Bearer <token>` header",
        )),
    }
}

/// The control token and the name its changes are recorded under.
#[derive(Clone, Debug)]
pub(crate) struct Credentials {
    token: Arc<str>,
    actor: Arc<str>,
}

/// `routes`, every one behind the control `token` (401 otherwise) and
/// attributed to `actor` (handlers take `Extension<Attribution>`), their
/// answers echoing the request's id. For a control listener's routes that
/// are not [`ControlApi`](super::ControlApi)'s.
///
/// # Panics
///
/// If `token` is empty.
pub fn guarded<St: Clone + Send + Sync + 'static>(
    routes: Router<St>,
    token: &str,
    actor: &str,
) -> Router<St> {
    assert!(!token.is_empty(), "the control API needs a token");
    let credentials = Credentials {
        token: Arc::from(token),
        actor: Arc::from(actor),
    };
    routes.route_layer(middleware::from_fn_with_state(credentials, authorise))
}

/// Middleware: 400 for a request carrying a header that decides who or
/// what is served more than once ([`repeated_header`]), before any route
/// (one with its own authentication, such as an admin page, included)
/// reads it.
pub(crate) async fn refuse_repeated(request: Request, next: Next) -> Response {
    match repeated_header(request.headers()) {
        None => next.run(request).await,
        Some(why) => Refusal::new(StatusCode::BAD_REQUEST, why).into_response(),
    }
}

async fn authorise(
    State(credentials): State<Credentials>,
    request: Request,
    next: Next,
) -> Response {
    match check_token(request.headers(), &credentials.token) {
        Ok(()) => attributed(&credentials.actor, request, next).await,
        Err(refusal) => refusal.into_response(),
    }
}

/// The attribution of a request the control token `actor` authorised, or
/// 400 naming a malformed `X-Request-Id`.
fn of_request(request: &Request, actor: &str) -> Result<Attribution, Refusal> {
    let request_id = match request.headers().get(&REQUEST_ID) {
        Some(value) => value
            .to_str()
            .map_err(|_| {
                Refusal::new(
                    StatusCode::BAD_REQUEST,
                    "`X-Request-Id` is not visible ASCII (0x21-0x7E)",
                )
            })?
            .to_owned(),
        None => uuid::Uuid::new_v4().to_string(),
    };
    Attribution::new(actor, request_id)
        .map_err(|error| Refusal::new(StatusCode::BAD_REQUEST, format!("`X-Request-Id`: {error}")))
}

/// Runs `request`, already authorised by other means (an admin page's
/// login, say), with its attribution to `actor` in its extensions
/// (handlers take `Extension<Attribution>`), and echoes its id on the
/// answer; 400 for a malformed `X-Request-Id`.
pub async fn attributed(actor: &str, mut request: Request, next: Next) -> Response {
    let by = match of_request(&request, actor) {
        Ok(by) => by,
        Err(refusal) => return refusal.into_response(),
    };
    let id = HeaderValue::from_str(by.request_id());
    request.extensions_mut().insert(by);
    let mut response = next.run(request).await;
    if let Ok(id) = id {
        response.headers_mut().insert(REQUEST_ID, id);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_name_is_an_actor_and_never_the_token() {
        assert_eq!(token_name("ops-bot", "s3cret").unwrap(), "ops-bot");
        let same = token_name("s3cret", "s3cret").unwrap_err();
        assert!(!same.contains("s3cret"), "{same}");
        assert!(token_name("", "s3cret").unwrap_err().contains("name"));
    }

    #[test]
    fn constant_time_eq_compares_whole_values() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }
}
