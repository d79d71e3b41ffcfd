//! A context's runtime allow list (`#[runtime_allow_list(max = 3)]` on the
//! shop's vocabulary): strict setting and decoding, each error naming the
//! bad value and changing nothing, the JSON form (left out when runtime
//! tools are unrestricted), and its part in equality, hashing and display.
//! Compiled tools are never governed by it.

use std::collections::HashSet;

use crate::common::shop::{Shop, Surface};
use crate::common::{Desk, Surface as DeskSurface};
use mcp_profiles::{AllowError, ProfileContext, Vocabulary};

type Context = ProfileContext<Shop>;

fn store() -> Context {
    Context::new(Surface::Store)
}

fn decode_error(json: &str) -> String {
    Context::from_json(json).unwrap_err().to_string()
}

#[test]
fn the_vocabulary_declares_the_most_names_a_list_may_hold() {
    assert_eq!(Shop::RUNTIME_ALLOW_MAX, Some(3));
    assert_eq!(Desk::RUNTIME_ALLOW_MAX, None);
}

#[test]
fn a_list_is_sorted_order_free_and_distinct_from_no_list() {
    assert_eq!(store().runtime_allowed(), None);
    let two = store()
        .with_runtime_allowed(["plugin.search", "plugin-fetch"])
        .unwrap();
    assert_eq!(
        two.runtime_allowed(),
        Some(&["plugin-fetch", "plugin.search"][..])
    );
    let again = store()
        .with_runtime_allowed(vec![String::from("plugin-fetch"), "plugin.search".into()])
        .unwrap();
    assert_eq!(two, again);

    let none = store().with_runtime_allowed([] as [&str; 0]).unwrap();
    assert_eq!(none.runtime_allowed(), Some(&[][..]));
    assert_ne!(none, store());
    assert_eq!(none.without_runtime_allowed(), store());

    let distinct: HashSet<Context> = [store(), none, two, again].into_iter().collect();
    assert_eq!(distinct.len(), 3);

    // Setting replaces the whole list.
    let other = two.with_runtime_allowed(["plugin_x"]).unwrap();
    assert_eq!(other.runtime_allowed(), Some(&["plugin_x"][..]));
}

#[test]
fn compiled_tools_are_never_governed_by_it() {
    let registry = Shop::registry();
    let none = store().with_runtime_allowed([] as [&str; 0]).unwrap();
    let unrelated = store().with_runtime_allowed(["list_products"]).unwrap();
    let all = registry.assemble(&store()).tool_names().to_vec();
    assert_eq!(registry.assemble(&none).tool_names(), all);
    assert_eq!(registry.assemble(&unrelated).tool_names(), all);
    assert!(registry.explain(&none).removed().is_empty());
}

#[test]
fn setting_is_strict_names_the_bad_value_and_changes_nothing() {
    let set = store().with_runtime_allowed(["plugin_a"]).unwrap();
    let err = |names: &[&str]| set.with_runtime_allowed(names).unwrap_err();

    assert_eq!(
        err(&["plugin_a", "bad name"]),
        AllowError::InvalidRuntimeName {
            name: "bad name".into(),
            reason: "it contains ' '; a tool name uses only A-Z, a-z, 0-9, `_`, `-` and `.`".into(),
        }
    );
    assert_eq!(
        err(&["plugin/a"]).to_string(),
        "\"plugin/a\" in the runtime allow list is not a valid MCP tool name: it contains '/'; \
         a tool name uses only A-Z, a-z, 0-9, `_`, `-` and `.`"
    );
    assert_eq!(
        err(&[""]).to_string(),
        "\"\" in the runtime allow list is not a valid MCP tool name: it is empty; a tool name \
         has 1 to 128 characters"
    );
    // A huge name is echoed cut short.
    let long = "x".repeat(200);
    let message = err(&[long.as_str()]).to_string();
    assert!(message.contains("… (200 bytes)"), "{message}");
    assert!(message.ends_with("it has 200 characters; a tool name has at most 128"));

    assert_eq!(
        err(&["plugin_b", "plugin_a", "plugin_b"]).to_string(),
        "`plugin_b` is listed twice in the runtime allow list"
    );
    assert_eq!(
        err(&["a", "b", "c", "d"]),
        AllowError::TooManyRuntimeNames { given: 4, max: 3 }
    );
    assert_eq!(
        err(&["a", "b", "c", "d"]).to_string(),
        "the runtime allow list names 4 tools; it may name at most 3 (the vocabulary's \
         `#[runtime_allow_list(max = 3)]`)"
    );
    // Exactly `max` is fine.
    assert!(set.with_runtime_allowed(["a", "b", "c"]).is_ok());
    // A refused list leaves the context as it was.
    assert_eq!(set.runtime_allowed(), Some(&["plugin_a"][..]));
}

