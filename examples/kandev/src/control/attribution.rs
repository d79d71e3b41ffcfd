//! Who made a control API change, and in which request: the library's
//! attribution ([`mcp_profiles_serve::control`]: the control token's name,
//! `--control-token-name`, `control` unless told, and the request's
//! `X-Request-Id` or a fresh one), applied to the admin pages too.

use axum::extract::Request;
use axum::middleware::Next;
use mcp_profiles_serve::control::attributed;

pub use mcp_profiles_serve::control::{DEFAULT_TOKEN_NAME, REQUEST_ID};

/// `name` if it can name the control token in the audit trail (see
/// [`mcp_profiles_serve::control::token_name`]), the message naming the
/// flag. The message never shows the token.
pub fn token_name(name: &str, token: &str) -> Result<String, String> {
    mcp_profiles_serve::control::token_name(name, token)
        .map_err(|error| format!("--control-token-name: {error}"))
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
