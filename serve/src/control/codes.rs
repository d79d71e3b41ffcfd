//! The codes of the control API's refusals: stable names a client can
//! branch on, beside the status and the human message (which may change).
//! Every control route answers every refusal as
//! `{"error": message, "code": code, "status": status, "pointer": "/field"}`,
//! `pointer` being the JSON pointer (RFC 6901) of the offending part of the
//! body where there is one.
//!
//! | code | status | when |
//! |---|---|---|
//! | `invalid-body` | 400 | the body is not the JSON object the route reads: malformed, a field unknown, missing or of the wrong type (`pointer` says where) |
//! | `invalid-request` | 400 | the body reads, but a value in it, the query or the path is refused (an unknown surface, capability or tool name, a bad principal name) |
//! | `unauthorized` | 401 | the bearer token is missing or wrong |
//! | `no-route` | 404 | no route has this path |
//! | `not-found` | 404 | no agent, task or record of that name |
//! | `method-not-allowed` | 405 | the route has no such method |
//! | `version-conflict` | 409 | a compare-and-set found another version |
//! | `body-too-large` | 413 | the body is over the route's limit |
//! | `unsupported-media-type` | 415 | the body is not declared `application/json` |
//! | `internal` | 500 | the server failed (an audit record that could not be saved refuses its change so) |
//! | `store-unavailable` | 503 | the shared store could not be reached, or refused the write |

use axum::http::StatusCode;
use serde_path_to_error::{Path, Segment};

/// The body is not the JSON object the route reads.
pub const INVALID_BODY: &str = "invalid-body";
/// A value in the body, the query or the path is refused.
pub const INVALID_REQUEST: &str = "invalid-request";
/// No route has this path.
pub const NO_ROUTE: &str = "no-route";

/// Every code, as the table above lists them.
pub const ALL: [&str; 11] = [
    INVALID_BODY,
    INVALID_REQUEST,
    "unauthorized",
    NO_ROUTE,
    "not-found",
    "method-not-allowed",
    "version-conflict",
    "body-too-large",
    "unsupported-media-type",
    "internal",
    "store-unavailable",
];

/// The code of a refusal that has no more precise one than its status.
pub fn of_status(status: StatusCode) -> &'static str {
    match status {
        StatusCode::BAD_REQUEST => INVALID_REQUEST,
        StatusCode::UNAUTHORIZED => "unauthorized",
        StatusCode::NOT_FOUND => "not-found",
        StatusCode::METHOD_NOT_ALLOWED => "method-not-allowed",
        StatusCode::CONFLICT => "version-conflict",
        StatusCode::PAYLOAD_TOO_LARGE => "body-too-large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported-media-type",
        StatusCode::SERVICE_UNAVAILABLE => "store-unavailable",
        _ => "internal",
    }
}

/// `path` as a JSON pointer (RFC 6901): `/deny/2`, `""` for the body
/// itself; `None` where the decoder lost track (malformed JSON).
pub(crate) fn pointer(path: &Path) -> Option<String> {
    path.iter()
        .map(|segment| match segment {
            Segment::Seq { index } => Some(format!("/{index}")),
            Segment::Map { key } => Some(format!("/{}", key.replace('~', "~0").replace('/', "~1"))),
            Segment::Enum { variant } => Some(format!("/{variant}")),
            Segment::Unknown => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_follow_rfc_6901() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Body {
            #[serde(rename = "a/b~c")]
            odd: Vec<u8>,
        }
        let mut json = serde_json::Deserializer::from_str(r#"{"a/b~c": [1, "two"]}"#);
        let error = serde_path_to_error::deserialize::<_, Body>(&mut json).unwrap_err();
        assert_eq!(pointer(error.path()).as_deref(), Some("/a~1b~0c/1"));
    }
}
