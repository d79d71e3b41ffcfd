//! The example reproduces Kandev's catalog: every group with its name, rule
//! and tools in order, every tool with its description and parameters
//! (names, required-ness, types, enums), and the tool counts of the
//! catalog's reference profiles.
//!
//! `tests/data/kandev-catalog.tsv` is the catalog as given (read from
//! Kandev's source at 2ead7b81, September 2026); the deliberate differences
//! are documented below.
//!
//! Parameter order is invisible in a schema here (serde_json sorts object
//! keys, as Kandev's Go encoder does on the wire), so it is checked only in a
//! build whose maps keep insertion order:
//! `cargo test -p kandev-mcp --features serde_json/preserve_order --test integration catalog`.

use std::collections::{BTreeMap, BTreeSet};

use kandev_mcp::kandev_hints::{KANDEV_HINTS, KandevHints, kandev_hints};
use kandev_mcp::{Capability, Kandev, Provider, Surface};
use mcp_profiles::{ProfileContext, Restriction, Term, Vocabulary};
use serde_json::Value;

const CATALOG: &str = include_str!("../data/kandev-catalog.tsv");

/// Groups that share other groups' tools (`include(...)`): a group's own
/// tools come first, then the included ones, so only the set is the
/// catalog's; Kandev's order there is its registration order.
const COMPOSED: &[&str] = &[
    "kanban-task",
    "configuration-tasks",
    "automation",
    "coordinator",
];

/// Kandev declares its whole-number parameters (PR number, positions,
/// limits, WIP limits, revisions) as `number`; ours say `integer` with a
/// range, which is the narrower, honest schema for what the handlers
/// accept. Kandev's `any` (no `type` key) is a schema without a type here
/// too.
fn same_type(ours: &str, catalog: &str) -> bool {
    ours == catalog
        || (ours == "integer" && catalog == "number")
        || (ours, catalog) == ("none", "any")
}

/// Ours limits user-question to live-session surfaces, so `external` (and
/// the automation and coordinator surfaces) can never reach
/// `ask_user_question_kandev` (Kandev's rule has no surface).
const USER_QUESTION_RULE: &str = "(surface(kanban-task) | surface(office-task) | surface(configuration)) & capability(user-question)";

struct Row {
    group: String,
    rule: String,
    tool: String,
    params: String,
    purpose: String,
    /// The hints Kandev's source sets: `ro=1 de=0 id=1 ow=0`, any subset.
    annotations: String,
}

fn catalog() -> Vec<Row> {
    CATALOG
        .lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            Row {
                group: cells[0].to_owned(),
                rule: cells[1].to_owned(),
                tool: cells[2].to_owned(),
                params: cells[3].to_owned(),
                purpose: cells[4].to_owned(),
                annotations: cells.get(5).copied().unwrap_or_default().to_owned(),
            }
        })
        .collect()
}

/// Whether the catalog's rule formula holds in `context`: `&` binds tighter
/// than `|`, and each term is `surface(x)`, `capability(x)` or
/// `provider(x)` (the catalog writes no parentheses around terms).
fn catalog_rule_holds(formula: &str, context: &ProfileContext<Kandev>) -> bool {
    formula.split(" | ").any(|conjunction| {
        conjunction.split(" & ").all(|term| {
            let (kind, name) = term
                .strip_suffix(')')
                .and_then(|term| term.split_once('('))
                .unwrap_or_else(|| panic!("`{term}` in `{formula}` is not kind(name)"));
            match kind {
                "surface" => context.surface().wire_name() == name,
                "capability" => context.capabilities().any(|c| c.wire_name() == name),
                "provider" => context.providers().any(|p| p.wire_name() == name),
                _ => panic!("unknown term kind `{kind}` in `{formula}`"),
            }
        })
    })
}

