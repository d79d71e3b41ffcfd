//! The check behind the `gateway_control` fuzz target, shared with the
//! corpus replay test (included with `lib.rs`, so it depends on nothing
//! libFuzzer brings).
//!
//! Input: byte 0 says what is sent: its low 3 bits `% 5` the route (`PUT`,
//! `GET`, `DELETE` `/api/v1/agents/{principal}`, `POST /api/v1/tokens`,
//! `POST /api/v1/tokens/revoke`); bit 3 percent-encodes every byte of the
//! principal (else only the bytes outside RFC 3986's unreserved set); bit 6
//! sends a wrong control token; bit 7 declares the body `text/plain`. (So
//! the ASCII digits `0` to `4` are the five routes sent plainly, `8` and
//! `9` a `PUT` and a `GET` with the name fully encoded.) Byte 1 `% 3` is
//! alice's version before the request (`0`: no agent); bob is at version 1;
//! `alice-token` (if alice exists) and `bob-token` are granted. The rest is
//! the principal's bytes, a newline, and the body.
//!
//! The request goes through `kandev_mcp::gateway::control::router` over a
//! fresh in-memory store, in-process. Oracle, written from the route table
//! and the rules the control module documents, not from its decoders: the
//! routes answer 404 for an empty principal and 401 for a wrong token
//! before anything else; a principal is 1 to 128 bytes of
//! `[A-Za-z0-9._@-]`, and neither `.` nor `..`; a token is 1 to 1024 bytes
//! of visible ASCII; a body is declared JSON (else 415) and is a JSON
//! object with exactly its documented keys, each once (read as [`Json`],
//! which keeps repeated keys), `profile` judged by [`super::context_of`],
//! `version` a whole number from 0 to `u64::MAX`. The status must be the
//! one the oracle expects, a 200 must report what the store now holds, a
//! refusal must carry an error message and change nothing, and the store
//! must hold exactly what the oracle says afterwards.

use std::cell::RefCell;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, header};
use kandev_mcp::gateway::control::{MAX_PRINCIPAL_BYTES, MAX_TOKEN_BYTES, router};
use kandev_mcp::{Kandev, Surface};
use mcp_profiles::{ProfileContext, Vocabulary};
use mcp_profiles_serve::{AgentStore, MemoryStore};
use serde_json::Value;

use super::json::Json;
use super::{context_of, send};

const CONTROL_TOKEN: &str = "fuzz-control-token";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Put,
    Get,
    Delete,
    Grant,
    Revoke,
}

/// One decoded fuzz input.
#[derive(Debug)]
struct Input<'a> {
    route: Route,
    encode_all: bool,
    wrong_token: bool,
    plain_text: bool,
    alice_version: u64,
    name: &'a [u8],
    body: &'a [u8],
}

fn input(data: &[u8]) -> Option<Input<'_>> {
    let [how, state, rest @ ..] = data else {
        return None;
    };
    let route = [
        Route::Put,
        Route::Get,
        Route::Delete,
        Route::Grant,
        Route::Revoke,
    ][usize::from((how & 7) % 5)];
    let (name, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    Some(Input {
        route,
        encode_all: how & 8 != 0,
        wrong_token: how & 0x40 != 0,
        plain_text: how & 0x80 != 0,
        alice_version: u64::from(state % 3),
        name,
        body,
    })
}

