//! Validate stage: what the parsed attribute and impl block mean, with every
//! problem recorded in [`Errors`] rather than stopping at the first.
//!
//! Names are checked against the vocabulary later, by the registration macro
//! that the vocabulary generates; everything else is checked here.

use proc_macro2::Span;
use syn::{ItemImpl, LitStr, Type, TypePath};

use super::parse::{Arg, ToolFn, Value};
use crate::errors::Errors;
use crate::names::{closest, is_kebab_case};

const KEYS: [&str; 6] = [
    "name",
    "surface",
    "surfaces",
    "capability",
    "capabilities",
    "provider",
];

/// The meaning of one `#[tool_group(...)]`.
#[derive(Default)]
pub(crate) struct GroupSpec {
    pub name: Option<LitStr>,
    pub surfaces: Vec<LitStr>,
    pub capabilities: Vec<LitStr>,
    pub provider: Option<LitStr>,
}

/// Turns the arguments into a [`GroupSpec`], recording every misuse.
pub(crate) fn attribute(args: Vec<Arg>, errors: &mut Errors) -> GroupSpec {
    let mut spec = GroupSpec::default();
    let mut surface_key: Option<String> = None;
    let errors_before = errors.len();
    for Arg { key, value } in args {
        let key_name = key.to_string();
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
            "surface" | "surfaces" => {
                if let Some(first) = &surface_key {
                    errors.spanned(
                        &key,
                        format!(
                            "the surface condition is given twice (first by `{first}`); \
                             list every surface once in `surfaces = [...]`"
                        ),
                    );
                    continue;
                }
                surface_key = Some(key_name.clone());
                let names = if key_name == "surface" {
                    single(&key, value, errors).into_iter().collect()
                } else {
                    list(&key, value, errors)
                };
                spec.surfaces = names;
            }
            "capability" | "capabilities" => {
                let names = list(&key, value, errors);
                spec.capabilities.extend(names);
            }
            "provider" => match (single(&key, value, errors), &spec.provider) {
                (Some(_), Some(_)) => errors.spanned(
                    &key,
                    "`provider` is given twice; a group requires at most one provider",
                ),
                (Some(provider), None) => spec.provider = Some(provider),
                (None, _) => {}
            },
            _ => {
                let hint = closest(&key_name, KEYS)
                    .map(|key| format!("did you mean `{key}`? "))
                    .unwrap_or_default();
                errors.spanned(
                    &key,
                    format!(
                        "unknown key `{key_name}` in #[tool_group]; {hint}expected one of: {}",
                        KEYS.join(", ")
                    ),
                );
            }
        }
    }
    for (kind, names) in [
        ("surface", &spec.surfaces),
        ("capability", &spec.capabilities),
    ] {
        for (index, name) in names.iter().enumerate() {
            if names[..index].iter().any(|n| n.value() == name.value()) {
                errors.spanned(name, format!("{kind} `{}` is listed twice", name.value()));
            }
        }
    }
    // A key error usually explains a missing condition; don't report both.
    let no_condition =
        spec.surfaces.is_empty() && spec.capabilities.is_empty() && spec.provider.is_none();
    if no_condition && errors.len() == errors_before {
        errors.at(
            Span::call_site(),
            "#[tool_group] needs at least one enablement condition: \
             `surface = \"...\"`, `surfaces = [...]`, `capability = \"...\"` or `provider = \"...\"`",
        );
    }
    spec
}

/// A key that takes exactly one name.
fn single(key: &syn::Ident, value: Value, errors: &mut Errors) -> Option<LitStr> {
    match value {
        Value::Str(lit) => Some(lit),
        Value::List { span, .. } => {
            let hint = match key.to_string().as_str() {
                "surface" => "; use `surfaces = [...]` for several surfaces",
                "provider" => "; a group requires at most one provider",
                _ => "",
            };
            errors.at(span, format!("`{key}` takes a single string{hint}"));
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
    }
}

/// Checks the impl block: inherent, concrete, with uniquely named tools.
/// Returns the self type's path when the block is usable.
pub(crate) fn item<'a>(
    item: &'a ItemImpl,
    tools: &[ToolFn],
    errors: &mut Errors,
) -> Option<&'a TypePath> {
    if let Some((_, path, _)) = &item.trait_ {
        errors.spanned(
            path,
            "#[tool_group] goes on an inherent impl (`impl Server { ... }`), not a trait impl: \
             rmcp's #[tool] adds associated functions that a trait impl cannot hold",
        );
    }
    if !item.generics.params.is_empty() {
        errors.spanned(
            &item.generics,
            "#[tool_group] cannot be generic: each group is one static registry entry \
             for one concrete server type",
        );
    }
    let self_path = match &*item.self_ty {
        Type::Path(path) if path.qself.is_none() => Some(path),
        other => {
            errors.spanned(
                other,
                "#[tool_group] needs the server type by name, like `impl MyServer { ... }`",
            );
            None
        }
    };
    if tools.is_empty() {
        errors.spanned(
            &item.self_ty,
            "this impl block has no #[tool] method, so the group would expose no tools; \
             mark its handlers with rmcp's #[tool]",
        );
    }
    for (index, tool) in tools.iter().enumerate() {
        if let Some(first) = tools[..index].iter().find(|t| t.name == tool.name) {
            errors.at(
                tool.name_span,
                format!(
                    "tool `{}` is defined twice in this group (first by `fn {}`); \
                     tool names must be unique",
                    tool.name, first.method
                ),
            );
        }
    }
    self_path
}
