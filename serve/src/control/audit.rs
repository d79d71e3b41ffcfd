//! `GET /api/v1/audit`: the audit trail of every change made through the
//! control API, a page at a time.
//!
//! | parameter | value | default |
//! |---|---|---|
//! | `principal` | only this principal's records | every record |
//! | `since` | only records after this `seq` (page forward) | the first |
//! | `before` | only records before this `seq` (page back) | the last |
//! | `order` | `asc` (oldest first) or `desc` (newest first) | `asc` |
//! | `limit` | 1 to 1000 | 100 |
//!
//! The answer is `{"records": [RECORD, ...], "next": SEQ or null}`, each
//! record in the JSON form of [`crate::audit`]; `next` is what
//! to pass as `since` (`asc`) or `before` (`desc`) for the next page, and
//! `null` once a page comes back short. Decoding is strict: an unknown or
//! repeated parameter, an empty value, a number that is not a whole number
//! (`+1`, `1.0`, `-1`) or out of range is 400 naming it.

use crate::audit::{AuditQuery, AuditRecord};
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::Refusal;
use super::answers::AuditPage;
use super::openapi::Operation;
use super::refusal::clipped;

/// The parameters `GET /api/v1/audit` takes.
const PARAMETERS: [&str; 5] = ["principal", "since", "before", "order", "limit"];

/// `operation` with the parameters above described.
pub fn described(operation: Operation) -> Operation {
    // What the decoder takes: whole numbers written plainly, within range.
    let seq = serde_json::json!({"type": "string", "pattern": "^[0-9]{1,19}$"});
    operation
        .query(
            "principal",
            "Only this principal's records.",
            serde_json::json!({"type": "string", "pattern": "^[A-Za-z0-9._@-]{1,128}$"}),
        )
        .query(
            "since",
            "Only records after this `seq` (page forward).",
            seq.clone(),
        )
        .query("before", "Only records before this `seq` (page back).", seq)
        .query(
            "order",
            "`asc` (oldest first, the default) or `desc` (newest first).",
            serde_json::json!({"enum": ["asc", "desc"]}),
        )
        .query(
            "limit",
            "1 to 1000 records (default 100).",
            serde_json::json!({"type": "string", "pattern": "^(1000|[1-9][0-9]{0,2})$"}),
        )
}

/// The query of `GET /api/v1/audit?{raw}`, strictly; `principal` checks a
/// principal's name as the API names principals.
pub fn query(
    raw: Option<&str>,
    principal: impl Fn(&str) -> Result<(), Refusal>,
) -> Result<AuditQuery, Refusal> {
    let bad = |message: String| Refusal::new(StatusCode::BAD_REQUEST, message);
    let mut query = AuditQuery::new();
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        if !PARAMETERS.contains(&name.as_ref()) {
            return Err(bad(format!(
                "unknown query parameter `{}`; expected one of {}",
                clipped(&name),
                PARAMETERS.join(", ")
            )));
        }
        if seen.iter().any(|known| *known == name) {
            return Err(bad(format!("query parameter `{name}` given twice")));
        }
        if value.is_empty() {
            return Err(bad(format!("query parameter `{name}` is empty")));
        }
        query = match name.as_ref() {
            "principal" => {
                principal(&value)?;
                query.of(&value)
            }
            "since" => query.since(number(&name, &value, u64::MAX)?),
            "before" => query.before(number(&name, &value, u64::MAX)?),
            "limit" => {
                let limit = number(&name, &value, AuditQuery::MAX_LIMIT as u64)?;
                if limit == 0 {
                    return Err(bad(format!(
                        "`limit` must be 1 to {}, not 0",
                        AuditQuery::MAX_LIMIT
                    )));
                }
                query.with_limit(limit as usize)
            }
            _ => match value.as_ref() {
                "asc" => query,
                "desc" => query.newest_first(),
                other => {
                    return Err(bad(format!(
                        "`order` must be `asc` or `desc`, not `{}`",
                        clipped(other)
                    )));
                }
            },
        };
        seen.push(name.into_owned());
    }
    Ok(query)
}

/// `value` as a whole number from 0 to `max`, or 400 naming it.
pub(super) fn number(name: &str, value: &str, max: u64) -> Result<u64, Refusal> {
    value
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| value.parse::<u64>().ok())
        .flatten()
        .filter(|number| *number <= max)
        .ok_or_else(|| {
            Refusal::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "`{name}` must be a whole number from {} to {max}, not `{}`",
                    u64::from(name == "limit"),
                    clipped(value)
                ),
            )
        })
}

/// The answer: the page and where the next one starts.
pub fn answer(query: &AuditQuery, records: Vec<AuditRecord>) -> Response {
    let next = (records.len() == query.limit())
        .then(|| records.last().map(|record| record.seq))
        .flatten();
    Json(AuditPage { records, next }).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(raw: &str) -> Result<AuditQuery, String> {
        query(Some(raw), |_| Ok(())).map_err(|refusal| refusal.message().to_owned())
    }

    #[test]
    fn every_parameter_decodes() {
        let query = decoded("principal=alice&since=4&before=90&order=desc&limit=7").unwrap();
        assert_eq!(query.principal(), Some("alice"));
        assert_eq!((query.since_seq(), query.before_seq()), (Some(4), Some(90)));
        assert_eq!(query.limit(), 7);
        assert_eq!(query.order(), crate::audit::AuditOrder::NewestFirst);
        assert_eq!(decoded("").unwrap(), AuditQuery::new());
    }

    #[test]
    fn bad_values_are_named() {
        for (raw, says) in [
            ("token=x", "unknown query parameter `token`"),
            ("since=1&since=2", "`since` given twice"),
            ("since=", "`since` is empty"),
            ("since=+1", "`since` must be a whole number from 0 to"),
            ("before=-1", "not `-1`"),
            (
                "limit=1.0",
                "`limit` must be a whole number from 1 to 1000, not `1.0`",
            ),
            ("limit=1001", "not `1001`"),
            ("limit=0", "`limit` must be 1 to 1000, not 0"),
            (
                "order=newest",
                "`order` must be `asc` or `desc`, not `newest`",
            ),
            ("since=99999999999999999999", "not `99999999999999999999`"),
        ] {
            let message = decoded(raw).unwrap_err();
            assert!(message.contains(says), "{raw}: {message}");
        }
    }
}
