//! The admin page: `GET /admin` on the control listener, where an operator
//! sees who can reach what and changes it.
//!
//! Server-rendered HTML ([`maud`], which escapes every value it splices
//! in), one stylesheet of its own and no script. The control token, given
//! once in the login form, buys a login kept in an `HttpOnly`,
//! `SameSite=Strict` cookie ([`sessions`]); every form carries the login's
//! CSRF token, and every change is previewed (the tools it adds and
//! removes) before a second form applies it through the same audited path
//! as the control API, under the control token's name.
//!
//! | route | what |
//! |---|---|
//! | `GET /admin/login`, `POST /admin/login` | the login form; `token=` |
//! | `POST /admin/logout` | ends the login |
//! | `GET /admin/style.css` | the stylesheet |
//! | `GET /admin` | the overview (`serve`: the session; `gateway`: every principal) |
//!
//! and each binary's pages and forms (`control/admin.rs`,
//! `gateway/admin.rs`). Every page answers with a Content-Security-Policy
//! that allows no script, no frame and forms only to this listener.

pub mod profiles;
pub mod render;
pub mod sessions;

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use maud::{DOCTYPE, Markup, html};

pub use sessions::{Sessions, SignedIn};

/// The largest form the admin page reads (a profile fits many times over).
pub const MAX_FORM_BYTES: usize = 64 * 1024;

const STYLE: &str = include_str!("style.css");

/// A request the admin page refuses: its status and what was wrong,
/// answered as a page that says so.
#[derive(Debug)]
pub struct Problem {
    status: StatusCode,
    message: String,
}

impl Problem {
    /// A refusal with `status`, saying `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Problem {
            status,
            message: message.into(),
        }
    }

    /// 400 saying `message`.
    pub fn bad(message: impl Into<String>) -> Self {
        Problem::new(StatusCode::BAD_REQUEST, message)
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let title = self
            .status
            .canonical_reason()
            .unwrap_or("Refused")
            .to_owned();
        let body = html! {
            p.problem role="alert" { (self.message) }
            p { a href="/admin" { "Back to the overview" } }
        };
        page(self.status, &title, None, body)
    }
}

/// An HTML page: `body` under the admin page's header (with the logout
/// form when `login` is given), with the headers every admin page sends.
pub fn page(status: StatusCode, title: &str, login: Option<&SignedIn>, body: Markup) -> Response {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Kandev MCP admin" }
                link rel="stylesheet" href="/admin/style.css";
            }
            body {
                header {
                    a.home href="/admin" { "Kandev MCP admin" }
                    @if let Some(login) = login {
                        form.logout method="post" action="/admin/logout" {
                            (csrf_field(login))
                            button type="submit" { "Log out" }
                        }
                    }
                }
                main {
                    h1 { (title) }
                    (body)
                }
            }
        }
    };
    let mut response = (status, markup.into_string()).into_response();
    secure(response.headers_mut(), "text/html; charset=utf-8");
    response
}

/// The page that shows `preview` (after `notice`, if any) and the form
/// that applies it: a `POST` to `action` of the hidden `fields` and the
/// login's CSRF token, or a way back to `cancel`.
pub fn confirm(
    login: &SignedIn,
    title: &str,
    notice: Option<String>,
    preview: &render::Preview<'_>,
    action: &str,
    fields: &[(&str, String)],
    cancel: &str,
) -> Response {
    let body = html! {
        @if let Some(notice) = notice {
            p.problem role="alert" { (notice) }
        }
        (preview.render())
        form #apply method="post" action=(action) {
            (csrf_field(login))
            @for (name, value) in fields {
                input type="hidden" name=(name) value=(value);
            }
            button type="submit" { "Apply" }
            " " a.button href=(cancel) { "Cancel" }
        }
    };
    page(StatusCode::OK, title, Some(login), body)
}

/// The hidden field that carries `login`'s CSRF token in a form.
pub fn csrf_field(login: &SignedIn) -> Markup {
    html! { input type="hidden" name="csrf" value=(login.csrf()); }
}

/// 303 to `location`: where a form's answer sends the browser, so a
/// reload does not post the form again.
pub fn see_other(location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    secure(response.headers_mut(), "text/plain; charset=utf-8");
    response
}

