//! `GET /api/v1/agents/{principal}/exposure?at=MS` (or `?revision=N`):
//! what a principal could reach at a past moment, rebuilt from the audit
//! trail ([`crate::exposure::past`]): the context and version in force then,
//! the kill switch then, the compiled tools they exposed, and the numbers
//! of the records that say so.
//!
//! Exactly one of `at` (milliseconds since the Unix epoch, as the records'
//! `at`) and `revision` (just after the change that made that version of
//! the agent). An unknown or repeated parameter, both or neither, or a
//! number that is not a whole number is 400 naming it; a revision no
//! record made, or a trail trimmed past what it would need, is 404; a trail
//! that cannot be read, 503.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use mcp_profiles::Vocabulary;

use super::agents::Shared;
use super::answers::Exposed;
use super::openapi::Operation;
use super::refusal::clipped;
use super::{Refusal, audit, failed, path_principal};
use crate::exposure::past::{Moment, PastError, exposure_at};

/// The parameters the route takes.
const PARAMETERS: [&str; 2] = ["at", "revision"];

/// `operation` with its parameters described.
pub(super) fn described(operation: Operation) -> Operation {
    let number = serde_json::json!({"type": "string", "pattern": "^[0-9]{1,19}$"});
    operation
        .query(
            "at",
            "A time, in milliseconds since the Unix epoch (as audit records' `at`); \
             give this or `revision`.",
            number.clone(),
        )
        .query(
            "revision",
            "Just after the change that made this version of the agent; give this or `at`.",
            number,
        )
}

/// The moment `?{raw}` names, strictly.
fn moment(raw: Option<&str>) -> Result<Moment, Refusal> {
    let bad = |message: String| Refusal::new(StatusCode::BAD_REQUEST, message);
    let mut moment = None;
    for (name, value) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        if !PARAMETERS.contains(&name.as_ref()) {
            return Err(bad(format!(
                "unknown query parameter `{}`; expected `at` or `revision`",
                clipped(&name)
            )));
        }
        if moment.is_some() {
            return Err(bad("give one of `at` and `revision`, once".to_owned()));
        }
        let number = audit::number(&name, &value, u64::MAX)?;
        moment = Some(match name.as_ref() {
            "at" => Moment::At(number),
            _ => Moment::Revision(number),
        });
    }
    moment.ok_or_else(|| bad("give `at` (milliseconds since the epoch) or `revision`".to_owned()))
}

pub(super) async fn get_exposure<S: Vocabulary, F>(
    State(shared): State<Shared<S, F>>,
    path: Result<Path<String>, PathRejection>,
    uri: Uri,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let moment = moment(uri.query())?;
    let past = exposure_at(shared.store.as_ref(), &principal, moment)
        .await
        .map_err(|error| match error {
            PastError::Store(error) => failed(error),
            error @ (PastError::NoSuchRevision { .. } | PastError::NotInTrail(_)) => {
                Refusal::new(StatusCode::NOT_FOUND, error.to_string())
            }
            error => Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()),
        })?;
    Ok(Json(Exposed::from(past)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(raw: &str) -> Result<Moment, String> {
        moment(Some(raw)).map_err(|refusal| refusal.message().to_owned())
    }

    #[test]
    fn one_moment_is_read_and_anything_else_is_named() {
        assert_eq!(decoded("at=1767225600123"), Ok(Moment::At(1767225600123)));
        assert_eq!(decoded("revision=7"), Ok(Moment::Revision(7)));
        for (raw, says) in [
            ("", "give `at`"),
            ("at=1&revision=2", "give one of `at` and `revision`, once"),
            ("at=1&at=2", "once"),
            ("when=1", "unknown query parameter `when`"),
            ("at=-1", "`at` must be a whole number"),
            ("revision=", "`revision` must be a whole number"),
        ] {
            let message = decoded(raw).unwrap_err();
            assert!(message.contains(says), "{raw}: {message}");
        }
    }
}
