//! Validate stage: each `#[resource(...)]` marker and the impl block; the
//! rule keys are `rule_args`' to check.

use mcp_profiles_rules::UriTemplate;
use syn::{Ident, ItemImpl, LitStr, TypePath};

use super::parse::ResourceFn;
use crate::errors::Errors;
use crate::impl_block::{Keyed, Marker, check};
use crate::names::closest;
use crate::rule_args::{Arg, Value};

const MARKER: Marker = Marker {
    attr: "resource_group",
    marker: "#[resource(...)]",
    item: "resource",
    trait_reason: "its #[resource(...)] methods are read through the server type's own \
                   associated functions, which a trait impl cannot add",
    how_to_mark: "mark its readers with `#[resource(uri = \"...\")]` or \
                  `#[resource(uri_template = \"...\")]`",
    keys: "resource URIs and URI templates",
};

/// The keys of `#[resource(...)]`.
const KEYS: [&str; 6] = [
    "uri",
    "uri_template",
    "name",
    "title",
    "description",
    "mime_type",
];

/// One valid resource of the group.
pub(crate) struct ResourceSpec {
    pub method: Ident,
    /// The URI, or the URI template.
    pub uri: LitStr,
    pub template: bool,
    /// `name = "..."`, or the method's name.
    pub name: String,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub mime_type: Option<LitStr>,
}

/// Each marker's meaning; every misuse recorded, the resource dropped.
pub(crate) fn resources(markers: Vec<ResourceFn>, errors: &mut Errors) -> Vec<ResourceSpec> {
    markers
        .into_iter()
        .filter_map(|marker| resource(marker, errors))
        .collect()
}

fn resource(marker: ResourceFn, errors: &mut Errors) -> Option<ResourceSpec> {
    let args = match marker.args {
        Ok(args) => args,
        Err(error) => {
            errors.push(error);
            return None;
        }
    };
    let before = errors.len();
    let mut given: Vec<(Ident, LitStr)> = Vec::new();
    for Arg { key, value } in args {
        let key_name = key.to_string();
        if !KEYS.contains(&key_name.as_str()) {
            let hint = closest(&key_name, KEYS)
                .or_else(|| KEYS.into_iter().find(|key| key.starts_with(&key_name)))
                .map(|key| format!("did you mean `{key}`? "))
                .unwrap_or_default();
            errors.spanned(
                &key,
                format!(
                    "unknown key `{key_name}` in #[resource]; {hint}expected one of: {}",
                    KEYS.join(", ")
                ),
            );
            continue;
        }
        let literal = match value {
            Some(Value::Str(literal)) => literal,
            Some(Value::List { span, .. }) => {
                errors.at(
                    span,
                    format!("`{key_name}` takes one string: `{key_name} = \"...\"`"),
                );
                continue;
            }
            Some(Value::Other(expr)) => {
                errors.spanned(
                    expr,
                    format!("`{key_name}` takes a string: `{key_name} = \"...\"`"),
                );
                continue;
            }
            Some(Value::Nested { span, .. }) => {
                errors.at(
                    span,
                    format!("`{key_name}` takes a string: `{key_name} = \"...\"`"),
                );
                continue;
            }
            None => {
                errors.spanned(
                    &key,
                    format!("`{key_name}` needs a value: `{key_name} = \"...\"`"),
                );
                continue;
            }
        };
        if given.iter().any(|(k, _)| *k == key) {
            errors.spanned(&key, format!("`{key_name}` is given twice"));
            continue;
        }
        given.push((key, literal));
    }
    let get = |name: &str| {
        given
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, literal)| literal.clone())
    };
    let (uri, template) = match (get("uri"), get("uri_template")) {
        (Some(uri), None) => (uri, false),
        (None, Some(template)) => (template, true),
        (Some(_), Some(template)) => {
            errors.spanned(
                &template,
                "a resource has either `uri` (one fixed resource) or `uri_template` (a \
                 family of them), not both",
            );
            return None;
        }
        (None, None) => {
            if errors.len() == before {
                errors.spanned(
                    &marker.marker,
                    format!(
                        "#[resource] on `fn {}` needs the URI it serves: `uri = \"...\"`, or \
                         `uri_template = \".../{{id}}\"` for a family of resources",
                        marker.method
                    ),
                );
            }
            return None;
        }
    };
    let value = uri.value();
    match (template, UriTemplate::parse(&value)) {
        (false, Ok(_)) => errors.spanned(
            &uri,
            format!(
                "`{value}` has `{{variable}}` parts, so it is a template: write \
                 `uri_template = \"{value}\"`"
            ),
        ),
        (false, Err(_)) if value.is_empty() || value.contains(['{', '}']) => errors.spanned(
            &uri,
            format!("`{value}` is not a resource URI; write it like `kandev://board`"),
        ),
        (true, Err(why)) => errors.spanned(
            &uri,
            format!("`{value}` is not a URI template this group can serve: {why}"),
        ),
        _ => {}
    }
    if errors.len() != before {
        return None;
    }
    Some(ResourceSpec {
        name: get("name").map_or_else(|| marker.method.to_string(), |name| name.value()),
        method: marker.method,
        uri,
        template,
        title: get("title"),
        description: get("description"),
        mime_type: get("mime_type"),
    })
}

/// Checks the impl block: inherent, concrete, with `marked` methods and
/// unique URIs among the valid `resources`.
pub(crate) fn item<'a>(
    item: &'a ItemImpl,
    marked: usize,
    resources: &[ResourceSpec],
    errors: &mut Errors,
) -> Option<&'a TypePath> {
    let values: Vec<String> = resources.iter().map(|r| r.uri.value()).collect();
    let keyed: Vec<Keyed<'_>> = resources
        .iter()
        .zip(&values)
        .map(|(resource, key)| Keyed {
            key,
            span: resource.uri.span(),
            method: &resource.method,
        })
        .collect();
    check(item, &MARKER, marked, &keyed, errors)
}
