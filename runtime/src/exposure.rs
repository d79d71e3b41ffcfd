//! What a list answer was decided under: the revision of the profile in
//! force and a digest of exactly what was listed ([`Exposure`]), carried in
//! the answer's `_meta` under [`EXPOSURE_META_KEY`] when the controller
//! stamps its lists ([`ProfileController::set_exposure_stamp`]).
//!
//! The digest is SHA-256 over the listed items' canonical JSON (object keys
//! sorted, no whitespace), so two processes or instances that list the same
//! set give the same digest whatever order their JSON maps keep. It is
//! computed once per served state, on its first use, never per request.
//!
//! [`ProfileController::set_exposure_stamp`]: crate::ProfileController::set_exposure_stamp

use std::fmt;
use std::sync::{Arc, OnceLock};

use rmcp::model::MetaObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The `_meta` key of a stamped `tools/list`, `prompts/list`,
/// `resources/list` or `resources/templates/list` answer: `{"revision": 7,
/// "digest": "sha256:…"}`.
pub const EXPOSURE_META_KEY: &str = "mcp-profiles/exposure";

/// The revision of the profile a list was answered under, and the digest
/// of what it listed.
///
/// `revision` numbers the profile (context and runtime catalog) in force:
/// the version a store gave the principal's agent, or, on a controller of
/// its own, one more at each replacement or catalog change since it was
/// made (1 at first). The operator's kill switch and a name presentation
/// leave it as it is; the digest tells those apart.
///
/// ```
/// use mcp_profiles::{Exposure, ListDigest};
///
/// let listed = serde_json::json!([{"name": "close_ticket", "inputSchema": {"type": "object"}}]);
/// let exposure = Exposure::new(3, ListDigest::of(listed.as_array().unwrap()));
/// let meta = exposure.to_meta();
/// assert_eq!(Exposure::from_meta(&meta), Some(exposure));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Exposure {
    /// The revision of the profile in force.
    pub revision: u64,
    /// What was listed.
    pub digest: ListDigest,
}

impl Exposure {
    /// The exposure of a list digested as `digest` under `revision`.
    pub fn new(revision: u64, digest: ListDigest) -> Self {
        Exposure { revision, digest }
    }

    /// A list answer's `_meta` saying this exposure.
    pub fn to_meta(&self) -> MetaObject {
        let mut meta = MetaObject::default();
        meta.0.insert(
            EXPOSURE_META_KEY.to_owned(),
            serde_json::to_value(self).expect("an exposure is plain JSON"),
        );
        meta
    }

    /// The exposure a list answer's `_meta` says, if it says one.
    pub fn from_meta(meta: &MetaObject) -> Option<Self> {
        serde_json::from_value(meta.0.get(EXPOSURE_META_KEY)?.clone()).ok()
    }
}

/// SHA-256 of a list's canonical JSON, written `sha256:` and 64 lowercase
/// hex digits.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ListDigest(Arc<str>);

impl ListDigest {
    /// The digest of `items` as listed: each serialised, in their order.
    pub fn of<T: Serialize>(items: &[T]) -> Self {
        let mut canonical = String::new();
        canonical.push('[');
        for (index, item) in items.iter().enumerate() {
            if index > 0 {
                canonical.push(',');
            }
            let value = serde_json::to_value(item).expect("a listed item is plain JSON");
            write_canonical(&value, &mut canonical);
        }
        canonical.push(']');
        let hash = Sha256::digest(canonical.as_bytes());
        let mut text = String::with_capacity(7 + 64);
        text.push_str("sha256:");
        for byte in hash.iter() {
            text.push(char::from_digit(u32::from(byte >> 4), 16).expect("a nibble"));
            text.push(char::from_digit(u32::from(byte & 0xf), 16).expect("a nibble"));
        }
        ListDigest(text.into())
    }

    /// `sha256:` and the hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ListDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ListDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ListDigest({})", self.0)
    }
}

/// `value` as compact JSON with every object's keys sorted: the same text
/// whatever order a map kept (serde_json's `preserve_order` or not).
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (index, (key, value)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The exposure of each of one served state's lists and the `_meta` that
/// says it, each made on first use.
#[derive(Default)]
pub(crate) struct Digests {
    tools: OnceLock<(Exposure, MetaObject)>,
    prompts: OnceLock<(Exposure, MetaObject)>,
    resources: OnceLock<(Exposure, MetaObject)>,
    templates: OnceLock<(Exposure, MetaObject)>,
}

/// Which list of a served state.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Listed {
    Tools,
    Prompts,
    Resources,
    Templates,
}

impl Digests {
    /// The exposure of the `which` list under `revision` and its `_meta`,
    /// `list` digested on first use.
    pub fn get<T: Serialize>(
        &self,
        which: Listed,
        revision: u64,
        list: &[T],
    ) -> &(Exposure, MetaObject) {
        let cell = match which {
            Listed::Tools => &self.tools,
            Listed::Prompts => &self.prompts,
            Listed::Resources => &self.resources,
            Listed::Templates => &self.templates,
        };
        cell.get_or_init(|| {
            let exposure = Exposure::new(revision, ListDigest::of(list));
            let meta = exposure.to_meta();
            (exposure, meta)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_digest_ignores_key_order_and_keeps_list_order() {
        let a = json!([{"name": "a", "inputSchema": {"type": "object", "properties": {}}}]);
        let b = json!([{"inputSchema": {"properties": {}, "type": "object"}, "name": "a"}]);
        let digest = |v: &Value| ListDigest::of(v.as_array().unwrap());
        assert_eq!(digest(&a), digest(&b));
        let two = json!([{"name": "a"}, {"name": "b"}]);
        let swapped = json!([{"name": "b"}, {"name": "a"}]);
        assert_ne!(digest(&two), digest(&swapped));
    }

    #[test]
    fn a_digest_is_the_sha256_of_the_canonical_text() {
        // Pinned: any process, any build, lists `[{"name":"a"}]` so.
        let digest = ListDigest::of(json!([{"name": "a"}]).as_array().unwrap());
        assert_eq!(
            digest.as_str(),
            "sha256:d434bc384a9f8eba930c115a06b09769bc5577707f70656ff5f7f47445a8fbbf"
        );
    }

    #[test]
    fn an_exposure_round_trips_through_meta() {
        let exposure = Exposure::new(7, ListDigest::of::<Value>(&[]));
        let meta = exposure.to_meta();
        assert_eq!(meta.0[EXPOSURE_META_KEY]["revision"], json!(7), "{meta:?}");
        assert_eq!(Exposure::from_meta(&meta), Some(exposure));
        assert_eq!(Exposure::from_meta(&MetaObject::default()), None);
    }
}
