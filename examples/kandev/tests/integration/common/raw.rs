//! Control-API requests at the HTTP level, shared by the hostile passes over
//! `serve`'s control API (`hostile.rs`) and the gateway's
//! (`gateway_hostile.rs`): `Authorization` values as raw bytes, bodies with
//! a length or chunked, paths exactly as written (no client normalises
//! them), and the refusals every route owes whatever it does.

use reqwest::Method;
use reqwest::header::HeaderValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{BEARER, LIMIT, Server, TOKEN};

/// One route as the tables of the hostile tests list it: method, path, and
/// a body that would change something if it were accepted.
pub type Route = (Method, String, Option<Vec<u8>>);

/// Every `Authorization` a control route must refuse with 401, by case: the
/// values of the header (raw bytes; none, one or several headers). Scheme
/// and token are compared exactly ("bearer" is refused, although RFC 9110
/// calls schemes case-insensitive).
pub fn bad_authorizations() -> Vec<(&'static str, Vec<Vec<u8>>)> {
    let text = |value: String| vec![value.into_bytes()];
    vec![
        ("missing", vec![]),
        ("wrong", text("Bearer wrong".into())),
        ("no scheme", text(TOKEN.into())),
        ("empty token", text("Bearer ".into())),
        ("scheme only", text("Bearer".into())),
        ("lowercase scheme", text(format!("bearer {TOKEN}"))),
        ("uppercase scheme", text(format!("BEARER {TOKEN}"))),
        ("two spaces", text(format!("Bearer  {TOKEN}"))),
        ("basic", text("Basic dGVzdC10b2tlbi0wMTIzNDU2Nzg5".into())),
        ("trailing no-break space", text(format!("{BEARER}\u{a0}"))),
        (
            "non-UTF-8 byte",
            vec![[BEARER.as_bytes(), b"\xff"].concat()],
        ),
        (
            "64 KiB token",
            text(format!("Bearer {}", "x".repeat(64 * 1024))),
        ),
        (
            "16 KiB after the token",
            text(format!("{BEARER}{}", "x".repeat(16 * 1024))),
        ),
        (
            "last byte differs",
            text(format!("Bearer {}8", &TOKEN[..TOKEN.len() - 1])),
        ),
        (
            "last byte missing",
            text(format!("Bearer {}", &TOKEN[..TOKEN.len() - 1])),
        ),
        ("one byte more", text(format!("{BEARER}0"))),
        ("token listed twice", text(format!("{BEARER}, {BEARER}"))),
        (
            "wrong header first",
            vec![b"Bearer wrong".to_vec(), BEARER.as_bytes().to_vec()],
        ),
        (
            "right header twice",
            vec![BEARER.as_bytes().to_vec(), BEARER.as_bytes().to_vec()],
        ),
    ]
}

/// Sends every [`bad_authorizations`] case to every route (with its body)
/// and a 1 MiB `Authorization` header to the first; panics unless each is
/// refused (401; 400 for two `Authorization` headers, which are ambiguous
/// whatever they say; and 431 for the header the HTTP layer will not
/// read).
/// How many were refused.
pub async fn refuse_bad_tokens(server: &Server, http: &reqwest::Client, routes: &[Route]) -> usize {
    let mut refused = 0;
    for (case, authorization) in bad_authorizations() {
        for (method, path, body) in routes {
            let status = control_raw(
                server,
                http,
                method.clone(),
                path,
                &authorization,
                body.clone(),
            )
            .await;
            let expected = if authorization.len() > 1 { 400 } else { 401 };
            assert_eq!(status, expected, "{case}: {method} {path}");
            refused += 1;
        }
    }
    let (method, path, body) = &routes[0];
    let body = body.clone().unwrap_or_default();
    let huge = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\
         Content-Length: {}\r\n\r\n",
        "x".repeat(1024 * 1024),
        body.len()
    );
    let (status, _) = raw_http(server, huge, body).await;
    assert_eq!(status, 431, "a 1 MiB Authorization header");
    refused + 1
}

/// Panics unless the right token with whitespace around it is accepted on
/// `GET path`: whitespace around a header value is not part of it (RFC
/// 9110, 5.5), and hyper strips it before the server sees the token.
pub async fn accept_token_in_whitespace(server: &Server, http: &reqwest::Client, path: &str) {
    for padded in [
        format!("{BEARER} "),
        format!("{BEARER}\t"),
        format!(" {BEARER}"),
    ] {
        let status = control_raw(server, http, Method::GET, path, &[&padded], None).await;
        assert_eq!(status, 200, "{padded:?}");
    }
}

