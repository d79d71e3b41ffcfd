//! The JSON forms: a policy is `{"read_only":true,"no_destructive":true,
//! "deny":["delete_task"]}` (each field optional; written with only the
//! fields that restrict), a deny list is an array of names, allow lists
//! are an object of arrays by group, `{"dispatch":["list_jobs"]}`.
//!
//! Decoding is strict, like the context's: an unknown or repeated field, a
//! name the registry does not declare, or a name given twice is an error
//! naming it. A policy that silently dropped a name would leave a tool
//! the backend meant to remove.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Error as _, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{AllowError, AllowLists, DenyList, Policy};
use crate::Vocabulary;

const FIELDS: &[&str] = &["read_only", "no_destructive", "deny"];

impl<S: Vocabulary> Serialize for Policy<S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.read_only {
            map.serialize_entry("read_only", &true)?;
        }
        if self.no_destructive {
            map.serialize_entry("no_destructive", &true)?;
        }
        if !self.deny.is_empty() {
            map.serialize_entry("deny", &self.deny)?;
        }
        map.end()
    }
}

impl<'de, S: Vocabulary> Deserialize<'de> for Policy<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(PolicyVisitor(PhantomData))
    }
}

struct PolicyVisitor<S>(PhantomData<fn() -> S>);

impl<'de, S: Vocabulary> Visitor<'de> for PolicyVisitor<S> {
    type Value = Policy<S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a policy object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut read_only: Option<bool> = None;
        let mut no_destructive: Option<bool> = None;
        let mut deny: Option<DenyList<S>> = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "read_only" if read_only.is_none() => read_only = Some(map.next_value()?),
                "no_destructive" if no_destructive.is_none() => {
                    no_destructive = Some(map.next_value()?);
                }
                "deny" if deny.is_none() => {
                    let names: Vec<Cow<'de, str>> = map.next_value()?;
                    let list = S::registry()
                        .deny_list(&names)
                        .map_err(|err| A::Error::custom(format_args!("`deny`: {err}")))?;
                    deny = Some(list);
                }
                "read_only" => return Err(A::Error::duplicate_field("read_only")),
                "no_destructive" => return Err(A::Error::duplicate_field("no_destructive")),
                "deny" => return Err(A::Error::duplicate_field("deny")),
                other => return Err(A::Error::unknown_field(other, FIELDS)),
            }
        }
        Ok(Policy {
            read_only: read_only.unwrap_or_default(),
            no_destructive: no_destructive.unwrap_or_default(),
            deny: deny.unwrap_or_default(),
        })
    }
}

impl<S: Vocabulary> Serialize for DenyList<S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        self.names().serialize(serializer)
    }
}

/// An array of names, checked against `S`'s registry as
/// [`DenyList::new`] does.
impl<'de, S: Vocabulary> Deserialize<'de> for DenyList<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names: Vec<Cow<'de, str>> = Vec::deserialize(deserializer)?;
        S::registry().deny_list(&names).map_err(D::Error::custom)
    }
}

impl<S: Vocabulary> Serialize for AllowLists<S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (group, names) in self.iter() {
            map.serialize_entry(group, names)?;
        }
        map.end()
    }
}

/// An object of name arrays by group, each checked against `S`'s registry
/// as [`ProfileContext::with_allowed`](crate::ProfileContext::with_allowed)
/// does; a group given twice is an error too.
impl<'de, S: Vocabulary> Deserialize<'de> for AllowLists<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(AllowVisitor(PhantomData))
    }
}

struct AllowVisitor<S>(PhantomData<fn() -> S>);

impl<'de, S: Vocabulary> Visitor<'de> for AllowVisitor<S> {
    type Value = AllowLists<S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of allow lists by tool group")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let registry = S::registry();
        let mut lists = AllowLists::empty();
        let mut seen: Vec<Cow<'de, str>> = Vec::new();
        while let Some(group) = map.next_key::<Cow<'de, str>>()? {
            let names: Vec<Cow<'de, str>> = map.next_value()?;
            let checked = if seen.contains(&group) {
                Err(AllowError::DuplicateGroup {
                    group: group.clone().into_owned(),
                })
            } else {
                registry.allow(lists, &group, &names)
            };
            lists = checked.map_err(|err| A::Error::custom(format_args!("`allow`: {err}")))?;
            seen.push(group);
        }
        Ok(lists)
    }
}
