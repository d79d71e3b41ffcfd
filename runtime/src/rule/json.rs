//! The JSON form of a rule, decoded strictly: how a backend writes the rule
//! of a runtime tool.
//!
//! `{"always": true}`, or an object with one or more of `surfaces`,
//! `capabilities`, `any_capabilities` and `providers`, each a non-empty list
//! of wire names. An unknown field or name, a repeated field, an empty list
//! or an empty object is an error naming it: a rule that silently widened to
//! "always" would expose tools nobody meant to expose.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Error as _, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Rule, RuleMasks};
use crate::vocabulary::TermBits;
use crate::{Term, Vocabulary};

const FIELDS: &[&str] = &[
    "always",
    "surfaces",
    "capabilities",
    "any_capabilities",
    "providers",
];

impl<S: Vocabulary> Rule<S> {
    /// Decodes a rule from its JSON form (see [`Rule`]'s `Deserialize`).
    ///
    /// ```
    /// # mod server { pub struct Desk; }
    /// # use server::Desk;
    /// # mcp_profiles::vocabulary! {
    /// #     server Desk;
    /// #     #[surfaces] pub enum Surface { Ticket, Chat }
    /// #     #[capabilities] pub enum Capability { Refund }
    /// #     #[providers] pub enum Provider { Jira }
    /// # }
    /// use mcp_profiles::Rule;
    ///
    /// let rule = Rule::<Desk>::from_json(r#"{"surfaces": ["ticket"], "providers": ["jira"]}"#)?;
    /// assert_eq!(rule.to_string(), "surface(ticket) & provider(jira)");
    /// assert_eq!(Rule::<Desk>::from_json(r#"{"always": true}"#)?, Rule::always());
    /// let err = Rule::<Desk>::from_json(r#"{"surfaces": ["tiket"]}"#).unwrap_err();
    /// assert!(err.to_string().starts_with("unknown surface `tiket`"), "{err}");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The JSON form [`from_json`](Self::from_json) reads.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a rule always serialises")
    }
}

/// Writes `{"always": true}` or the non-empty conditions.
impl<S: Vocabulary> Serialize for Rule<S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.is_always() {
            map.serialize_entry("always", &true)?;
            return map.end();
        }
        let surfaces = self.surfaces().map(Term::wire_name).collect::<Vec<_>>();
        let capabilities = self.capabilities().map(Term::wire_name).collect();
        let any = self.any_capabilities().map(Term::wire_name).collect();
        let providers = self.providers().map(Term::wire_name).collect();
        for (field, terms) in [
            ("surfaces", surfaces),
            ("capabilities", capabilities),
            ("any_capabilities", any),
            ("providers", providers),
        ] {
            if !terms.is_empty() {
                map.serialize_entry(field, &terms)?;
            }
        }
        map.end()
    }
}

/// Reads the strict JSON form described in the module docs: `{"always":
/// true}` alone, or at least one non-empty condition list.
impl<'de, S: Vocabulary> Deserialize<'de> for Rule<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RuleVisitor(PhantomData))
    }
}

struct RuleVisitor<S>(PhantomData<fn() -> S>);

/// A non-empty list of terms, as one mask.
fn terms<'de, T: Term, A: MapAccess<'de>>(map: &mut A, field: &str) -> Result<u64, A::Error> {
    let list: Vec<T> = map.next_value()?;
    if list.is_empty() {
        return Err(A::Error::custom(format_args!(
            "`{field}` is empty; list at least one {}, or leave the field out",
            T::KIND
        )));
    }
    Ok(T::mask_of(list))
}

impl<'de, S: Vocabulary> Visitor<'de> for RuleVisitor<S> {
    type Value = Rule<S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a rule object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut always = None;
        let mut masks = RuleMasks::default();
        let mut seen: Vec<&'static str> = Vec::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let Some(field) = FIELDS.iter().copied().find(|f| *f == key) else {
                return Err(A::Error::unknown_field(&key, FIELDS));
            };
            if seen.contains(&field) {
                return Err(A::Error::duplicate_field(field));
            }
            seen.push(field);
            match field {
                "always" => always = Some(map.next_value::<bool>()?),
                "surfaces" => masks.surfaces = terms::<S::Surface, A>(&mut map, field)?,
                "capabilities" => {
                    masks.capabilities = terms::<S::Capability, A>(&mut map, field)?;
                }
                "any_capabilities" => {
                    masks.any_capabilities = terms::<S::Capability, A>(&mut map, field)?;
                }
                _ => masks.providers = terms::<S::Provider, A>(&mut map, field)?,
            }
        }
        match always {
            Some(true) if seen.len() == 1 => Ok(Rule::always()),
            Some(true) => Err(A::Error::custom(
                "`always: true` cannot be combined with conditions; drop one or the other",
            )),
            Some(false) => Err(A::Error::custom(
                "`always` may only be `true`; to restrict a rule, list its conditions instead",
            )),
            None if seen.is_empty() => Err(A::Error::custom(
                "a rule needs `{\"always\": true}` or at least one of `surfaces`, \
                 `capabilities`, `any_capabilities`, `providers`",
            )),
            None => Ok(Rule::from_masks(masks)),
        }
    }
}
