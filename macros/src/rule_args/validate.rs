//! Validate stage of the rule keys: what the parsed arguments of a group
//! attribute mean, with every problem recorded in [`Errors`] rather than
//! stopping at the first. The attribute's name is a parameter, so each
//! macro's errors name the attribute the user wrote.
//!
//! Names are checked against the vocabulary later, by the registration macro
//! that the vocabulary generates; everything else is checked here.

use proc_macro2::Span;
use syn::LitStr;

use super::parse::{Arg, Value};
use crate::errors::Errors;
use crate::names::{closest, is_kebab_case};

/// Which attribute the keys belong to.
pub(crate) struct Attribute {
    /// Its name, as errors write it: `tool_group`, `prompt_group`, ...
    pub name: &'static str,
    /// Whether it takes `require_annotations` (only tools have hints) and
    /// `allow_list(...)` (only tool groups have allow lists; set apart
    /// before these keys are validated, so only a near miss reaches here).
    pub annotations: bool,
}

/// The keys of the group's name, what a person reads of it, and its rule,
/// listed by the unknown-key error.
const KEYS: [&str; 11] = [
    "name",
    "title",
    "description",
    "always",
    "surface",
    "surfaces",
    "capability",
    "capabilities",
    "any_capability",
    "provider",
    "providers",
];

/// Not part of the rule but a requirement on the group's tools, so the
/// unknown-key error, which lists the rule keys, suggests it only for a near
/// miss.
const REQUIRE_ANNOTATIONS: &str = "require_annotations";

/// `#[tool_group]`'s allow list, suggested for a near miss like
/// `REQUIRE_ANNOTATIONS`.
const ALLOW_LIST: &str = "allow_list";

/// The meaning of one group attribute's keys. An always-on group has every
/// condition list empty.
#[derive(Default)]
pub(crate) struct GroupSpec {
    pub name: Option<LitStr>,
    /// What a person reads as the group's name (one line).
    pub title: Option<LitStr>,
    /// What the group is for.
    pub description: Option<LitStr>,
    /// Any of these surfaces.
    pub surfaces: Vec<LitStr>,
    /// All of these capabilities.
    pub capabilities: Vec<LitStr>,
    /// At least one of these capabilities.
    pub any_capabilities: Vec<LitStr>,
    /// Where `any_capability`'s value is written, for errors the
    /// registration macro reports on it.
    pub any_capabilities_span: Option<Span>,
    /// Any of these providers.
    pub providers: Vec<LitStr>,
    /// The `require_annotations` flag, when given: every tool must state its
    /// hints (see [`missing_hints`]).
    pub require_annotations: Option<syn::Ident>,
}

