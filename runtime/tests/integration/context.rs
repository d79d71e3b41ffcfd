//! The typed context: constructors, the JSON form and strict decoding.

use crate::common::*;
use mcp_profiles::{ContextError, ProfileContext, Term, TermKind, UnknownName};

type Context = ProfileContext<Desk>;

fn decode_error(json: &str) -> String {
    Context::from_json(json).unwrap_err().to_string()
}

#[test]
fn terms_parse_display_and_serialise_by_wire_name() {
    assert_eq!(Surface::Ticket.to_string(), "ticket");
    assert_eq!("read-only".parse::<Capability>(), Ok(Capability::ReadOnly));
    assert_eq!(
        serde_json::to_string(&Provider::Zendesk).unwrap(),
        r#""zendesk""#
    );
    assert_eq!(
        serde_json::from_str::<Surface>(r#""api""#).unwrap(),
        Surface::Api
    );
    assert_eq!(format!("[{:>8}]", Provider::Jira), "[    jira]");
    assert_eq!(Capability::NAMES, ["refund", "read-only", "escalate"]);
    assert_eq!(Surface::ALL.len(), 4);
}

#[test]
fn an_unknown_term_names_itself_and_lists_the_valid_ones() {
    let err = "read-onyl".parse::<Capability>().unwrap_err();
    assert_eq!(
        err,
        UnknownName::new(
            TermKind::Capability,
            "read-onyl",
            &["refund", "read-only", "escalate"]
        )
    );
    assert_eq!(
        err.to_string(),
        "unknown capability `read-onyl`; expected one of: refund, read-only, escalate"
    );
    assert_eq!(
        "slack".parse::<Provider>().unwrap_err().to_string(),
        "unknown provider `slack`; expected one of: jira, zendesk"
    );
}

#[test]
fn the_json_form_is_exact() {
    let context = Context::new(Surface::Ticket)
        .with_capability(Capability::ReadOnly)
        .unwrap()
        .with_provider(Provider::Jira);
    assert_eq!(
        context.to_json(),
        r#"{"surface":"ticket","capabilities":["read-only"],"providers":["jira"]}"#
    );
    assert_eq!(
        Context::new(Surface::Api).to_json(),
        r#"{"surface":"api","capabilities":[],"providers":[]}"#
    );
    assert_eq!(Context::from_json(&context.to_json()).unwrap(), context);
}

#[test]
fn empty_sets_may_be_omitted() {
    assert_eq!(
        Context::from_json(r#"{"surface":"chat"}"#).unwrap(),
        Context::new(Surface::Chat)
    );
}

#[test]
fn order_does_not_matter_and_duplicates_collapse() {
    let a = Context::from_json(
        r#"{"surface":"ticket","capabilities":["escalate","refund","escalate"],
            "providers":["zendesk","jira","zendesk"]}"#,
    )
    .unwrap();
    let b = Context::new(Surface::Ticket)
        .with_provider(Provider::Jira)
        .with_provider(Provider::Zendesk)
        .with_capabilities([Capability::Refund, Capability::Escalate])
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a.to_json(),
        r#"{"surface":"ticket","capabilities":["refund","escalate"],"providers":["jira","zendesk"]}"#
    );
    assert_eq!(
        a.to_string(),
        "ticket +refund +escalate, providers: jira, zendesk"
    );
}

#[test]
fn decoding_errors_name_the_bad_value() {
    assert_eq!(
        decode_error(r#"{"surface":"tick"}"#),
        "unknown surface `tick`; expected one of: ticket, chat, settings, api at line 1 column 17"
    );
    assert_eq!(
        decode_error(r#"{"surface":"ticket","capabilities":["read-onyl"]}"#),
        "unknown capability `read-onyl`; expected one of: refund, read-only, escalate at line 1 \
         column 47"
    );
    assert_eq!(
        decode_error(r#"{"surface":"ticket","providers":["slack"]}"#),
        "unknown provider `slack`; expected one of: jira, zendesk at line 1 column 40"
    );
    assert_eq!(
        decode_error(r#"{"surface":"ticket","mode":"queue"}"#),
        "unknown field `mode`, expected one of `surface`, `capabilities`, `providers`, `policy` at \
         line 1 column 26"
    );
    assert_eq!(
        decode_error(r#"{"capabilities":[]}"#),
        "missing field `surface` at line 1 column 19"
    );
    assert_eq!(
        decode_error(r#"{"surface":"ticket","capabilities":["refund","read-only"]}"#),
        "capabilities `refund` and `read-only` are mutually exclusive at line 1 column 58"
    );
    assert_eq!(
        decode_error(r#"{"surface":"ticket","providers":"jira"}"#),
        "invalid type: string \"jira\", expected a sequence at line 1 column 38"
    );
    assert_eq!(
        decode_error(r#"{"surface":7}"#),
        "invalid type: integer `7`, expected a surface name at line 1 column 12"
    );
    assert_eq!(
        decode_error(r#"["ticket"]"#),
        "invalid type: sequence, expected a profile context object at line 1 column 1"
    );
    assert_eq!(
        decode_error(r#"{"surface":"api","surface":"api"}"#),
        "duplicate field `surface` at line 1 column 26"
    );
    assert_eq!(
        decode_error(r#"{"surface":"api","capabilities":null}"#),
        "invalid type: null, expected a sequence at line 1 column 36"
    );
    assert_eq!(
        decode_error(""),
        "EOF while parsing a value at line 1 column 0"
    );
}

#[test]
fn constructors_refuse_exclusive_capabilities_and_change_nothing() {
    let refunding = Context::new(Surface::Ticket)
        .with_capability(Capability::Refund)
        .unwrap();
    assert!(matches!(
        refunding.with_capability(Capability::ReadOnly),
        Err(ContextError::Exclusive {
            first: "refund",
            second: "read-only"
        })
    ));
    let swapped = refunding
        .without_capability(Capability::Refund)
        .with_capability(Capability::ReadOnly)
        .unwrap();
    assert!(swapped.has_capability(Capability::ReadOnly));
    assert!(!swapped.has_capability(Capability::Refund));
}

#[test]
fn every_valid_context_is_enumerated_once() {
    let all: Vec<Context> = Context::all().collect();
    // 4 surfaces x 6 capability sets free of the exclusive pair x 4 provider sets.
    let capability_sets = (0u64..8).filter(|set| set & 0b011 != 0b011).count();
    assert_eq!(all.len(), Surface::ALL.len() * capability_sets * 4);
    let unique: std::collections::HashSet<Context> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len());
    assert!(all.iter().all(|c| {
        !(c.has_capability(Capability::Refund) && c.has_capability(Capability::ReadOnly))
    }));
}

#[test]
fn a_decode_error_keeps_its_source() {
    let err = Context::from_json(r#"{"surface":"tickt"}"#).unwrap_err();
    let ContextError::Json(json) = &err else {
        panic!("expected a JSON error, got {err:?}");
    };
    assert_eq!((json.line(), json.column()), (1, 18));
    let source = std::error::Error::source(&err).expect("the serde_json error");
    assert_eq!(source.to_string(), err.to_string());
}
