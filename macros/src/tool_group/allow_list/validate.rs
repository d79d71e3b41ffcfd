//! Validate stage: what the `allow_list(...)` keys mean for this group,
//! every misuse recorded on the user's literal rather than stopping at the
//! first.

use proc_macro2::Span;
use syn::{Ident, LitStr};

use super::parse::Written;
use crate::errors::Errors;
use crate::names::closest;
use crate::rule_args::{Arg, Value};
use crate::whole_number::whole_number;

/// The keys inside `allow_list(...)`.
const KEYS: [&str; 3] = ["default", "universe", "max"];

/// A valid allow list of the group.
pub(crate) struct AllowList {
    /// The group's explicit name.
    pub group: LitStr,
    /// The tools a list may name, sorted.
    pub universe: Vec<String>,
    /// What a context that sets no list gets, sorted.
    pub default: Vec<String>,
    /// The most names a list may hold.
    pub max: usize,
}

/// The keys as given, each at most once.
#[derive(Default)]
struct Keys {
    default: Option<(Span, Vec<LitStr>)>,
    universe: Option<(Span, Vec<LitStr>)>,
    /// Where the number is written, and its value.
    max: Option<(Span, usize)>,
}

/// The group's allow list, if it declares a valid one; every problem is
/// recorded in `errors`.
pub(crate) fn validate(
    written: Vec<Written>,
    name: Option<&LitStr>,
    tool_names: &[&str],
    errors: &mut Errors,
) -> Option<AllowList> {
    let mut written = written.into_iter();
    let first = written.next()?;
    for again in written {
        errors.spanned(
            &again.key,
            "`allow_list` is given twice; a group has one allow list",
        );
    }
    let before = errors.len();
    if name.is_none() {
        errors.spanned(
            &first.key,
            "`allow_list` needs the group's explicit `name = \"...\"`: contexts set the \
             list by that name",
        );
    }
    let keys = keys(first.args?, errors);
    let universe = match &keys.universe {
        Some((span, names)) => {
            if names.is_empty() {
                errors.at(
                    *span,
                    "`universe` lists nothing; name at least one tool, or drop the key for \
                     all the group's tools",
                );
            }
            checked(
                names,
                "universe",
                tool_names,
                "a tool of this group",
                errors,
            )
        }
        None => {
            let mut all: Vec<String> = tool_names.iter().map(|name| (*name).to_owned()).collect();
            all.sort_unstable();
            all.dedup();
            all
        }
    };
    let Some((default_span, default_names)) = &keys.default else {
        errors.at(
            first.span,
            "`allow_list` needs `default = [\"tool\", ...]`: the tools a context that sets \
             no list gets",
        );
        return None;
    };
    let universe_refs: Vec<&str> = universe.iter().map(String::as_str).collect();
    let within = if keys.universe.is_some() {
        "in the allow list's `universe`"
    } else {
        "a tool of this group"
    };
    let default = checked(default_names, "default", &universe_refs, within, errors);
    let max = match keys.max {
        Some((at, 0)) => {
            errors.at(
                at,
                "`max = 0` would allow no tool; give at least 1, or drop the key for the \
                 universe's size",
            );
            0
        }
        Some((at, max)) if max > universe.len() => {
            errors.at(
                at,
                format!(
                    "`max = {max}` exceeds the universe's {} tools; lower it, or drop the key \
                     for the universe's size",
                    universe.len()
                ),
            );
            max
        }
        Some((_, max)) => max,
        None => universe.len(),
    };
    // Only an explicit `max` can be exceeded: the default is within the
    // universe, whose size is the implicit one.
    if keys.max.is_some() && max > 0 && default.len() > max {
        errors.at(
            *default_span,
            format!(
                "`default` names {} tools, more than `max = {max}`; drop some, or raise `max`",
                default.len()
            ),
        );
    }
    if errors.len() != before {
        return None;
    }
    Some(AllowList {
        group: name?.clone(),
        universe,
        default,
        max,
    })
}

/// The inner keys, every unknown, repeated or malformed one an error.
fn keys(args: Vec<Arg>, errors: &mut Errors) -> Keys {
    let mut keys = Keys::default();
    for Arg { key, value } in args {
        let key_name = key.to_string();
        if !KEYS.contains(&key_name.as_str()) {
            let hint = closest(&key_name, KEYS)
                .map(|key| format!("did you mean `{key}`? "))
                .unwrap_or_default();
            errors.spanned(
                &key,
                format!(
                    "unknown key `{key_name}` in `allow_list(...)`; {hint}expected one of: {}",
                    KEYS.join(", ")
                ),
            );
            continue;
        }
        let taken = match key_name.as_str() {
            "default" => keys.default.is_some(),
            "universe" => keys.universe.is_some(),
            _ => keys.max.is_some(),
        };
        if taken {
            errors.spanned(
                &key,
                format!("`{key_name}` is given twice in `allow_list(...)`"),
            );
            continue;
        }
        match key_name.as_str() {
            "max" => keys.max = whole_number(&key, value, errors),
            "default" => keys.default = names(&key, value, errors),
            _ => keys.universe = names(&key, value, errors),
        }
    }
    keys
}

/// A list of tool names: `key = ["a", "b"]`.
fn names(key: &Ident, value: Option<Value>, errors: &mut Errors) -> Option<(Span, Vec<LitStr>)> {
    let message = format!("`{key}` takes a list of tool names: `{key} = [\"tool\", ...]`");
    match value {
        Some(Value::List { span, items }) => return Some((span, items)),
        Some(Value::Str(lit)) => errors.spanned(&lit, message),
        Some(Value::Other(expr)) => errors.spanned(&expr, message),
        Some(Value::Nested { span, .. }) => errors.at(span, message),
        None => errors.spanned(key, message),
    }
    None
}

/// The names of `given` that are among `known`, sorted and deduplicated;
/// each other one, and each repeat, an error on its literal.
fn checked(
    given: &[LitStr],
    key: &str,
    known: &[&str],
    what: &str,
    errors: &mut Errors,
) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(given.len());
    for (index, literal) in given.iter().enumerate() {
        let name = literal.value();
        if given[..index].iter().any(|earlier| earlier.value() == name) {
            errors.spanned(literal, format!("`{name}` is listed twice in `{key}`"));
            continue;
        }
        if !known.contains(&name.as_str()) {
            let hint = match closest(&name, known.iter().copied()) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("expected one of: {}", known.join(", ")),
            };
            errors.spanned(literal, format!("`{name}` is not {what}; {hint}"));
            continue;
        }
        kept.push(name);
    }
    kept.sort_unstable();
    kept
}