/// Turns the arguments into a [`GroupSpec`], recording every misuse.
pub(crate) fn attribute(args: Vec<Arg>, attr: &Attribute, errors: &mut Errors) -> GroupSpec {
    let name = attr.name;
    let mut spec = GroupSpec::default();
    let mut always: Option<syn::Ident> = None;
    let mut surface_key: Option<String> = None;
    let mut provider_key: Option<String> = None;
    // The condition keys given, in order, each once.
    let mut conditions: Vec<String> = Vec::new();
    let errors_before = errors.len();
    for Arg { key, value } in args {
        let key_name = key.to_string();
        let annotations = attr.annotations && key_name == REQUIRE_ANNOTATIONS;
        if !KEYS.contains(&key_name.as_str()) && !annotations {
            let extra = attr
                .annotations
                .then_some([REQUIRE_ANNOTATIONS, ALLOW_LIST])
                .into_iter()
                .flatten();
            let message = match closest(&key_name, KEYS.into_iter().chain(extra)) {
                Some(REQUIRE_ANNOTATIONS) => format!(
                    "unknown key `{key_name}` in #[{name}]; did you mean \
                     `{REQUIRE_ANNOTATIONS}` (no value)?"
                ),
                Some(ALLOW_LIST) => format!(
                    "unknown key `{key_name}` in #[{name}]; did you mean \
                     `{ALLOW_LIST}(default = [...])`?"
                ),
                hint => format!(
                    "unknown key `{key_name}` in #[{name}]; {}expected one of: {}",
                    hint.map(|key| format!("did you mean `{key}`? "))
                        .unwrap_or_default(),
                    KEYS.join(", ")
                ),
            };
            errors.spanned(&key, message);
            continue;
        }
        if key_name == "always" {
            match value {
                Some(value) => error_on_value(
                    &value,
                    errors,
                    &format!(
                        "`always` takes no value; write `#[{name}(always)]` for a group \
                         that every context enables"
                    ),
                ),
                None if always.is_some() => errors.spanned(&key, "`always` is given twice"),
                None => always = Some(key),
            }
            continue;
        }
        if key_name == REQUIRE_ANNOTATIONS {
            match value {
                Some(value) => error_on_value(
                    &value,
                    errors,
                    "`require_annotations` takes no value; write \
                     `#[tool_group(..., require_annotations)]` to require every tool of the \
                     group to state `read_only_hint` and `destructive_hint`, and leave it out \
                     otherwise",
                ),
                None if spec.require_annotations.is_some() => {
                    errors.spanned(&key, "`require_annotations` is given twice")
                }
                None => spec.require_annotations = Some(key),
            }
            continue;
        }
        let value = match value {
            Some(value) => value,
            None => {
                errors.spanned(
                    &key,
                    format!("`{key_name}` needs a value: {}", example(&key_name)),
                );
                continue;
            }
        };
        let described = matches!(key_name.as_str(), "name" | "title" | "description");
        if !described && !conditions.contains(&key_name) {
            conditions.push(key_name.clone());
        }
        match key_name.as_str() {
            "name" => match (single(&key, value, errors), &spec.name) {
                (Some(_), Some(_)) => errors.spanned(&key, "`name` is given twice"),
                (Some(name), None) if !is_kebab_case(&name.value()) => errors.spanned(
                    &name,
                    format!(
                        "group name `{}` is not kebab-case; write it like `parent-question`",
                        name.value()
                    ),
                ),
                (Some(name), None) => spec.name = Some(name),
                (None, _) => {}
            },
            "title" | "description" => {
                let slot = match key_name.as_str() {
                    "title" => &mut spec.title,
                    _ => &mut spec.description,
                };
                if let Some(text) = single(&key, value, errors) {
                    described_text(&key, text, slot, errors);
                }
            }
            "surface" | "surfaces" | "provider" | "providers" => {
                let (kind, first) = if key_name.starts_with("surface") {
                    ("surface", &mut surface_key)
                } else {
                    ("provider", &mut provider_key)
                };
                if let Some(first) = first {
                    errors.spanned(
                        &key,
                        format!(
                            "the {kind} condition is given twice (first by `{first}`); \
                             list every {kind} once in `{kind}s = [...]`"
                        ),
                    );
                    continue;
                }
                *first = Some(key_name.clone());
                let names = if key_name == kind {
                    single(&key, value, errors).into_iter().collect()
                } else {
                    list(&key, value, errors)
                };
                if kind == "surface" {
                    spec.surfaces = names;
                } else {
                    spec.providers = names;
                }
            }
            "capability" | "capabilities" => {
                let names = list(&key, value, errors);
                spec.capabilities.extend(names);
            }
            "any_capability" => {
                if spec.any_capabilities_span.is_some() {
                    errors.spanned(
                        &key,
                        "`any_capability` is given twice; a group has one set of alternatives: \
                         list them all once in `any_capability = [...]`",
                    );
                    continue;
                }
                spec.any_capabilities_span = Some(value_span(&value));
                spec.any_capabilities = list(&key, value, errors);
            }
            // `always` and unknown keys were handled above.
            _ => {}
        }
    }
    repeated_names(&spec, errors);
    if let Some(always) = always {
        if !conditions.is_empty() {
            let named: Vec<String> = conditions.iter().map(|key| format!("`{key}`")).collect();
            let them = if named.len() > 1 { "them" } else { "it" };
            errors.spanned(
                &always,
                format!(
                    "`always` conflicts with {}: an always-on group has no condition; \
                     drop `always` or {them}",
                    named.join(" and ")
                ),
            );
        }
    } else if conditions.is_empty() && errors.len() == errors_before {
        // A key error usually explains a missing condition; don't report both.
        errors.at(
            Span::call_site(),
            format!(
                "#[{name}] needs an enablement condition: `surface = \"...\"`, \
                 `surfaces = [...]`, `capability = \"...\"`, `any_capability = [...]`, \
                 `provider = \"...\"` or `providers = [...]`; or `always` for a group that \
                 every context enables"
            ),
        );
    }
    spec
}