/// Sends a control request with the given `Authorization` values (raw bytes,
/// possibly several headers) and body (declared JSON); the status.
pub async fn control_raw(
    server: &Server,
    http: &reqwest::Client,
    method: Method,
    path: &str,
    authorization: &[impl AsRef<[u8]>],
    body: Option<Vec<u8>>,
) -> u16 {
    let mut request = http.request(method, format!("{}{path}", server.control));
    for value in authorization {
        let value =
            HeaderValue::from_bytes(value.as_ref()).expect("a header value reqwest can send");
        request = request.header(reqwest::header::AUTHORIZATION, value);
    }
    if let Some(body) = body {
        request = request
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
    }
    request
        .send()
        .await
        .expect("the control API answers")
        .status()
        .as_u16()
}

/// Sends `head` and then `body` as one HTTP/1.1 request on a fresh
/// connection to the control port, reading the answer while still writing
/// (a server refusing a large body answers before reading it and closes the
/// connection, so the write may fail); the status and the answer's body
/// (as much as its `Content-Length` announces, or none without one).
pub async fn raw_http(server: &Server, head: String, body: Vec<u8>) -> (u16, String) {
    let address = server.control.trim_start_matches("http://");
    let stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("the control port accepts");
    let (mut read, mut write) = stream.into_split();
    let writer = tokio::spawn(async move {
        let _ = write.write_all(head.as_bytes()).await;
        for chunk in body.chunks(16 * 1024) {
            if write.write_all(chunk).await.is_err() {
                break;
            }
        }
        write
    });
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + LIMIT;
    // Until the head and the body it announces are in, or the peer closes.
    while !complete(&answer) {
        match tokio::time::timeout_at(deadline, read.read(&mut buffer)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buffer[..n]),
            _ => break,
        }
    }
    drop(writer.await);
    let answer = String::from_utf8_lossy(&answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// Whether `answer` holds a whole head and as many body bytes as its
/// `Content-Length` says (none without one).
fn complete(answer: &[u8]) -> bool {
    let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    answer.len() >= end + 4 + length
}

/// `METHOD path` with `body` declared as JSON, sent with `Content-Length`
/// or chunked, and `Authorization: <authorization>` if given; the status.
pub async fn send_raw(
    server: &Server,
    method: &Method,
    path: &str,
    authorization: Option<&str>,
    body: &[u8],
    chunked: bool,
) -> u16 {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    );
    if let Some(value) = authorization {
        head.push_str(&format!("Authorization: {value}\r\n"));
    }
    let body = if chunked {
        head.push_str("Transfer-Encoding: chunked\r\n\r\n");
        let mut encoded = Vec::new();
        for chunk in body.chunks(8 * 1024) {
            encoded.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            encoded.extend_from_slice(chunk);
            encoded.extend_from_slice(b"\r\n");
        }
        encoded.extend_from_slice(b"0\r\n\r\n");
        encoded
    } else {
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        body.to_vec()
    };
    raw_http(server, head, body).await.0
}

/// A JSON object of exactly `size` bytes: `head`, which opens it and ends
/// in an open string (`{"surface":"office-task","pad":"`), padded with `x`.
pub fn padded(head: &str, size: usize) -> Vec<u8> {
    let mut body = head.as_bytes().to_vec();
    body.resize(size - 2, b'x');
    body.extend_from_slice(b"\"}");
    body
}

/// Panics unless `METHOD path`, whose bodies may be `limit` bytes, refuses
/// larger ones with 413 (with a length up front or chunked, so refused once
/// the limit is crossed; a declared gigabyte without waiting for it) and
/// never before the token is checked (401), and reads one of exactly
/// `limit` bytes (a [`padded`] `head`, refused as JSON: 400). How many were
/// refused with 413 or 401.
pub async fn refuse_oversize(
    server: &Server,
    method: &Method,
    path: &str,
    head: &str,
    limit: usize,
) -> usize {
    let mut refused = 0;
    let large = (1024 * 1024).max(2 * limit);
    for size in [limit + 1, large, 16 * 1024 * 1024] {
        for chunked in [false, true] {
            let body = padded(head, size);
            let status = send_raw(server, method, path, Some(BEARER), &body, chunked).await;
            assert_eq!(status, 413, "{size} bytes (chunked: {chunked}) to {path}");
            refused += 1;
        }
    }
    let body = padded(head, large);
    let status = send_raw(server, method, path, None, &body, false).await;
    assert_eq!(status, 401, "{large} bytes without a token to {path}");
    for chunked in [false, true] {
        let body = padded(head, limit);
        let status = send_raw(server, method, path, Some(BEARER), &body, chunked).await;
        assert_eq!(
            status, 400,
            "exactly {limit} bytes to {path} is read, and refused as JSON"
        );
    }
    // The declared length alone is not refused: the server reads up to the
    // limit first.
    let declared = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {BEARER}\r\n\
         Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n"
    );
    let (status, _) = raw_http(server, declared, vec![b' '; limit + 1]).await;
    assert_eq!(status, 413, "a declared gigabyte to {path}");
    refused + 2
}
