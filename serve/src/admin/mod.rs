//! The admin page, for an operator with a browser, on the control
//! listener: who can reach what, why, and forms that change it.
//!
//! Server-rendered HTML ([`maud`], which escapes every value it splices
//! in), one stylesheet of its own and no script. The control token, given
//! once in the login form, buys a login kept in an `HttpOnly`,
//! `SameSite=Strict` cookie ([`Sessions`]); every form carries the login's
//! CSRF token, and every change is previewed (the tools it adds and
//! removes) before a second form applies it through the same audited path
//! as the control API, under the control token's name. A bad form value is
//! answered with a page naming it ([`Problem`]).
//!
//! | route | what |
//! |---|---|
//! | `GET /admin/login`, `POST /admin/login` | the login form; `token=` |
//! | `POST /admin/logout` | ends the login |
//! | `GET /admin/style.css` | the stylesheet |
//!
//! ([`shared_routes`], described by [`shared_pages`]), and the pages
//! themselves: a gateway's with [`ControlApi::with_admin`] (every agent of
//! the store, see its routes there), or an application's own, built from
//! these parts and put behind the login with [`admin_pages`]. Every page
//! answers with a Content-Security-Policy that allows no script, no frame
//! and forms only to this listener.
//!
//! [`ControlApi::with_admin`]: crate::control::ControlApi::with_admin

mod agents;
pub mod profiles;
pub mod render;
mod sessions;

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use maud::{DOCTYPE, Markup, html};
use serde_json::{Value, json};

use crate::control::openapi::{self, Api, Operation};
use crate::control::{Refusal, attributed};

pub use sessions::{
    DEFAULT_COOKIE, DEFAULT_NAME, LIFETIME, MAX_SESSIONS, Naming, Sessions, SignedIn,
};

/// The largest form the admin page reads (a profile fits many times over).
pub const MAX_FORM_BYTES: usize = 64 * 1024;

/// The security scheme every admin page names in an OpenAPI document:
/// the login's cookie ([`openapi::page`]).
pub const LOGIN_SCHEME: &str = "adminLogin";

const STYLE: &str = include_str!("style.css");

tokio::task_local! {
    /// What the pages of the request being answered are called (set by
    /// [`admin_pages`]' and [`shared_routes`]' layer).
    static NAMING: Naming;
}

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

/// The control API's refusal as a page: its status and message.
impl From<Refusal> for Problem {
    fn from(refusal: Refusal) -> Self {
        Problem::new(refusal.status(), refusal.message())
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
/// Its title and header carry the pages' name ([`Naming`]) when answered
/// behind [`admin_pages`] or [`shared_routes`], else [`DEFAULT_NAME`].
pub fn page(status: StatusCode, title: &str, login: Option<&SignedIn>, body: Markup) -> Response {
    let name = NAMING
        .try_with(|naming| naming.name().to_owned())
        .unwrap_or_else(|_| DEFAULT_NAME.to_owned());
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · " (name) }
                link rel="stylesheet" href="/admin/style.css";
            }
            body {
                header {
                    a.home href="/admin" { (name) }
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
        .layer(from_fn_with_state(Arc::clone(&sessions), named))
        .with_state(sessions)
}

/// `routes`, the admin pages of a control listener, behind a login of
/// `sessions` ([`require_login`], checked first), their forms bounded by
/// [`MAX_FORM_BYTES`] and each change attributed to `actor`, the control
/// token's name, as the control API's are (the handler reads it as an
/// `Extension<Attribution>`); plus the [`shared_routes`].
pub fn admin_pages<St: Clone + Send + Sync + 'static>(
    routes: Router<St>,
    state: St,
    actor: &str,
    sessions: Arc<Sessions>,
) -> Router {
    let actor: Arc<str> = Arc::from(actor);
    routes
        .route_layer(from_fn_with_state(actor, admin_change))
        .route_layer(from_fn_with_state(Arc::clone(&sessions), require_login))
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
        .layer(from_fn_with_state(Arc::clone(&sessions), named))
        .with_state(state)
        .merge(shared_routes(sessions))
}

/// Attributes an admin page's request to the control token's name.
async fn admin_change(State(actor): State<Arc<str>>, request: Request, next: Next) -> Response {
    attributed(&actor, request, next).await
}

/// Answers the request with its pages called as `sessions` say.
async fn named(State(sessions): State<Arc<Sessions>>, request: Request, next: Next) -> Response {
    NAMING
        .scope(sessions.naming().clone(), next.run(request))
        .await
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
    let cookie = HeaderValue::from_str(&sessions.set_cookie(&id))
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
        HeaderValue::from_str(&sessions.clear_cookie()).expect("a checked cookie name"),
    );
    Ok(response)
}

/// A form body (`application/x-www-form-urlencoded`), each field once.
pub struct Form(HashMap<String, String>);

impl std::fmt::Debug for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The names only: the login form's value is the control token.
        f.debug_set().entries(self.0.keys()).finish()
    }
}

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

/// The login's security scheme, as [`LOGIN_SCHEME`] in an OpenAPI
/// document: the cookie `naming` names.
fn login_scheme(naming: &Naming) -> Value {
    json!({
        "type": "apiKey",
        "in": "cookie",
        "name": naming.cookie(),
        "description": "The admin page's login (`POST /admin/login` with the control token), for a browser.",
    })
}

/// The [`shared_routes`]' paths and their operations.
fn shared_operations() -> [(&'static str, Vec<Operation>); 3] {
    [
        (
            "/admin/login",
            vec![
                openapi::page("The login form", &[]).open(),
                openapi::page(
                    "Logs in with the control token (a cookie, never the token, is kept)",
                    &["token"],
                )
                .open(),
            ],
        ),
        ("/admin/logout", vec![openapi::page("Logs out", &["csrf"])]),
        (
            "/admin/style.css",
            vec![
                openapi::get::<()>("The admin page's stylesheet")
                    .text("text/css")
                    .open(),
            ],
        ),
    ]
}

/// Describes the [`shared_routes`] (login, logout, the stylesheet) in
/// `api`, an application's own document, with the login's security
/// scheme ([`LOGIN_SCHEME`]) that every [`openapi::page`] names. The
/// application describes its own pages beside them.
pub fn shared_pages<St: Clone + Send + Sync + 'static>(api: Api<St>, naming: &Naming) -> Api<St> {
    shared_operations().into_iter().fold(
        api.security_scheme(LOGIN_SCHEME, login_scheme(naming)),
        |api, (path, operations)| api.beside(path, operations),
    )
}