/// Puts a group's `title` or `description` (`key`) in `slot`, unless it
/// was given already or is blank, or a title spans lines.
fn described_text(key: &syn::Ident, text: LitStr, slot: &mut Option<LitStr>, errors: &mut Errors) {
    let value = text.value();
    if slot.is_some() {
        errors.spanned(key, format!("`{key}` is given twice"));
    } else if value.trim().is_empty() {
        errors.spanned(
            &text,
            format!(
                "`{key}` is empty; {}, or drop the key",
                example(&key.to_string())
            ),
        );
    } else if key == "title" && value.contains('\n') {
        errors.spanned(
            &text,
            "a group's `title` is one line, shown where its name would be; \
             put the rest in `description`",
        );
    } else {
        *slot = Some(text);
    }
}

/// A name listed twice under one condition, or both required and offered as
/// an alternative.
fn repeated_names(spec: &GroupSpec, errors: &mut Errors) {
    for (kind, names) in [
        ("surface", &spec.surfaces),
        ("capability", &spec.capabilities),
        ("capability", &spec.any_capabilities),
        ("provider", &spec.providers),
    ] {
        for (index, name) in names.iter().enumerate() {
            if names[..index].iter().any(|n| n.value() == name.value()) {
                errors.spanned(name, format!("{kind} `{}` is listed twice", name.value()));
            }
        }
    }
    for alternative in &spec.any_capabilities {
        if spec
            .capabilities
            .iter()
            .any(|c| c.value() == alternative.value())
        {
            errors.spanned(
                alternative,
                format!(
                    "capability `{}` is also required, so this `any_capability` condition \
                     always holds; drop it from one of the two",
                    alternative.value()
                ),
            );
        }
    }
}

/// How a key's value is written.
fn example(key: &str) -> String {
    match key {
        "name" => "`name = \"parent-question\"`".to_owned(),
        "title" => "write what a person reads, like `title = \"Parent questions\"`".to_owned(),
        "description" => {
            "say what the group is for, like `description = \"Ask the parent task's agent\"`"
                .to_owned()
        }
        "surface" | "capability" | "provider" => format!("`{key} = \"...\"`"),
        _ => format!("`{key} = [\"...\", ...]`"),
    }
}

fn expected_value(key: &str) -> String {
    format!(
        "expected a string like `{key} = \"kanban-task\"` or a list like `{key} = [\"a\", \"b\"]`"
    )
}

fn value_span(value: &Value) -> Span {
    match value {
        Value::Str(lit) => lit.span(),
        Value::List { span, .. } => *span,
        Value::Other(expr) => syn::spanned::Spanned::span(expr),
        Value::Nested { span, .. } => *span,
    }
}

fn error_on_value(value: &Value, errors: &mut Errors, message: &str) {
    match value {
        Value::Str(lit) => errors.spanned(lit, message),
        Value::List { span, .. } => errors.at(*span, message),
        Value::Other(expr) => errors.spanned(expr, message),
        Value::Nested { span, .. } => errors.at(*span, message),
    }
}

/// A key that takes exactly one name.
fn single(key: &syn::Ident, value: Value, errors: &mut Errors) -> Option<LitStr> {
    match value {
        Value::Str(lit) => Some(lit),
        Value::List { span, .. } => {
            let hint = match key.to_string().as_str() {
                "surface" => "; use `surfaces = [...]` for several surfaces",
                "provider" => "; use `providers = [...]` for any of several providers",
                _ => "",
            };
            errors.at(span, format!("`{key}` takes a single string{hint}"));
            None
        }
        Value::Other(expr) => {
            errors.spanned(expr, expected_value(&key.to_string()));
            None
        }
        Value::Nested { span, .. } => {
            errors.at(span, expected_value(&key.to_string()));
            None
        }
    }
}

/// A key that takes one name or a non-empty list of names.
fn list(key: &syn::Ident, value: Value, errors: &mut Errors) -> Vec<LitStr> {
    match value {
        Value::Str(lit) => vec![lit],
        Value::List { span, items } if items.is_empty() => {
            errors.at(
                span,
                format!("`{key}` lists nothing; name at least one or drop the key"),
            );
            Vec::new()
        }
        Value::List { items, .. } => items,
        Value::Other(expr) => {
            errors.spanned(expr, expected_value(&key.to_string()));
            Vec::new()
        }
        Value::Nested { span, .. } => {
            errors.at(span, expected_value(&key.to_string()));
            Vec::new()
        }
    }
}
