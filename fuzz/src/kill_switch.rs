//! The check behind the `kill_switch` fuzz target, shared with the corpus
//! replay test (included with `lib.rs`, so it depends on nothing libFuzzer
//! brings).
//!
//! Input: byte 0 says what is sent: bit 0 `GET` (else `PUT`)
//! `/api/v1/kill-switch`; bit 6 a wrong control token; bit 7 the body
//! declared `text/plain`. (So the ASCII digits `0` and `1` are a `PUT` and
//! a `GET` sent plainly.) Byte 1 `% 3` is the switch before the request:
//! never put (version 0), put once denying one tool group (version 1), or
//! put twice, denying two tools (version 2). The rest is the body.
//!
//! The request goes through the library's control API
//! (`mcp_profiles_serve::control::ControlApi::new(store, token).router()`)
//! over a fresh in-memory store, in-process. Oracle, written from the
//! control module's route table and the store's documented contract, not
//! from its decoders: a wrong token is 401 before anything else; a `GET`
//! answers `{"deny": NAMES, "version": N}`, the names sorted, `[]` and 0
//! before the first put. A `PUT` body is declared JSON (else 415), at most
//! `MAX_BODY_BYTES` (else 413), and a JSON object with exactly the keys
//! `deny` (an array of strings) and `version` (a whole number from 0 to
//! `u64::MAX`), both required, each once (read as [`Json`], which keeps
//! repeated keys), else 400. The put is always a compare-and-set: a name
//! that is not one of Kandev's tools or tool groups, or one given twice, is
//! 400 naming it; a version other than the one in force is 409 naming the
//! one in force (the documentation does not say which of the two refusals
//! a body with both faults gets, so either is accepted); else 200 answering
//! the names sorted at the next version, which the store then holds and
//! every agent is under. A refusal carries an error message and changes
//! nothing.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, header};
use kandev_mcp::Kandev;
use mcp_profiles::Vocabulary;
use mcp_profiles_serve::control::{ControlApi, MAX_BODY_BYTES};
use mcp_profiles_serve::{AgentStore, Attribution, MemoryStore, StoredKillSwitch};
use serde_json::{Value, json};

use super::json::Json;
use super::send;

const CONTROL_TOKEN: &str = "fuzz-control-token";

thread_local! {
    /// One runtime per thread; the store and router are made per input.
    static RUNTIME: RefCell<Option<tokio::runtime::Runtime>> = const { RefCell::new(None) };
}

/// Every name the kill switch may deny: Kandev's tool groups and compiled
/// tools.
fn known_names() -> BTreeSet<&'static str> {
    Kandev::registry()
        .groups()
        .iter()
        .flat_map(|group| std::iter::once(group.name()).chain(group.tools().iter().copied()))
        .collect()
}

/// The switch the store starts from, put `state` times.
fn starting_puts(state: u8) -> Vec<Vec<String>> {
    let registry = Kandev::registry();
    let group = registry.groups()[0].name().to_owned();
    let tools: Vec<String> = registry
        .groups()
        .iter()
        .flat_map(|group| group.tools().iter().map(|&tool| tool.to_owned()))
        .collect();
    let two = vec![tools[tools.len() - 1].clone(), tools[0].clone()];
    [vec![group], two]
        .into_iter()
        .take(usize::from(state))
        .collect()
}