#[test]
fn every_group_has_the_catalog_name_rule_and_tools() {
    let registry = Kandev::registry();
    let mut expected: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    for row in catalog() {
        let entry = expected
            .entry(row.group.clone())
            .or_insert_with(|| (row.rule.clone(), Vec::new()));
        entry.1.push(row.tool);
    }
    let ours: Vec<&str> = registry.groups().iter().map(|group| group.name()).collect();
    assert_eq!(ours, expected.keys().collect::<Vec<_>>());
    for (name, (rule, tools)) in &expected {
        let group = registry.group(name).expect("compared above");
        if COMPOSED.contains(&name.as_str()) {
            let ours: BTreeSet<&str> = group.tools().iter().copied().collect();
            let catalog: BTreeSet<&str> = tools.iter().map(String::as_str).collect();
            assert_eq!(ours, catalog, "tools of group {name}");
        } else {
            assert_eq!(
                group.tools(),
                tools.as_slice(),
                "tools of group {name}, in order"
            );
        }
        if name == "user-question" {
            assert_eq!(group.rule().to_string(), USER_QUESTION_RULE);
            continue;
        }
        // Compared by meaning: ours may write the same rule another way
        // (task-pr-links displays as `surface(kanban-task) &
        // (provider(github) | provider(gitlab))`).
        for context in ProfileContext::<Kandev>::all() {
            assert_eq!(
                group.rule().is_enabled(&context),
                catalog_rule_holds(rule, &context),
                "rule of group {name} (`{}` against the catalog's `{rule}`) on {context}",
                group.rule()
            );
        }
    }
}

/// `name!:type=a|b` parsed: (name, required, type, enum values).
fn parse_param(spec: &str) -> (String, bool, String, Vec<String>) {
    let (name, rest) = spec.split_once(':').expect(spec);
    let (kind, values) = match rest.split_once('=') {
        Some((kind, values)) => (kind, values.split('|').map(str::to_owned).collect()),
        None => (rest, Vec::new()),
    };
    let required = name.ends_with('!');
    (
        name.trim_end_matches('!').to_owned(),
        required,
        kind.to_owned(),
        values,
    )
}

/// Follows a `$ref` into the schema's `$defs`.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap();
            &root["$defs"][name]
        }
        None => schema,
    }
}

/// The non-null branch of an `Option`'s `anyOf`, if the schema is one.
fn non_null(schema: &Value) -> Option<&Value> {
    schema
        .get("anyOf")?
        .as_array()?
        .iter()
        .find(|branch| branch.get("type") != Some(&Value::from("null")))
}

/// Whether the property accepts `null`.
fn nullable(root: &Value, schema: &Value) -> bool {
    let schema = resolve(root, schema);
    let null = Value::from("null");
    schema["type"] == null
        || schema["type"]
            .as_array()
            .is_some_and(|kinds| kinds.contains(&null))
        || schema["anyOf"]
            .as_array()
            .is_some_and(|branches| branches.iter().any(|b| nullable(root, b)))
}

/// The JSON type of a property, looking through `Option`'s `null` and refs.
fn type_of(root: &Value, schema: &Value) -> String {
    let schema = resolve(root, schema);
    if let Some(inner) = non_null(schema) {
        return type_of(root, inner);
    }
    if schema.get("oneOf").is_some() || schema.get("enum").is_some() {
        return "string".into();
    }
    match &schema["type"] {
        Value::String(kind) => kind.clone(),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .unwrap_or("none")
            .to_owned(),
        _ => "none".into(),
    }
}