/// The headers every admin answer carries: no script, frame or plugin,
/// forms only to this listener, nothing cached or sniffed, no referrer.
fn secure(headers: &mut HeaderMap, content_type: &'static str) {
    let fixed = [
        (header::CONTENT_TYPE, content_type),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
             frame-ancestors 'none'; base-uri 'none'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// The routes every admin page shares: login, logout and the stylesheet.
pub fn shared_routes(sessions: Arc<Sessions>) -> Router {
    Router::new()
        .route("/admin/login", get(login_form).post(log_in))
        .route("/admin/logout", post(log_out))
        .route("/admin/style.css", get(style))
        .with_state(sessions)
}

/// Lets a request with a live login through, with its [`SignedIn`] as an
/// extension; sends any other `GET` to the login form and refuses any
/// other method (403).
pub async fn require_login(
    State(sessions): State<Arc<Sessions>>,
    mut request: Request,
    next: Next,
) -> Response {
    match sessions.signed_in(request.headers()) {
        Some(login) => {
            request.extensions_mut().insert(login);
            next.run(request).await
        }
        None if request.method() == Method::GET => see_other("/admin/login"),
        None => Problem::new(StatusCode::FORBIDDEN, "not logged in: log in again").into_response(),
    }
}

async fn style() -> Response {
    let mut response = STYLE.into_response();
    secure(response.headers_mut(), "text/css; charset=utf-8");
    response
}

async fn login_form(State(sessions): State<Arc<Sessions>>, headers: HeaderMap) -> Response {
    if sessions.signed_in(&headers).is_some() {
        return see_other("/admin");
    }
    login_page(StatusCode::OK, None)
}

fn login_page(status: StatusCode, refused: Option<&str>) -> Response {
    let body = html! {
        @if let Some(refused) = refused {
            p.problem role="alert" { (refused) }
        }
        form.login method="post" action="/admin/login" {
            label for="token" { "Control token" }
            input #token type="password" name="token" autocomplete="current-password" required autofocus;
            button type="submit" { "Log in" }
        }
    };
    page(status, "Log in", None, body)
}

async fn log_in(
    State(sessions): State<Arc<Sessions>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read(&headers, body)?;
    let Some(id) = sessions.log_in(form.field("token")?) else {
        return Ok(login_page(StatusCode::UNAUTHORIZED, Some("wrong token")));
    };
    let mut response = see_other("/admin");
    let cookie = HeaderValue::from_str(&sessions::set_cookie(&id))
        .map_err(|error| Problem::new(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?;
    response.headers_mut().insert(header::SET_COOKIE, cookie);
    Ok(response)
}

async fn log_out(
    State(sessions): State<Arc<Sessions>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let login = sessions
        .signed_in(&headers)
        .ok_or_else(|| Problem::new(StatusCode::FORBIDDEN, "not logged in"))?;
    Form::read_checked(&login, &headers, body)?;
    sessions.log_out(&login);
    let mut response = see_other("/admin/login");
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&sessions::clear_cookie()).expect("a fixed cookie value"),
    );
    Ok(response)
}

/// A form body (`application/x-www-form-urlencoded`), each field once.
pub struct Form(HashMap<String, String>);

impl Form {
    /// Reads a form body: 415 for any other content type, 413 past
    /// [`MAX_FORM_BYTES`], 400 for a field given twice.
    pub fn read(headers: &HeaderMap, body: Result<Bytes, BytesRejection>) -> Result<Self, Problem> {
        let declared = headers
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        let essence = declared.split(';').next().unwrap_or_default().trim();
        if !essence.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "expected a form (`application/x-www-form-urlencoded`)",
            ));
        }
        let bytes = body.map_err(|rejection| {
            let status = rejection.status();
            let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
                format!("form larger than {MAX_FORM_BYTES} bytes")
            } else {
                rejection.body_text()
            };
            Problem::new(status, message)
        })?;
        let mut fields = HashMap::new();
        for (name, value) in form_urlencoded::parse(&bytes) {
            if fields
                .insert(name.to_string(), value.into_owned())
                .is_some()
            {
                return Err(Problem::bad(format!("field `{name}` given twice")));
            }
        }
        Ok(Form(fields))
    }

    /// [`read`](Self::read), then 403 unless its `csrf` field is `login`'s.
    pub fn read_checked(
        login: &SignedIn,
        headers: &HeaderMap,
        body: Result<Bytes, BytesRejection>,
    ) -> Result<Self, Problem> {
        let form = Form::read(headers, body)?;
        match form.0.get("csrf") {
            Some(csrf) if login.accepts(csrf) => Ok(form),
            _ => Err(Problem::new(
                StatusCode::FORBIDDEN,
                "the form's CSRF token is missing or stale: reload the page and try again",
            )),
        }
    }

    /// The field `name`, or 400 naming it.
    pub fn field(&self, name: &str) -> Result<&str, Problem> {
        self.0
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| Problem::bad(format!("the form has no `{name}` field")))
    }
}

/// What a handler behind [`require_login`] is given: the login.
pub type Login = Extension<SignedIn>;