/// `name` as a path segment: every byte percent-encoded, or those outside
/// the unreserved set.
fn segment(name: &[u8], encode_all: bool) -> String {
    name.iter()
        .map(|&byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' if !encode_all => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// The principal-name rule.
fn valid_principal(name: &str) -> bool {
    (1..=MAX_PRINCIPAL_BYTES).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._@-".contains(&b))
        && name != "."
        && name != ".."
}

/// The token rule.
fn valid_token(token: &str) -> bool {
    (1..=MAX_TOKEN_BYTES).contains(&token.len())
        && token.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// The string value of `key` among `entries`, if it is one.
fn string_field<'a>(entries: &'a [(String, Json)], key: &str) -> Option<&'a str> {
    match entries.iter().find(|(k, _)| k == key)? {
        (_, Json::Other(Value::String(text))) => Some(text),
        _ => None,
    }
}

/// A body the oracle accepts.
#[derive(Debug)]
enum Accepted {
    Put {
        context: ProfileContext<Kandev>,
        version: Option<u64>,
    },
    Grant {
        token: String,
        principal: String,
    },
    Revoke {
        token: String,
    },
}

/// The oracle's reading of `body` for `route`: `None` if it is refused as
/// malformed (400).
fn oracle_body(route: Route, body: &[u8]) -> Option<Accepted> {
    let document: Json = serde_json::from_slice(body).ok()?;
    match route {
        Route::Put => {
            let entries = document.fields(&["profile", "version"])?;
            let profile = &entries.iter().find(|(k, _)| k == "profile")?.1;
            let version = match entries.iter().find(|(k, _)| k == "version") {
                None => None,
                Some((_, Json::Other(Value::Number(number)))) => Some(number.as_u64()?),
                Some(_) => return None,
            };
            Some(Accepted::Put {
                context: context_of(profile)?,
                version,
            })
        }
        Route::Grant => {
            let entries = document.fields(&["token", "principal"])?;
            Some(Accepted::Grant {
                token: string_field(entries, "token")?.to_owned(),
                principal: string_field(entries, "principal")?.to_owned(),
            })
        }
        Route::Revoke => {
            let entries = document.fields(&["token"])?;
            Some(Accepted::Revoke {
                token: string_field(entries, "token")?.to_owned(),
            })
        }
        Route::Get | Route::Delete => unreachable!("no body"),
    }
}

/// An agent as the store holds it: its version and context (`None`: no
/// agent).
type Held = Option<(u64, ProfileContext<Kandev>)>;

/// What the store holds for the principals and tokens a check looks at.
#[derive(Debug, PartialEq)]
struct State {
    agents: Vec<(String, Held)>,
    tokens: Vec<(String, Option<String>)>,
}

thread_local! {
    /// One runtime per thread; the store and router are made per input.
    static RUNTIME: RefCell<Option<tokio::runtime::Runtime>> = const { RefCell::new(None) };
}

fn state(
    runtime: &tokio::runtime::Runtime,
    store: &MemoryStore<Kandev>,
    principals: &[String],
    tokens: &[String],
) -> State {
    let agents = principals
        .iter()
        .map(|name| {
            let agent = runtime
                .block_on(store.agent(name))
                .expect("the in-memory store answers");
            let held = agent.map(|agent| (agent.version, *agent.profile.context()));
            (name.clone(), held)
        })
        .collect();
    let tokens = tokens
        .iter()
        .map(|token| {
            let named = store
                .profiles()
                .principal(token)
                .map(|p| p.name().to_owned());
            (token.clone(), named)
        })
        .collect();
    State { agents, tokens }
}

fn task_context() -> ProfileContext<Kandev> {
    ProfileContext::from_json(r#"{"surface":"kanban-task","capabilities":["user-question"]}"#)
        .expect("a valid context")
}

/// The compiled tool names of `context`, as an answer lists them.
fn tools(context: &ProfileContext<Kandev>) -> Value {
    Value::from(Kandev::registry().assemble(context).tool_names())
}

/// The fixed texts of a token refusal: a token found in one of them may
/// appear in the message without having been echoed.
const TOKEN_TEXTS: [&str; 2] = [
    "`token` must be 1 to 1024 bytes",
    "`token`'s character  is not visible ASCII (0x21-0x7E), so no client could present it",
];

/// Fuzz target `gateway_control`.
pub fn check_gateway_control(data: &[u8]) {
    let Some(input) = input(data) else {
        return;
    };
    RUNTIME.with(|cell| {
        let mut cell = cell.borrow_mut();
        let runtime = cell.get_or_insert_with(|| {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a runtime")
        });
        check(runtime, &input);
    });
}

fn check(runtime: &tokio::runtime::Runtime, input: &Input<'_>) {
    let store = Arc::new(MemoryStore::<Kandev>::default());
    let profiles = store.profiles();
    for _ in 0..input.alice_version {
        profiles.add_agent("alice", task_context());
    }
    profiles.add_agent("bob", ProfileContext::new(Surface::OfficeTask));
    if input.alice_version > 0 {
        profiles
            .grant("alice-token", "alice")
            .expect("alice exists");
    }
    profiles.grant("bob-token", "bob").expect("bob exists");
    let app = router(Arc::clone(&store) as Arc<_>, CONTROL_TOKEN);

    let name = std::str::from_utf8(input.name).ok();
    let has_path = matches!(input.route, Route::Put | Route::Get | Route::Delete);
    let has_body = !matches!(input.route, Route::Get | Route::Delete);
    let body = if has_body { input.body } else { &[][..] };
    let oracle = has_body.then(|| oracle_body(input.route, body)).flatten();

    // Who and what the check looks at, before and after.
    let mut principals = vec!["alice".to_owned(), "bob".to_owned()];
    let mut tokens = vec!["alice-token".to_owned(), "bob-token".to_owned()];
    if let Some(name) = name.filter(|_| has_path) {
        principals.push(name.to_owned());
    }
    match &oracle {
        Some(Accepted::Grant { token, principal }) => {
            principals.push(principal.clone());
            tokens.push(token.clone());
        }
        Some(Accepted::Revoke { token }) => tokens.push(token.clone()),
        _ => {}
    }
    let before = state(runtime, &store, &principals, &tokens);

    let (method, path) = match input.route {
        Route::Put => ("PUT", None),
        Route::Get => ("GET", None),
        Route::Delete => ("DELETE", None),
        Route::Grant => ("POST", Some("/api/v1/tokens")),
        Route::Revoke => ("POST", Some("/api/v1/tokens/revoke")),
    };
    let path = path.map_or_else(
        || format!("/api/v1/agents/{}", segment(input.name, input.encode_all)),
        str::to_owned,
    );
    let token = if input.wrong_token {
        "fuzz-control-tokeN"
    } else {
        CONTROL_TOKEN
    };
    let content_type = if input.plain_text {
        "text/plain"
    } else {
        "application/json"
    };
    let request = Request::builder()
        .method(method)
        .uri(&path)
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body.to_vec()))
        .expect("a request");
    let (status, answer) = send(runtime, app, request);
    let status = status.as_u16();
    let after = state(runtime, &store, &principals, &tokens);
    let what = format!("{method} {path}: {status} {answer}");

    // The refusals that come before the body, in the order the oracle
    // documents: routing, the control token, the principal in the path, the
    // declared type, the size.
    let refusal = if has_path && input.name.is_empty() {
        Some(404)
    } else if input.wrong_token {
        Some(401)
    } else if has_path && !name.is_some_and(valid_principal) {
        Some(400)
    } else if has_body && input.plain_text {
        Some(415)
    } else if body.len() > kandev_mcp::control::MAX_BODY_BYTES {
        Some(413)
    } else if has_body && oracle.is_none() {
        Some(400)
    } else {
        None
    };
    if let Some(expected) = refusal {
        assert_eq!(status, expected, "{what}");
        refused(&answer, &what);
        assert_eq!(after, before, "{what}: a refusal changed the store");
        if expected == 400
            && has_path
            && let Some(name) = name.filter(|name| !valid_principal(name))
        {
            assert_names_principal(&answer, name, &what);
        }
        return;
    }

    let name = name.unwrap_or_default();
    let held = |state: &State, principal: &str| {
        state
            .agents
            .iter()
            .find(|(p, _)| p == principal)
            .and_then(|(_, held)| *held)
    };
    let mut expected_after = before;
    let set_agent = |state: &mut State, principal: &str, value: Held| {
        for (p, held) in &mut state.agents {
            if p == principal {
                *held = value;
            }
        }
    };
    match (input.route, oracle) {
        (Route::Put, Some(Accepted::Put { context, version })) => {
            let current = held(&expected_after, name);
            let at = current.map_or(0, |(version, _)| version);
            if version.is_some_and(|expected| expected != at) {
                assert_eq!(status, 409, "{what}");
                refused(&answer, &what);
                assert!(
                    error(&answer).contains(&format!("at version {at},")),
                    "{what}"
                );
            } else {
                assert_eq!(status, 200, "{what}");
                assert_eq!(answer["principal"], Value::from(name), "{what}");
                assert_eq!(answer["version"], Value::from(at + 1), "{what}");
                assert_reports(&answer, &context, &what);
                let changed = current.is_none_or(|(_, old)| tools(&old) != tools(&context));
                assert_eq!(answer["changed"], Value::Bool(changed), "{what}");
                set_agent(&mut expected_after, name, Some((at + 1, context)));
            }
        }
        (Route::Get, None) => match held(&expected_after, name) {
            Some((version, context)) => {
                assert_eq!(status, 200, "{what}");
                assert_eq!(answer["principal"], Value::from(name), "{what}");
                assert_eq!(answer["version"], Value::from(version), "{what}");
                assert_reports(&answer, &context, &what);
            }
            None => {
                assert_eq!(status, 404, "{what}");
                assert_eq!(error(&answer), format!("no agent `{name}`"), "{what}");
            }
        },
        (Route::Delete, None) => match held(&expected_after, name) {
            Some(_) => {
                assert_eq!(status, 200, "{what}");
                let removed = serde_json::json!({ "principal": name, "removed": true });
                assert_eq!(answer, removed, "{what}");
                set_agent(&mut expected_after, name, None);
                for (_, named) in &mut expected_after.tokens {
                    if named.as_deref() == Some(name) {
                        *named = None;
                    }
                }
            }
            None => {
                assert_eq!(status, 404, "{what}");
                assert_eq!(error(&answer), format!("no agent `{name}`"), "{what}");
            }
        },
        (Route::Grant, Some(Accepted::Grant { token, principal })) => {
            if !valid_principal(&principal) {
                assert_eq!(status, 400, "{what}");
                assert_names_principal(&answer, &principal, &what);
            } else if !valid_token(&token) {
                assert_eq!(status, 400, "{what}");
                assert_token_refusal(&answer, &token, &what);
            } else if held(&expected_after, &principal).is_none() {
                assert_eq!(status, 400, "{what}");
                assert!(
                    error(&answer).starts_with(&format!("unknown principal `{principal}`")),
                    "{what}"
                );
            } else {
                assert_eq!(status, 200, "{what}");
                let granted = serde_json::json!({ "principal": principal, "granted": true });
                assert_eq!(answer, granted, "{what}");
                for (t, named) in &mut expected_after.tokens {
                    if *t == token {
                        *named = Some(principal.clone());
                    }
                }
            }
        }
        (Route::Revoke, Some(Accepted::Revoke { token })) => {
            if !valid_token(&token) {
                assert_eq!(status, 400, "{what}");
                assert_token_refusal(&answer, &token, &what);
            } else {
                assert_eq!(status, 200, "{what}");
                let granted = expected_after
                    .tokens
                    .iter()
                    .any(|(t, named)| *t == token && named.is_some());
                assert_eq!(answer, serde_json::json!({ "revoked": granted }), "{what}");
                for (t, named) in &mut expected_after.tokens {
                    if *t == token {
                        *named = None;
                    }
                }
            }
        }
        (route, oracle) => unreachable!("{route:?} with {oracle:?}"),
    }
    assert_eq!(
        after, expected_after,
        "{what}: the store holds something else"
    );
}

