//! What both control listeners serve beside their APIs, described in their
//! OpenAPI documents: `/metrics` (merged in by the binary from
//! `crate::prometheus`; the openapi test checks it is served) and the admin
//! page's overview, kill-switch forms and login (`crate::admin`). The API
//! descriptions themselves are the library's
//! ([`mcp_profiles_serve::control::openapi`]).

use mcp_profiles::Vocabulary;
use mcp_profiles_serve::control::openapi::{self, Operation};
use mcp_profiles_serve::control::{ContextForm, ControlApi};
use serde_json::{Value, json};

pub use openapi::{Api, get, page, put};

/// Describes what both control listeners serve beside their APIs.
pub trait SharedPages: Sized {
    /// Describes `path`'s `operations`.
    fn described_beside(self, path: &str, operations: Vec<Operation>) -> Self;
    /// Adds the admin login's security scheme.
    fn with_scheme(self, name: &str, scheme: Value) -> Self;

    /// `/metrics` and the admin pages both listeners serve, with the
    /// listener's own kill-switch form (its fields differ), and the admin
    /// login's security scheme.
    fn beside_shared(self, apply_kill_switch: Operation) -> Self {
        let (name, scheme) = admin_login();
        shared_pages(apply_kill_switch)
            .into_iter()
            .fold(self.with_scheme(name, scheme), |api, (path, operations)| {
                api.described_beside(path, operations)
            })
    }
}

impl<St: Clone + Send + Sync + 'static> SharedPages for Api<St> {
    fn described_beside(self, path: &str, operations: Vec<Operation>) -> Self {
        self.beside(path, operations)
    }
    fn with_scheme(self, name: &str, scheme: Value) -> Self {
        self.security_scheme(name, scheme)
    }
}

impl<S: Vocabulary, F: ContextForm<S>> SharedPages for ControlApi<S, F> {
    fn described_beside(self, path: &str, operations: Vec<Operation>) -> Self {
        self.beside(path, operations)
    }
    fn with_scheme(self, name: &str, scheme: Value) -> Self {
        self.security_scheme(name, scheme)
    }
}

/// The admin login's security scheme, which every admin page names.
fn admin_login() -> (&'static str, Value) {
    (
        "adminLogin",
        json!({
            "type": "apiKey",
            "in": "cookie",
            "name": crate::admin::sessions::COOKIE,
            "description": "The admin page's login (`POST /admin/login` with the control token), for a browser.",
        }),
    )
}

/// The paths both listeners serve beside their routers, with the
/// listener's own kill-switch form.
fn shared_pages(apply_kill_switch: Operation) -> Vec<(&'static str, Vec<Operation>)> {
    vec![
        (
            "/metrics",
            vec![
                get::<()>("Prometheus metrics (without the token under --metrics-public)")
                    .text("text/plain; version=0.0.4"),
            ],
        ),
        ("/admin", vec![page("The admin page", &[])]),
        (
            "/admin/kill-switch",
            vec![page("Previews a kill switch", &["deny", "csrf"])],
        ),
        ("/admin/kill-switch/apply", vec![apply_kill_switch]),
        (
            "/admin/login",
            vec![
                page("The login form", &[]).open(),
                page(
                    "Logs in with the control token (a cookie, never the token, is kept)",
                    &["token"],
                )
                .open(),
            ],
        ),
        ("/admin/logout", vec![page("Logs out", &["csrf"])]),
        (
            "/admin/style.css",
            vec![
                get::<()>("The admin page's stylesheet")
                    .text("text/css")
                    .open(),
            ],
        ),
    ]
}
