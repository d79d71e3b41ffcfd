//! A context's policy: its JSON form, strict decoding, and what it takes
//! part in (equality, hashing, display) while the context stays `Copy`.

use std::collections::HashSet;

use crate::common::shop::{Capability, Shop, Surface};
use mcp_profiles::{DenyList, Policy, PolicyError, ProfileContext, Vocabulary};

type Context = ProfileContext<Shop>;

fn decode_error(json: &str) -> String {
    Context::from_json(json).unwrap_err().to_string()
}

fn deny(names: &[&str]) -> DenyList<Shop> {
    DenyList::new(names).unwrap()
}

#[test]
fn a_context_with_a_policy_is_still_copy() {
    fn copy<T: Copy>() {}
    copy::<Context>();
    copy::<Policy<Shop>>();
    copy::<DenyList<Shop>>();
    fn shared<T: Send + Sync>() {}
    shared::<Context>();
    shared::<mcp_profiles::KillSwitch<Shop>>();
}

#[test]
fn the_policy_round_trips_through_json_and_is_left_out_when_empty() {
    let context = Context::new(Surface::Store)
        .with_capability(Capability::Refund)
        .unwrap()
        .with_policy(
            Policy::none()
                .with_read_only(true)
                .with_deny(deny(&["wipe_shop", "catalog"])),
        );
    let json = context.to_json();
    assert_eq!(
        json,
        r#"{"surface":"store","capabilities":["refund"],"providers":[],"policy":{"read_only":true,"deny":["catalog","wipe_shop"]}}"#
    );
    assert_eq!(Context::from_json(&json).unwrap(), context);
    assert_eq!(
        context.to_string(),
        "store +refund, policy: read-only, deny: catalog, wipe_shop"
    );

    let plain = Context::new(Surface::Store);
    assert_eq!(
        plain.to_json(),
        r#"{"surface":"store","capabilities":[],"providers":[]}"#
    );
    // An explicit policy that removes nothing is no policy.
    for nothing in [
        r#"{"surface":"store","policy":{}}"#,
        r#"{"surface":"store","policy":{"read_only":false,"no_destructive":false,"deny":[]}}"#,
    ] {
        assert_eq!(Context::from_json(nothing).unwrap(), plain, "{nothing}");
    }
    let both = r#"{"surface":"admin","policy":{"no_destructive":true,"read_only":true}}"#;
    let decoded = Context::from_json(both).unwrap();
    assert!(decoded.policy().read_only() && decoded.policy().no_destructive());
    assert_eq!(
        decoded.to_json(),
        r#"{"surface":"admin","capabilities":[],"providers":[],"policy":{"read_only":true,"no_destructive":true}}"#
    );
}

#[test]
fn the_issue_example_decodes() {
    let json = r#"{"surface":"store","capabilities":["refund"],"policy":{"read_only":true,"deny":["issue_refund"]}}"#;
    let context = Context::from_json(json).unwrap();
    assert!(context.policy().read_only());
    assert!(!context.policy().no_destructive());
    assert_eq!(context.policy().deny().names(), ["issue_refund"]);
}

#[test]
fn deny_names_are_order_insensitive_and_equal_lists_are_one() {
    let a = deny(&["wipe_shop", "catalog"]);
    let b = deny(&["catalog", "wipe_shop"]);
    assert_eq!(a, b);
    assert_eq!(a.names(), ["catalog", "wipe_shop"]);
    assert!(a.contains("catalog") && !a.contains("refunds"));
    assert_ne!(a, deny(&["catalog"]));
    assert_eq!(
        DenyList::<Shop>::new(Vec::<String>::new()).unwrap(),
        DenyList::empty()
    );
}

#[test]
fn equality_and_hashing_include_the_policy() {
    let store = Context::new(Surface::Store);
    let read_only = store.with_policy(Policy::none().with_read_only(true));
    let no_destructive = store.with_policy(Policy::none().with_no_destructive(true));
    let denying = store.with_policy(Policy::none().with_deny(deny(&["wipe_shop"])));
    let denying_again = store.with_policy(Policy::none().with_deny(deny(&["wipe_shop"])));
    assert_ne!(store, read_only);
    assert_ne!(read_only, no_destructive);
    assert_ne!(store, denying);
    assert_eq!(denying, denying_again);
    assert_eq!(store, store.with_policy(Policy::none()));
    let set: HashSet<Context> = [store, read_only, no_destructive, denying, denying_again]
        .into_iter()
        .collect();
    assert_eq!(set.len(), 4);
}

#[test]
fn decoding_a_policy_is_strict_and_names_the_bad_value() {
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":{"deny":["delete_prodcut"]}}"#),
        "`deny`: unknown tool or tool group `delete_prodcut`; did you mean `delete_product`? \
         at line 1 column 55"
    );
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":{"deny":["refund"]}}"#),
        "`deny`: unknown tool or tool group `refund`; did you mean `refunds`? at line 1 column 47"
    );
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":{"deny":["nothing-like-it"]}}"#),
        "`deny`: unknown tool or tool group `nothing-like-it`; no tool or tool group of the \
         server has that name at line 1 column 56"
    );
    assert_eq!(
        decode_error(
            r#"{"surface":"store","policy":{"deny":["wipe_shop","catalog","wipe_shop"]}}"#
        ),
        "`deny`: `wipe_shop` is listed twice at line 1 column 72"
    );
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":{"readonly":true}}"#),
        "unknown field `readonly`, expected one of `read_only`, `no_destructive`, `deny` at line \
         1 column 39"
    );
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":{"read_only":true,"read_only":false}}"#),
        "duplicate field `read_only` at line 1 column 57"
    );
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":{},"policy":{}}"#),
        "duplicate field `policy` at line 1 column 39"
    );
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":{"read_only":"yes"}}"#),
        "invalid type: string \"yes\", expected a boolean at line 1 column 46"
    );
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":["read_only"]}"#),
        "invalid type: sequence, expected a policy object at line 1 column 28"
    );
    assert_eq!(
        decode_error(r#"{"surface":"store","policy":{"deny":"wipe_shop"}}"#),
        "invalid type: string \"wipe_shop\", expected a sequence at line 1 column 47"
    );
}

#[test]
fn a_huge_unknown_name_is_clipped_in_the_error() {
    let long = "x".repeat(500);
    let err = DenyList::<Shop>::new([long.as_str()]).unwrap_err();
    assert_eq!(
        err,
        PolicyError::UnknownName {
            name: long.clone(),
            suggestion: None
        }
    );
    assert!(err.to_string().contains("… (500 bytes)"), "{err}");
    assert!(err.to_string().len() < 200);
}

#[test]
fn deny_lists_decode_as_arrays_on_their_own() {
    let list: DenyList<Shop> = serde_json::from_str(r#"["refunds","add_product"]"#).unwrap();
    assert_eq!(list.names(), ["add_product", "refunds"]);
    assert_eq!(
        serde_json::to_string(&list).unwrap(),
        r#"["add_product","refunds"]"#
    );
    let err = serde_json::from_str::<DenyList<Shop>>(r#"["refundz"]"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown tool or tool group `refundz`; did you mean `refunds`?"
    );
    // Names are checked against the registry they are built for.
    let _ = Shop::registry();
}