fn enum_values(root: &Value, schema: &Value) -> Vec<String> {
    let schema = resolve(root, schema);
    if let Some(inner) = non_null(schema) {
        return enum_values(root, inner);
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    if let Some(variants) = schema.get("oneOf").and_then(Value::as_array) {
        return variants
            .iter()
            .filter_map(|variant| variant.get("const").and_then(Value::as_str))
            .map(str::to_owned)
            .collect();
    }
    if let Some(value) = schema.get("const") {
        return vec![value.to_string()];
    }
    Vec::new()
}

/// Whether this build's JSON objects keep insertion order (serde_json's
/// `preserve_order`), so that a schema's properties are in field order.
fn maps_keep_order() -> bool {
    let map: serde_json::Map<String, Value> =
        [("b".to_owned(), Value::Null), ("a".to_owned(), Value::Null)]
            .into_iter()
            .collect();
    map.keys().next().map(String::as_str) == Some("b")
}

#[test]
fn every_tool_has_the_catalog_description_and_parameters() {
    let registry = Kandev::registry();
    for row in catalog() {
        let group = registry.group(&row.group).expect(&row.group);
        let routes = group.routes();
        let route = routes
            .iter()
            .find(|route| route.name() == row.tool)
            .unwrap_or_else(|| panic!("{} has no tool {}", row.group, row.tool));
        assert_eq!(
            route.attr.description.as_deref(),
            Some(row.purpose.as_str()),
            "description of {} in {}",
            row.tool,
            row.group
        );
        let schema = Value::Object((*route.attr.input_schema).clone());
        let properties = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let required: BTreeSet<String> = schema["required"]
            .as_array()
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let specs: Vec<_> = row.params.split_whitespace().map(parse_param).collect();
        let names: Vec<&String> = specs.iter().map(|(name, ..)| name).collect();
        assert_eq!(
            properties.keys().collect::<BTreeSet<_>>(),
            names.iter().copied().collect::<BTreeSet<_>>(),
            "parameters of {}",
            row.tool
        );
        if maps_keep_order() {
            assert_eq!(
                properties.keys().collect::<Vec<_>>(),
                names,
                "parameter order of {}",
                row.tool
            );
        }
        for (name, is_required, kind, values) in &specs {
            let context = format!("{}.{name}", row.tool);
            assert_eq!(required.contains(name), *is_required, "required: {context}");
            let property = &properties[name];
            let (kind, catalog_nullable) = match kind.strip_suffix("|null") {
                Some(kind) => (kind, true),
                None => (kind.as_str(), false),
            };
            if catalog_nullable {
                assert!(nullable(&schema, property), "nullable: {context}");
            }
            let base = kind.split('<').next().unwrap();
            let ours = type_of(&schema, property);
            assert!(
                same_type(&ours, base),
                "type: {context}: {ours}, not {base}"
            );
            if let Some(item) = kind
                .strip_prefix("array<")
                .and_then(|k| k.strip_suffix('>'))
            {
                let array = resolve(&schema, property);
                // Option<Vec<T>>: the array schema sits in the non-null branch.
                let items = non_null(array).unwrap_or(array)["items"].clone();
                assert_eq!(type_of(&schema, &items), item, "items: {context}");
            }
            if !values.is_empty() {
                assert_eq!(&enum_values(&schema, property), values, "enum: {context}");
            }
        }
    }
}

fn count(context: ProfileContext<Kandev>) -> usize {
    Kandev::registry().assemble(&context).tool_names().len()
}

fn with(
    surface: Surface,
    capabilities: &[Capability],
    providers: &[Provider],
) -> ProfileContext<Kandev> {
    ProfileContext::new(surface)
        .with_capabilities(capabilities.iter().copied())
        .unwrap()
        .with_providers(providers.iter().copied())
}

#[test]
fn reference_profiles_have_the_catalog_counts() {
    use Capability::*;
    use Provider::*;
    use Surface::*;
    let cases = [
        (with(KanbanTask, &[UserQuestion], &[Github, Gitlab]), 42),
        (with(KanbanTask, &[ParentQuestion], &[]), 38),
        (with(KanbanTask, &[], &[]), 37),
        (with(KanbanTask, &[TaskTitle, UserQuestion], &[]), 39),
        (with(KanbanTask, &[UserQuestion], &[Gitlab]), 41),
        (with(OfficeTask, &[UserQuestion], &[]), 15),
        (with(OfficeTask, &[], &[]), 14),
        (with(Configuration, &[UserQuestion], &[]), 44),
        (with(Configuration, &[], &[]), 43),
        (with(External, &[], &[]), 49),
    ];
    for (context, expected) in cases {
        assert_eq!(count(context), expected, "{context}");
    }
}

#[test]
fn the_catalog_counts_are_the_union_of_the_enabled_groups_rows() {
    // The same figures derived from the catalog rows, not written down:
    // a profile's tools are the distinct tool names of the groups it
    // enables, less those an allow list keeps out (the coordinator's
    // phase-1 default: Kandev registers only the bound names).
    let registry = Kandev::registry();
    let rows = catalog();
    for context in ProfileContext::<Kandev>::all() {
        let profile = registry.assemble(&context);
        let enabled: BTreeSet<&str> = profile.groups().collect();
        let explanation = registry.explain(&context);
        let not_allowed: BTreeSet<&str> = explanation
            .removed()
            .iter()
            .filter(|removed| removed.restrictions().contains(Restriction::NotAllowed))
            .map(|removed| removed.tool())
            .collect();
        let from_catalog: BTreeSet<&str> = rows
            .iter()
            .filter(|row| enabled.contains(row.group.as_str()))
            .map(|row| row.tool.as_str())
            .filter(|tool| !not_allowed.contains(tool))
            .collect();
        let assembled: BTreeSet<&str> = profile.tool_names().iter().copied().collect();
        assert_eq!(assembled, from_catalog, "{context}");
    }
}

#[test]
fn external_never_reaches_a_question_tool() {
    let external = with(
        Surface::External,
        &[Capability::UserQuestion],
        &[Provider::Github],
    );
    let profile = Kandev::registry().assemble(&external);
    assert!(!profile.contains("ask_user_question_kandev"));
    assert!(!profile.contains("ask_parent_question_kandev"));
}

/// A row's annotations cell as hints.
fn catalog_hints(tool: &'static str, cell: &str) -> KandevHints {
    let mut hints = KandevHints {
        tool,
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };
    for setting in cell.split_whitespace() {
        let (hint, value) = setting.split_once('=').expect(setting);
        let value = match value {
            "1" => Some(true),
            "0" => Some(false),
            _ => panic!("`{setting}` of {tool}: a hint is 1 or 0"),
        };
        let slot = match hint {
            "ro" => &mut hints.read_only,
            "de" => &mut hints.destructive,
            "id" => &mut hints.idempotent,
            "ow" => &mut hints.open_world,
            _ => panic!("`{setting}` of {tool}: unknown hint"),
        };
        *slot = value;
    }
    hints
}

#[test]
fn the_kandev_hints_table_is_the_catalogs_annotations_column() {
    let mut from_catalog: BTreeMap<String, String> = BTreeMap::new();
    for row in catalog()
        .into_iter()
        .filter(|row| !row.annotations.is_empty())
    {
        let earlier = from_catalog.insert(row.tool.clone(), row.annotations.clone());
        assert!(
            earlier.is_none_or(|earlier| earlier == row.annotations),
            "{}: the catalog's rows disagree",
            row.tool
        );
    }
    let table: Vec<&str> = KANDEV_HINTS.iter().map(|hints| hints.tool).collect();
    assert_eq!(
        table,
        from_catalog.keys().collect::<Vec<_>>(),
        "tools, by name"
    );
    for hints in KANDEV_HINTS {
        assert_eq!(*hints, catalog_hints(hints.tool, &from_catalog[hints.tool]));
    }
}

#[test]
fn our_annotations_are_kandevs_wherever_kandev_sets_one() {
    let registry = Kandev::registry();
    let mut compared = 0;
    // Every group, moved or not: a hint Kandev sets is ours whatever else
    // of the group is still to check.
    for group in registry.groups() {
        for route in group.routes() {
            let name = route.name().to_string();
            let Some(kandev) = kandev_hints(&name) else {
                continue;
            };
            let ours = route
                .attr
                .annotations
                .clone()
                .expect("every tool states its hints");
            for (hint, ours, kandevs) in [
                ("readOnlyHint", ours.read_only_hint, kandev.read_only),
                ("destructiveHint", ours.destructive_hint, kandev.destructive),
                ("idempotentHint", ours.idempotent_hint, kandev.idempotent),
                ("openWorldHint", ours.open_world_hint, kandev.open_world),
            ] {
                if kandevs.is_some() {
                    assert_eq!(ours, kandevs, "{hint} of {name} in {}", group.name());
                }
            }
            compared += 1;
        }
    }
    // Every annotated row of a group we have was compared.
    let annotated = catalog()
        .iter()
        .filter(|row| !row.annotations.is_empty() && registry.group(&row.group).is_some())
        .count();
    assert_eq!(compared, annotated);
}
