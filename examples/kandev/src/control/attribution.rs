//! Who made a control API change, and in which request: the library's
//! attribution ([`mcp_profiles_serve::control`]: the control token's name,
//! `--control-token-name`, `control` unless told, and the request's
//! `X-Request-Id` or a fresh one), as the admin pages' is
//! ([`mcp_profiles_serve::admin::admin_pages`]).

pub use mcp_profiles_serve::control::{DEFAULT_TOKEN_NAME, REQUEST_ID};

/// `name` if it can name the control token in the audit trail (see
/// [`mcp_profiles_serve::control::token_name`]), the message naming the
/// flag. The message never shows the token.
pub fn token_name(name: &str, token: &str) -> Result<String, String> {
    mcp_profiles_serve::control::token_name(name, token)
        .map_err(|error| format!("--control-token-name: {error}"))
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
