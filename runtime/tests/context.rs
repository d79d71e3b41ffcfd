//! The typed context: constructors, the JSON form and strict decoding.

mod common;

use common::*;
use mcp_profiles::{ContextError, ProfileContext, Term, TermKind, UnknownName};

type Context = ProfileContext<Server>;

fn decode_error(json: &str) -> String {
    Context::from_json(json).unwrap_err().to_string()
}

#[test]
fn terms_parse_display_and_serialise_by_wire_name() {
    assert_eq!(Surface::KanbanTask.to_string(), "kanban-task");
    assert_eq!(
        "parent-question".parse::<Capability>(),
        Ok(Capability::ParentQuestion)
    );
    assert_eq!(
        serde_json::to_string(&Provider::Gitlab).unwrap(),
        r#""gitlab""#
    );
    assert_eq!(
        serde_json::from_str::<Surface>(r#""external""#).unwrap(),
        Surface::External
    );
    assert_eq!(format!("[{:>8}]", Provider::Github), "[  github]");
    assert_eq!(
        Capability::NAMES,
        ["user-question", "parent-question", "task-title"]
    );
    assert_eq!(Surface::ALL.len(), 4);
}

#[test]
fn an_unknown_term_names_itself_and_lists_the_valid_ones() {
    let err = "parent-quesiton".parse::<Capability>().unwrap_err();
    assert_eq!(
        err,
        UnknownName::new(
            TermKind::Capability,
            "parent-quesiton",
            &["user-question", "parent-question", "task-title"]
        )
    );
    assert_eq!(
        err.to_string(),
        "unknown capability `parent-quesiton`; expected one of: user-question, parent-question, task-title"
    );
    assert_eq!(
        "bitbucket".parse::<Provider>().unwrap_err().to_string(),
        "unknown provider `bitbucket`; expected one of: github, gitlab"
    );
}

#[test]
fn the_json_form_is_exact() {
    let context = Context::new(Surface::KanbanTask)
        .with_capability(Capability::ParentQuestion)
        .unwrap()
        .with_provider(Provider::Github);
    assert_eq!(
        context.to_json(),
        r#"{"surface":"kanban-task","capabilities":["parent-question"],"providers":["github"]}"#
    );
    assert_eq!(
        Context::new(Surface::External).to_json(),
        r#"{"surface":"external","capabilities":[],"providers":[]}"#
    );
    assert_eq!(Context::from_json(&context.to_json()).unwrap(), context);
}

#[test]
fn empty_sets_may_be_omitted() {
    assert_eq!(
        Context::from_json(r#"{"surface":"office-task"}"#).unwrap(),
        Context::new(Surface::OfficeTask)
    );
}

#[test]
fn order_does_not_matter_and_duplicates_collapse() {
    let a = Context::from_json(
        r#"{"surface":"kanban-task","capabilities":["task-title","user-question","task-title"],
            "providers":["gitlab","github","gitlab"]}"#,
    )
    .unwrap();
    let b = Context::new(Surface::KanbanTask)
        .with_provider(Provider::Github)
        .with_provider(Provider::Gitlab)
        .with_capabilities([Capability::UserQuestion, Capability::TaskTitle])
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a.to_json(),
        r#"{"surface":"kanban-task","capabilities":["user-question","task-title"],"providers":["github","gitlab"]}"#
    );
    assert_eq!(
        a.to_string(),
        "kanban-task +user-question +task-title, providers: github, gitlab"
    );
}

#[test]
fn decoding_errors_name_the_bad_value() {
    assert_eq!(
        decode_error(r#"{"surface":"kanban"}"#),
        "unknown surface `kanban`; expected one of: kanban-task, office-task, configuration, \
         external at line 1 column 19"
    );
    assert_eq!(
        decode_error(r#"{"surface":"kanban-task","capabilities":["parent-quesiton"]}"#),
        "unknown capability `parent-quesiton`; expected one of: user-question, parent-question, \
         task-title at line 1 column 58"
    );
    assert_eq!(
        decode_error(r#"{"surface":"kanban-task","providers":["bitbucket"]}"#),
        "unknown provider `bitbucket`; expected one of: github, gitlab at line 1 column 49"
    );
    assert_eq!(
        decode_error(r#"{"surface":"kanban-task","mode":"task"}"#),
        "unknown field `mode`, expected one of `surface`, `capabilities`, `providers` at line 1 \
         column 31"
    );
    assert_eq!(
        decode_error(r#"{"capabilities":[]}"#),
        "missing field `surface` at line 1 column 19"
    );
    assert_eq!(
        decode_error(
            r#"{"surface":"kanban-task","capabilities":["user-question","parent-question"]}"#
        ),
        "capabilities `user-question` and `parent-question` are mutually exclusive at line 1 \
         column 76"
    );
    assert_eq!(
        decode_error(r#"{"surface":"kanban-task","providers":"github"}"#),
        "invalid type: string \"github\", expected a sequence at line 1 column 45"
    );
    assert_eq!(
        decode_error(r#"{"surface":7}"#),
        "invalid type: integer `7`, expected a surface name at line 1 column 12"
    );
    assert_eq!(
        decode_error(r#"["kanban-task"]"#),
        "invalid type: sequence, expected a profile context object at line 1 column 1"
    );
    assert_eq!(
        decode_error(r#"{"surface":"external","surface":"external"}"#),
        "duplicate field `surface` at line 1 column 31"
    );
    assert_eq!(
        decode_error(r#"{"surface":"external","capabilities":null}"#),
        "invalid type: null, expected a sequence at line 1 column 41"
    );
    assert_eq!(
        decode_error(""),
        "EOF while parsing a value at line 1 column 0"
    );
}

#[test]
fn constructors_refuse_exclusive_capabilities_and_change_nothing() {
    let asking = Context::new(Surface::KanbanTask)
        .with_capability(Capability::UserQuestion)
        .unwrap();
    assert!(matches!(
        asking.with_capability(Capability::ParentQuestion),
        Err(ContextError::Exclusive {
            first: "user-question",
            second: "parent-question"
        })
    ));
    let swapped = asking
        .without_capability(Capability::UserQuestion)
        .with_capability(Capability::ParentQuestion)
        .unwrap();
    assert!(swapped.has_capability(Capability::ParentQuestion));
    assert!(!swapped.has_capability(Capability::UserQuestion));
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
        !(c.has_capability(Capability::UserQuestion)
            && c.has_capability(Capability::ParentQuestion))
    }));
}

#[test]
fn a_decode_error_keeps_its_source() {
    let err = Context::from_json(r#"{"surface":"kanban-tsk"}"#).unwrap_err();
    let ContextError::Json(json) = &err else {
        panic!("expected a JSON error, got {err:?}");
    };
    assert_eq!((json.line(), json.column()), (1, 23));
    let source = std::error::Error::source(&err).expect("the serde_json error");
    assert_eq!(source.to_string(), err.to_string());
}
