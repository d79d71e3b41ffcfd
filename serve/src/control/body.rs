//! Request bodies, read strictly: declared JSON, within a limit, a JSON
//! object that is exactly what the route reads, or a refusal saying where
//! it went wrong.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode, header};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, Deserializer, MapAccess, Visitor};

use super::{Refusal, codes};

/// The largest body a control route reads unless it says otherwise.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Decodes a JSON body of at most [`MAX_BODY_BYTES`] strictly, or says why
/// not: 415 for a body not declared `application/json`, 413 past the
/// limit, 400 (`invalid-body`, with the JSON pointer of where it went
/// wrong) for one that is not the JSON object `T` reads.
///
/// For an extension route's handler, beside its `HeaderMap` and
/// `Result<Bytes, BytesRejection>` extractors.
pub fn decode<T: DeserializeOwned>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<T, Refusal> {
    let bytes = json_body(headers, body, MAX_BODY_BYTES)?;
    decode_json(&bytes)
}

/// [`decode`] of a body already read: bytes that are not the JSON object
/// `T` reads are refused with the JSON pointer of where they went wrong.
pub fn decode_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Refusal> {
    let refused = |message: String| {
        Refusal::new(StatusCode::BAD_REQUEST, message).with_code(codes::INVALID_BODY)
    };
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let Object(value) = serde_path_to_error::deserialize(&mut json).map_err(|error| {
        let refusal = refused(error.inner().to_string());
        match codes::pointer(error.path()) {
            Some(pointer) => refusal.at(pointer),
            None => refusal,
        }
    })?;
    json.end().map_err(|error| refused(error.to_string()))?;
    Ok(value)
}

/// A `T` read only from a JSON object: a derived struct would also take
/// the array of its fields in order (`["token", "alice"]` for a grant),
/// which no body is documented as and no reader of the body expects.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Fields<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Object)
            }
        }
        deserializer.deserialize_map(Fields(std::marker::PhantomData))
    }
}

/// The bytes of a body declared as JSON and read within `limit` (the
/// route's `DefaultBodyLimit`, which this names in its 413).
pub fn json_body(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    limit: usize,
) -> Result<Bytes, Refusal> {
    require_json(headers)?;
    body.map_err(|rejection| {
        let status = rejection.status();
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("body larger than {limit} bytes")
        } else {
            rejection.body_text()
        };
        Refusal::new(status, message)
    })
}

/// Refuses a body not declared as JSON, so a form or text post from a
/// browser or a confused client never reaches the decoder.
fn require_json(headers: &HeaderMap) -> Result<(), Refusal> {
    let declared = headers
        .get(header::CONTENT_TYPE)
        .map(|value| value.to_str().unwrap_or("(not text)"));
    let is_json = declared.is_some_and(|value| {
        let essence = value.split(';').next().unwrap_or_default().trim();
        essence.eq_ignore_ascii_case("application/json")
    });
    if is_json {
        return Ok(());
    }
    let got = match declared {
        Some(value) => {
            let value: String = value.chars().take(64).collect();
            format!("`{value}`")
        }
        None => "none".to_owned(),
    };
    Err(Refusal::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        format!("expected `Content-Type: application/json`, got {got}"),
    ))
}
