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

/// `pr_number`: 1 to [`MAX_HOST_NUMBER`].
pub(crate) fn pr_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "pr_number", 1, MAX_HOST_NUMBER)
}

/// `mr_iid`: 1 to [`MAX_HOST_NUMBER`].
pub(crate) fn mr_iid<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, "mr_iid", 1, MAX_HOST_NUMBER)
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