#[test]
fn a_vocabulary_without_the_attribute_refuses_any_list() {
    let desk = ProfileContext::<Desk>::new(DeskSurface::Ticket);
    let err = desk.with_runtime_allowed(["plugin_a"]).unwrap_err();
    assert_eq!(err, AllowError::NoRuntimeAllowList { server: "Desk" });
    assert_eq!(
        err.to_string(),
        "the vocabulary of `Desk` declares no runtime allow list; add \
         `#[runtime_allow_list(max = N)]` before its `server` line to let a context limit the \
         runtime tools it serves"
    );
    // An empty list too: fail closed rather than ignore it.
    assert!(desk.with_runtime_allowed([] as [&str; 0]).is_err());
    let message = ProfileContext::<Desk>::from_json(r#"{"surface":"ticket","runtime_allow":[]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with(
            "`runtime_allow`: the vocabulary of `Desk` declares no runtime allow list"
        ),
        "{message}"
    );
}

#[test]
fn the_json_form_round_trips_and_is_left_out_when_unrestricted() {
    assert_eq!(
        store().to_json(),
        r#"{"surface":"store","capabilities":[],"providers":[]}"#
    );
    let two = store()
        .with_runtime_allowed(["plugin_b", "plugin_a"])
        .unwrap();
    let json = r#"{"surface":"store","capabilities":[],"providers":[],"runtime_allow":["plugin_a","plugin_b"]}"#;
    assert_eq!(two.to_json(), json);
    assert_eq!(Context::from_json(json).unwrap(), two);
    assert_eq!(two.to_string(), "store, runtime allow: plugin_a, plugin_b");

    // An empty list is kept: it means "no runtime tool", not "any".
    let none = store().with_runtime_allowed([] as [&str; 0]).unwrap();
    assert_eq!(
        none.to_json(),
        r#"{"surface":"store","capabilities":[],"providers":[],"runtime_allow":[]}"#
    );
    assert_eq!(Context::from_json(&none.to_json()).unwrap(), none);
    assert_eq!(none.to_string(), "store, runtime allow: none");

    // Order does not matter in the JSON form either.
    let reordered =
        Context::from_json(r#"{"runtime_allow":["plugin_b","plugin_a"],"surface":"store"}"#)
            .unwrap();
    assert_eq!(reordered, two);
}

#[test]
fn decoding_is_strict_and_names_the_bad_value() {
    for (json, expected) in [
        (
            r#"{"surface":"store","runtime_allow":["a b"]}"#,
            "`runtime_allow`: \"a b\" in the runtime allow list is not a valid MCP tool name",
        ),
        (
            r#"{"surface":"store","runtime_allow":["a","a"]}"#,
            "`runtime_allow`: `a` is listed twice in the runtime allow list",
        ),
        (
            r#"{"surface":"store","runtime_allow":["a","b","c","d"]}"#,
            "`runtime_allow`: the runtime allow list names 4 tools; it may name at most 3",
        ),
        (
            r#"{"surface":"store","runtime_allow":[],"runtime_allow":[]}"#,
            "duplicate field `runtime_allow`",
        ),
        (
            r#"{"surface":"store","runtime_allow":null}"#,
            "invalid type: null, expected a sequence",
        ),
        (
            r#"{"surface":"store","runtime_allow":"plugin_a"}"#,
            "invalid type: string \"plugin_a\", expected a sequence",
        ),
        (
            r#"{"surface":"store","runtime_allow":[7]}"#,
            "invalid type: integer `7`, expected a string",
        ),
    ] {
        let message = decode_error(json);
        assert!(message.contains(expected), "{json}: {message}");
    }
    // A server whose vocabulary declares the list suggests the field.
    assert_eq!(
        decode_error(r#"{"surface":"store","runtime_allowed":[]}"#),
        "unknown field `runtime_allowed`, expected one of `surface`, `capabilities`, \
         `providers`, `policy`, `runtime_allow` at line 1 column 36"
    );
}
