//! Requests that carry a header deciding who or what is served more than
//! once are ambiguous: those fields are not lists (RFC 9110 §5.3), so two
//! `Authorization` headers, say, could be read as either credential by
//! whichever part looks first. Such a request is refused with 400 naming
//! the header, on every listener (MCP and control), never one value picked.

use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The headers a request may carry at most once, lower-case, and as
/// messages name them: credentials, the session and its stream, the
/// protocol version, the method and name a 2026-07-28 request routes on,
/// and the request id changes are recorded under. Every `Mcp-Param-*`
/// header is one too.
pub const SINGLE_VALUED: [(&str, &str); 7] = [
    ("authorization", "Authorization"),
    ("mcp-session-id", "Mcp-Session-Id"),
    ("mcp-protocol-version", "MCP-Protocol-Version"),
    ("last-event-id", "Last-Event-Id"),
    ("mcp-method", "Mcp-Method"),
    ("mcp-name", "Mcp-Name"),
    ("x-request-id", "X-Request-Id"),
];

/// The prefix of the headers a 2026-07-28 request mirrors its parameters
/// in, each single-valued.
const PARAM_PREFIX: &str = "mcp-param-";

/// What is wrong with `headers`, if one of [`SINGLE_VALUED`] (or an
/// `Mcp-Param-*` header) is in them more than once: the header's name and
/// how many times it came, as a message.
///
/// ```
/// use axum::http::{HeaderMap, HeaderValue, header};
/// use mcp_profiles_serve::http::repeated_header;
///
/// let mut headers = HeaderMap::new();
/// headers.append(header::AUTHORIZATION, HeaderValue::from_static("Bearer a"));
/// assert_eq!(repeated_header(&headers), None);
/// headers.append(header::AUTHORIZATION, HeaderValue::from_static("Bearer b"));
/// assert_eq!(
///     repeated_header(&headers).as_deref(),
///     Some("the request carries `Authorization` 2 times; it may carry it at most once"),
/// );
/// ```
pub fn repeated_header(headers: &HeaderMap) -> Option<String> {
    let said = |shown: &str, times: usize| {
        format!("the request carries `{shown}` {times} times; it may carry it at most once")
    };
    for (name, shown) in SINGLE_VALUED {
        let times = headers.get_all(name).iter().count();
        if times > 1 {
            return Some(said(shown, times));
        }
    }
    headers
        .keys()
        .filter(|name| name.as_str().starts_with(PARAM_PREFIX))
        .find_map(|name| {
            let times = headers.get_all(name).iter().count();
            (times > 1).then(|| said(name.as_str(), times))
        })
}

/// Middleware for an MCP router: 400 before anything reads a repeated
/// header, its text in rmcp's style for its own 400s.
pub(crate) async fn refuse_repeated(request: Request, next: Next) -> Response {
    match repeated_header(request.headers()) {
        None => next.run(request).await,
        Some(why) => (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("Bad Request: {why}"),
        )
            .into_response(),
    }
}
