//! Who made a control API change, and in which request: every request that
//! passes the token check carries an [`Attribution`] of the control token's
//! name (`--control-token-name`, `control` unless told) and the request's
//! id — its `X-Request-Id` header if it sent one (1 to 128 characters of
//! visible ASCII; anything else is 400 naming it), else a fresh UUID —
//! which every change records in the audit trail. The answer carries the
//! id back in `X-Request-Id`.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mcp_profiles_serve::audit::Attribution;

use super::Refusal;

/// The header a request's id travels in, both ways.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The control token's name unless `--control-token-name` says otherwise.
pub const DEFAULT_TOKEN_NAME: &str = "control";

/// `name` if it can name the control token in the audit trail: an
/// attribution's actor (1 to 256 bytes, no control character), and not the
/// token itself, which the trail must never hold. The message never shows
/// the token.
pub fn token_name(name: &str, token: &str) -> Result<String, String> {
    if name == token {
        return Err(
            "--control-token-name is the control token itself; the audit trail would hold the secret"
                .into(),
        );
    }
    Attribution::new(name, "check")
        .map(|by| by.actor().to_owned())
        .map_err(|error| format!("--control-token-name: {error}"))
}

/// The attribution of a request the control token `actor` authorised, or
/// 400 naming a malformed `X-Request-Id`.
pub(crate) fn of_request(request: &Request, actor: &str) -> Result<Attribution, Refusal> {
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

/// Runs `request` with its attribution in its extensions (handlers take
/// `Extension<Attribution>`) and echoes its id on the answer.
pub(crate) async fn attributed(actor: &str, mut request: Request, next: Next) -> Response {
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

/// `routes`, the admin pages of a control listener, behind a login of
/// `sessions` (checked first) and with each change attributed to `actor`,
/// the control token's name, as the API's are; plus the login routes.
pub(crate) fn admin_pages<St: Clone + Send + Sync + 'static>(
    routes: axum::Router<St>,
    state: St,
    actor: std::sync::Arc<str>,
    sessions: std::sync::Arc<crate::admin::Sessions>,
) -> axum::Router {
    routes
        .route_layer(axum::middleware::from_fn_with_state(actor, admin_change))
        .route_layer(axum::middleware::from_fn_with_state(
            std::sync::Arc::clone(&sessions),
            crate::admin::require_login,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(
            crate::admin::MAX_FORM_BYTES,
        ))
        .with_state(state)
        .merge(crate::admin::shared_routes(sessions))
}

/// Attributes an admin page's request to the control token's name.
async fn admin_change(
    axum::extract::State(actor): axum::extract::State<std::sync::Arc<str>>,
    request: Request,
    next: Next,
) -> axum::response::Response {
    attributed(&actor, request, next).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_name_is_an_actor_and_never_the_token() {
        assert_eq!(token_name("ops-bot", "s3cret").unwrap(), "ops-bot");
        let same = token_name("s3cret", "s3cret").unwrap_err();
        assert!(!same.contains("s3cret"), "{same}");
        assert!(
            token_name("", "s3cret")
                .unwrap_err()
                .contains("--control-token-name")
        );
    }
}
