//! Whole-number arguments. MCP clients send JSON numbers; reading them as
//! `f64` rounds integers above 2^53 and saturates on the cast to an integer
//! type (2^64 became `u64::MAX`). These readers keep the number exact and in
//! range, and refuse anything else (a fraction, 2^64, 1e300, a string) as
//! invalid params naming the field. Each field's schema states the range.

use serde::de::{Deserialize, Deserializer, Error};
use serde_json::Value;

/// The largest code-host number (PR number, MR IID): Kandev stores them as
/// signed 64-bit integers.
pub(crate) const MAX_HOST_NUMBER: u64 = i64::MAX as u64;

/// The largest position or count the board stores (as `u32`).
pub(crate) const MAX_COUNT: u64 = u32::MAX as u64;

/// Integers above this cannot be sent exactly as a float.
const MAX_EXACT_FLOAT: f64 = 9_007_199_254_740_992.0;

/// An optional whole number in `min..=max`, or an error naming `field`.
fn whole<'de, D: Deserializer<'de>>(
    deserializer: D,
    field: &str,
    min: u64,
    max: u64,
) -> Result<Option<u64>, D::Error> {
    let Some(value) = Option::<Value>::deserialize(deserializer)? else {
        return Ok(None);
    };
    let exact = match &value {
        Value::Number(number) => number.as_u64().or_else(|| {
            // `3.0` is the integer 3 in JSON Schema; a float above 2^53 may
            // already have been rounded, so it is not exact.
            number
                .as_f64()
                .filter(|f| f.fract() == 0.0 && (0.0..=MAX_EXACT_FLOAT).contains(f))
                .map(|f| f as u64)
        }),
        _ => None,
    };
    match exact {
        Some(number) if (min..=max).contains(&number) => Ok(Some(number)),
        _ => {
            let mut shown = value.to_string();
            if shown.len() > 40 {
                let mut end = 40;
                while !shown.is_char_boundary(end) {
                    end -= 1;
                }
                shown.truncate(end);
                shown.push('…');
            }
            Err(D::Error::custom(format!(
                "invalid `{field}`: expected a whole number from {min} to {max}, got {shown}"
            )))
        }
    }
}

/// `value`, which a required field must have.
fn present<E: Error>(value: Option<u64>, field: &str) -> Result<u64, E> {
    value.ok_or_else(|| {
        E::custom(format!(
            "invalid `{field}`: expected a whole number, got null"
        ))
    })
}

/// `number` (a PR number or MR IID), required: 1 to [`MAX_HOST_NUMBER`].
pub(crate) fn host_number<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    present(whole(d, "number", 1, MAX_HOST_NUMBER)?, "number")
}

/// `number` (a PR number or MR IID), optional: 1 to [`MAX_HOST_NUMBER`].
pub(crate) fn maybe_host_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "number", 1, MAX_HOST_NUMBER)
}

/// `old_number` (the replaced request's number): 1 to [`MAX_HOST_NUMBER`].
pub(crate) fn old_host_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "old_number", 1, MAX_HOST_NUMBER)
}

/// `position`: 0 to [`MAX_COUNT`].
pub(crate) fn position<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "position", 0, MAX_COUNT)
}

/// `limit` (a page size): 1 to [`MAX_COUNT`].
pub(crate) fn limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "limit", 1, MAX_COUNT)
}

/// The largest page a coordinator listing returns.
pub(crate) const MAX_PAGE: u64 = 50;

/// `limit` of a coordinator listing: 1 to [`MAX_PAGE`].
pub(crate) fn page_limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "limit", 1, MAX_PAGE)
}

/// `wip_limit`: 0 to [`MAX_COUNT`].
pub(crate) fn wip_limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "wip_limit", 0, MAX_COUNT)
}

/// The most characters one `get_task_plan_kandev` page holds.
pub(crate) const MAX_PLAN_PAGE: u64 = 8192;

/// The furthest a plan read may start: a plan is at most this long.
pub(crate) const MAX_PLAN_OFFSET: u64 = crate::store::MAX_TEXT_CHARS as u64;

/// The most revisions one `list_task_plan_revisions_kandev` page holds.
pub(crate) const MAX_REVISION_PAGE: u64 = 100;

/// `offset` (a plan read's first character): 0 to [`MAX_PLAN_OFFSET`].
pub(crate) fn plan_offset<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "offset", 0, MAX_PLAN_OFFSET)
}

/// `limit` (a plan read's length in characters): 1 to [`MAX_PLAN_PAGE`].
pub(crate) fn plan_page<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "limit", 1, MAX_PLAN_PAGE)
}

/// `before_revision_number` (an exclusive cursor): 1 to [`MAX_COUNT`].
pub(crate) fn before_revision<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "before_revision_number", 1, MAX_COUNT)
}

/// `limit` (revisions per page): 1 to [`MAX_REVISION_PAGE`].
pub(crate) fn revision_page<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "limit", 1, MAX_REVISION_PAGE)
}

/// `expected_revision` (a canvas state revision): 0 to [`MAX_COUNT`].
pub(crate) fn state_revision<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "expected_revision", 0, MAX_COUNT)
}

/// The largest page the settings tools answer with.
pub(crate) const MAX_SETTINGS_PAGE: u64 = 50;

/// `limit` of a settings page: 1 to [`MAX_SETTINGS_PAGE`].
pub(crate) fn settings_limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "limit", 1, MAX_SETTINGS_PAGE)
}

/// The most runs of one automation at a time.
pub(crate) const MAX_CONCURRENT_RUNS: u64 = 100;

/// `max_concurrent_runs`: 1 to [`MAX_CONCURRENT_RUNS`].
pub(crate) fn max_concurrent_runs<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<u64>, D::Error> {
    whole(d, "max_concurrent_runs", 1, MAX_CONCURRENT_RUNS)
}