/// The oracle's reading of a `PUT` body: the names and the version, or
/// `None` for a malformed body (400).
fn oracle_body(body: &[u8]) -> Option<(Vec<String>, u64)> {
    let document: Json = serde_json::from_slice(body).ok()?;
    let entries = document.fields(&["deny", "version"])?;
    let field = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let Json::Array(items) = field("deny")? else {
        return None;
    };
    let names = items
        .iter()
        .map(|item| match item {
            Json::Other(Value::String(name)) => Some(name.clone()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let Json::Other(Value::Number(version)) = field("version")? else {
        return None;
    };
    Some((names, version.as_u64()?))
}

fn error(answer: &Value) -> &str {
    answer["error"].as_str().unwrap_or_default()
}

/// Whether `message` names `name` (its first characters, as a message
/// clipping long names still shows them).
fn mentions(message: &str, name: &str) -> bool {
    let head: String = name.chars().take(16).collect();
    message.contains(&format!("`{head}"))
}

/// Fuzz target `kill_switch`.
pub fn check_kill_switch(data: &[u8]) {
    let [how, state, body @ ..] = data else {
        return;
    };
    RUNTIME.with(|cell| {
        let mut cell = cell.borrow_mut();
        let runtime = cell.get_or_insert_with(|| {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a runtime")
        });
        check(runtime, *how, *state % 3, body);
    });
}

fn check(runtime: &tokio::runtime::Runtime, how: u8, state: u8, body: &[u8]) {
    let get = how & 1 != 0;
    let wrong_token = how & 0x40 != 0;
    let plain_text = how & 0x80 != 0;

    let store: Arc<dyn AgentStore<Kandev>> = Arc::new(MemoryStore::<Kandev>::default());
    let profiles = Arc::clone(store.profiles());
    let by = Attribution::new("fuzz", "fuzz-setup").expect("a valid attribution");
    for (at, names) in starting_puts(state).iter().enumerate() {
        runtime
            .block_on(store.put_kill_switch_if(names, Some(at as u64), &by))
            .expect("a valid starting put");
    }
    let stored = || {
        runtime
            .block_on(store.kill_switch())
            .expect("the in-memory store answers")
    };
    let before = stored();
    let (held, at) = before
        .as_ref()
        .map_or((Vec::new(), 0), |s| (s.names.clone(), s.version));
    let app = ControlApi::new(Arc::clone(&store), CONTROL_TOKEN).router();

    let token = if wrong_token {
        "fuzz-control-tokeN"
    } else {
        CONTROL_TOKEN
    };
    let content_type = if plain_text {
        "text/plain"
    } else {
        "application/json"
    };
    let method = if get { "GET" } else { "PUT" };
    let sent = if get { &[][..] } else { body };
    let request = Request::builder()
        .method(method)
        .uri("/api/v1/kill-switch")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(sent.to_vec()))
        .expect("a request");
    let (status, answer) = send(runtime, app, request);
    let status = status.as_u16();
    let after = stored();
    let what = format!("{method} /api/v1/kill-switch: {status} {answer}");

    let refused = |expected: u16| {
        assert_eq!(status, expected, "{what}");
        assert!(!error(&answer).is_empty(), "{what}: no error message");
        assert!(answer["code"].is_string(), "{what}: no code");
        assert_eq!(answer["status"], Value::from(expected), "{what}");
        assert_eq!(after, before, "{what}: a refusal changed the switch");
    };

    if wrong_token {
        return refused(401);
    }
    if get {
        assert_eq!(status, 200, "{what}");
        assert_eq!(answer, json!({ "deny": held, "version": at }), "{what}");
        assert_eq!(after, before, "{what}: a GET changed the switch");
        return;
    }
    if plain_text {
        return refused(415);
    }
    if body.len() > MAX_BODY_BYTES {
        return refused(413);
    }
    let Some((names, version)) = oracle_body(body) else {
        return refused(400);
    };

    let known = known_names();
    let unknown: Vec<&String> = names
        .iter()
        .filter(|name| !known.contains(name.as_str()))
        .collect();
    let mut seen = BTreeSet::new();
    let repeated: Vec<&String> = names
        .iter()
        .filter(|name| !seen.insert(name.as_str()))
        .collect();
    let invalid = !unknown.is_empty() || !repeated.is_empty();
    let stale = version != at;

    if invalid && (!stale || status == 400) {
        refused(400);
        let message = error(&answer);
        let offending = if unknown.is_empty() {
            &repeated
        } else {
            &unknown
        };
        assert!(
            offending.iter().any(|name| mentions(message, name)),
            "{what}: the refusal names none of {offending:?}"
        );
        assert!(message.len() < 1024, "{what}: {} bytes", message.len());
        return;
    }
    if stale {
        refused(409);
        assert!(
            error(&answer).contains(&format!("at version {at},")),
            "{what}: the conflict does not name version {at}"
        );
        return;
    }

    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(status, 200, "{what}");
    assert_eq!(
        answer,
        json!({ "deny": sorted, "version": at + 1 }),
        "{what}"
    );
    assert_eq!(
        after,
        Some(StoredKillSwitch::new(sorted.clone(), at + 1)),
        "{what}: the store holds another switch"
    );
    let in_force: Vec<&str> = profiles.killed().names().to_vec();
    assert_eq!(in_force, sorted, "{what}: another switch is in force");
}