fn error(answer: &Value) -> &str {
    answer["error"].as_str().unwrap_or_default()
}

/// A refusal carries `{"error", "code", "status"}` and, for a body that
/// does not decode, `"pointer"`; nothing else.
fn refused(answer: &Value, what: &str) {
    assert!(!error(answer).is_empty(), "{what}: no error message");
    assert!(answer["code"].is_string(), "{what}: no code");
    assert!(answer["status"].is_u64(), "{what}: no status");
    let keys = answer.as_object().map_or(0, |object| object.len());
    let expected = 3 + usize::from(answer.get("pointer").is_some());
    assert_eq!(keys, expected, "{what}: other keys in {answer}");
}

/// A 200 reports `context`, its tools, as the oracle builds them.
fn assert_reports(answer: &Value, context: &ProfileContext<Kandev>, what: &str) {
    let reported: ProfileContext<Kandev> = serde_json::from_value(answer["profile"].clone())
        .unwrap_or_else(|err| panic!("{what}: the answer's profile: {err}"));
    assert_eq!(
        &reported, context,
        "{what}: the answer names another context"
    );
    assert_eq!(
        answer["tools"],
        tools(context),
        "{what}: the answer's tools"
    );
}

/// The refusal names principal `name`, escaped and clipped.
fn assert_names_principal(answer: &Value, name: &str, what: &str) {
    let message = error(answer);
    let head: String = name.chars().take(8).collect();
    assert!(
        message.starts_with("principal `") && message.contains(&head.escape_debug().to_string()),
        "{what}: the refusal does not name {name:?}"
    );
    assert!(message.len() < 1024, "{what}: {} bytes", message.len());
}

/// The refusal is about the token and never shows it.
fn assert_token_refusal(answer: &Value, token: &str, what: &str) {
    let message = error(answer);
    assert!(message.starts_with("`token`"), "{what}");
    let fixed = TOKEN_TEXTS.iter().any(|text| text.contains(token));
    if token.len() >= 8 && !fixed {
        assert!(
            !message.contains(token),
            "{what}: the refusal shows the token"
        );
    }
}
