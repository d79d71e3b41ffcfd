//! The checks behind the fuzz targets, shared with the corpus replay test
//! (`examples/kandev/tests/integration/fuzz_corpus.rs` includes this file as
//! a module, so it depends on nothing libFuzzer brings).
//!
//! Each check takes arbitrary bytes, must never panic on its own account, and
//! asserts that the input either decodes to a valid context (which re-encodes
//! and decodes back equal) or is refused with an error, in agreement with a
//! small independent oracle:
//!
//! - [`check_context_json`]: the bytes are a `ProfileContext<Kandev>` JSON
//!   document. Oracle: the document parsed as plain JSON entries (duplicate
//!   keys kept, `json.rs`) and judged by the rules of the JSON form.
//! - [`check_legacy`]: byte 0 bit 0 is `disable_ask_question`, byte 1 picks a
//!   starting context (`% 96` over `ProfileContext::all()`), the rest (lossy
//!   UTF-8) is a mode on the first line and provider names on the following
//!   ones; `context_for_mode`, `apply_mode` and `apply_providers` run on them.
//!   Oracle: Kandev's mode table as documented in `kandev_mcp::legacy`.
//! - [`check_control`]: byte 0 picks the route (`% 3`: `/profile`, `/mode`,
//!   `/providers`), byte 1 the context in force, the rest is the PUT body,
//!   sent with the right token through `kandev_mcp::control::router`
//!   in-process. Oracle: the body decoded as the route's body type, then the
//!   same operation on the context in force; a 200 must carry and install
//!   the oracle's context, a 400 must carry an error and change nothing.
//!
//! - [`check_plugin_snapshot`] (in `plugin_snapshot.rs`): the bytes are a
//!   plugin-tool snapshot body; see that module.
//! - [`check_gateway_control`] (in `gateway.rs`): a request to the
//!   gateway's control API, decoded by `kandev_mcp::gateway::control`; see
//!   that module.
//! - [`check_kill_switch`] (in `kill_switch.rs`): `GET`/`PUT
//!   /api/v1/kill-switch` of the library's control API; see that module.
//! - [`check_plugin_tools`] (in `plugin_tools.rs`): `GET`/`PUT
//!   /api/v1/mcp/plugin-tools` of Kandev's control API; see that module.
//! - [`check_oauth_router`] (in `oauth_router.rs`): a request to
//!   `mcp_profiles_serve::http::oauth_router` with a fuzzed `Authorization`
//!   header; see that module.
//!
//! Seeds are written with ASCII header bytes: `0`/`1` for the flag or route
//! digit, and any printable character for the context index.

mod gateway;
mod json;
mod kill_switch;
mod oauth_router;
mod plugin_snapshot;
mod plugin_tools;

pub use gateway::check_gateway_control;
pub use kill_switch::check_kill_switch;
pub use oauth_router::check_oauth_router;
pub use plugin_snapshot::check_plugin_snapshot;
pub use plugin_tools::check_plugin_tools;

use std::cell::RefCell;
use std::collections::BTreeSet;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use kandev_mcp::legacy::{self, LegacyError};
use kandev_mcp::{Capability, Kandev, Provider, Surface};
use mcp_profiles::{DenyList, Policy, ProfileContext, ProfileController, Term, Vocabulary};
use serde::Deserialize;
use serde_json::Value;
use tower::ServiceExt;

use self::json::Json;

/// The context at `index`, modulo the number of valid contexts.
fn context_at(index: u8) -> ProfileContext<Kandev> {
    let all: Vec<_> = ProfileContext::<Kandev>::all().collect();
    all[usize::from(index) % all.len()]
}

/// Asserts that `context` survives its JSON form unchanged.
fn assert_round_trips(context: &ProfileContext<Kandev>) {
    let json = context.to_json();
    let back = ProfileContext::<Kandev>::from_json(&json)
        .unwrap_or_else(|err| panic!("{json} does not decode back: {err}"));
    assert_eq!(&back, context, "{json}");
    let holds = |c: Capability| context.has_capability(c);
    for (a, b) in Kandev::EXCLUSIVE {
        assert!(!(holds(*a) && holds(*b)), "{context} holds {a} and {b}");
    }
    // Assembly of any valid context works and is sorted.
    let profile = Kandev::registry().assemble(context);
    assert!(profile.tool_names().windows(2).all(|w| w[0] < w[1]));
}

// ---------------------------------------------------------------------------
// (a) The profile-context JSON decoder.

/// The names of a JSON array of strings, each parsed as a `T`.
fn names<T: Term>(value: &Value) -> Option<Vec<T>> {
    value
        .as_array()?
        .iter()
        .map(|item| {
            let name = item.as_str()?;
            T::ALL.iter().copied().find(|term| term.wire_name() == name)
        })
        .collect()
}

/// What the JSON form's rules say `bytes` decodes to (see [`context_of`]).
fn oracle_context(bytes: &[u8]) -> Option<ProfileContext<Kandev>> {
    context_of(&serde_json::from_slice::<Json>(bytes).ok()?)
}

/// What the JSON form's rules say `document` is: an object with at most
/// one each of `surface` (required, a surface name), `capabilities` and
/// `providers` (arrays of names) and `policy` (see [`policy_of`]), no other
/// key, no exclusive pair.
fn context_of(document: &Json) -> Option<ProfileContext<Kandev>> {
    let entries = document.fields(&["surface", "capabilities", "providers", "policy"])?;
    let field = |key: &str| {
        entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.merged())
    };
    let surface_name = field("surface")?;
    let surface = Surface::ALL
        .iter()
        .copied()
        .find(|s| Some(s.wire_name()) == surface_name.as_str())?;
    let capabilities: Vec<Capability> = match field("capabilities") {
        Some(value) => names(&value)?,
        None => Vec::new(),
    };
    let providers: Vec<Provider> = match field("providers") {
        Some(value) => names(&value)?,
        None => Vec::new(),
    };
    let policy = match entries.iter().find(|(key, _)| key == "policy") {
        Some((_, value)) => policy_of(value)?,
        None => Policy::none(),
    };
    if Kandev::EXCLUSIVE
        .iter()
        .any(|(a, b)| capabilities.contains(a) && capabilities.contains(b))
    {
        return None;
    }
    Some(
        ProfileContext::new(surface)
            .with_capabilities(capabilities)
            .expect("no exclusive pair")
            .with_providers(providers)
            .with_policy(policy),
    )
}

/// What the JSON form's rules say a `policy` value is: an object with at
/// most one each of `read_only` and `no_destructive` (booleans) and `deny`
/// (an array of distinct strings, each the name of a Kandev tool or tool
/// group), no other key.
fn policy_of(value: &Json) -> Option<Policy<Kandev>> {
    let entries = value.fields(&["read_only", "no_destructive", "deny"])?;
    let field = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let flag = |key: &str| match field(key) {
        None => Some(false),
        Some(Json::Other(Value::Bool(flag))) => Some(*flag),
        Some(_) => None,
    };
    let names: Vec<&str> = match field("deny") {
        None => Vec::new(),
        Some(Json::Array(items)) => items
            .iter()
            .map(|item| match item {
                Json::Other(Value::String(name)) => Some(name.as_str()),
                _ => None,
            })
            .collect::<Option<_>>()?,
        Some(_) => return None,
    };
    let registry = Kandev::registry();
    let known: BTreeSet<&str> = registry
        .groups()
        .iter()
        .flat_map(|group| std::iter::once(group.name()).chain(group.tools().iter().copied()))
        .collect();
    let distinct: BTreeSet<&str> = names.iter().copied().collect();
    if distinct.len() != names.len() || !distinct.is_subset(&known) {
        return None;
    }
    let deny = DenyList::new(&names).expect("known, distinct names");
    Some(
        Policy::none()
            .with_read_only(flag("read_only")?)
            .with_no_destructive(flag("no_destructive")?)
            .with_deny(deny),
    )
}

/// Fuzz target `context_json`.
pub fn check_context_json(data: &[u8]) {
    let from_slice = serde_json::from_slice::<ProfileContext<Kandev>>(data);
    let expected = oracle_context(data);
    match std::str::from_utf8(data) {
        Ok(text) => {
            let decoded = ProfileContext::<Kandev>::from_json(text);
            assert_eq!(
                decoded.as_ref().ok(),
                from_slice.as_ref().ok(),
                "from_json and from_slice disagree"
            );
            if let Err(err) = &decoded {
                assert!(!err.to_string().is_empty(), "an error says nothing");
            }
        }
        Err(_) => assert!(from_slice.is_err(), "invalid UTF-8 decoded"),
    }
    match (&from_slice, &expected) {
        (Ok(decoded), Some(expected)) => {
            assert_eq!(decoded, expected, "decoded to another context");
            assert_round_trips(decoded);
        }
        (Ok(decoded), None) => panic!("accepted {decoded}, which the JSON form's rules refuse"),
        (Err(err), Some(expected)) => panic!("refused {expected}: {err}"),
        (Err(_), None) => {}
    }
}

// ---------------------------------------------------------------------------
// (b) The legacy mode and provider mapping.

/// Kandev's modes: surface, capabilities the mode grants, whether it grants
/// `user-question` unless disabled, whether a switch into it keeps the
/// capabilities it does not decide. (The table in `kandev_mcp::legacy`.)
const MODES: &[(&str, Surface, &[Capability], bool, bool)] = &[
    ("task", Surface::KanbanTask, &[], true, true),
    (
        "task-title-pending",
        Surface::KanbanTask,
        &[Capability::TaskTitle],
        true,
        true,
    ),
    ("config", Surface::Configuration, &[], true, true),
    ("office", Surface::OfficeTask, &[], true, true),
    ("external", Surface::External, &[], false, true),
    ("automation", Surface::Automation, &[], false, false),
    ("coordinator", Surface::Coordinator, &[], false, false),
];

/// `start` switched to `mode` by the table: `None` for an unknown mode,
/// `Some(None)` when the result would hold an exclusive pair.
fn oracle_mode(
    start: &ProfileContext<Kandev>,
    mode: &str,
    disable_ask_question: bool,
) -> Option<Option<ProfileContext<Kandev>>> {
    let (_, surface, granted, asks, keeps) = MODES.iter().find(|(name, ..)| *name == mode)?;
    let decided: BTreeSet<Capability> = MODES
        .iter()
        .flat_map(|(_, _, capabilities, ..)| capabilities.iter().copied())
        .chain([Capability::UserQuestion])
        .collect();
    let mut held: BTreeSet<Capability> = start
        .capabilities()
        .filter(|c| *keeps && !decided.contains(c))
        .collect();
    held.extend(granted.iter().copied());
    if *asks && !disable_ask_question {
        held.insert(Capability::UserQuestion);
    }
    if Kandev::EXCLUSIVE
        .iter()
        .any(|(a, b)| held.contains(a) && held.contains(b))
    {
        return Some(None);
    }
    Some(Some(
        ProfileContext::new(*surface)
            .with_capabilities(held)
            .expect("no exclusive pair")
            .with_providers(start.providers()),
    ))
}

/// `start` with exactly the named providers, names trimmed and ASCII
/// lower-cased; `None` if one is unknown.
fn oracle_providers(
    start: &ProfileContext<Kandev>,
    providers: &[&str],
) -> Option<ProfileContext<Kandev>> {
    let providers: Vec<Provider> = providers
        .iter()
        .map(|name| {
            let name = name.trim().to_ascii_lowercase();
            Provider::ALL
                .iter()
                .copied()
                .find(|p| p.wire_name() == name)
        })
        .collect::<Option<_>>()?;
    Some(
        ProfileContext::new(start.surface())
            .with_capabilities(start.capabilities())
            .expect("the start context is valid")
            .with_providers(providers),
    )
}

fn assert_mode_result(
    result: Result<ProfileContext<Kandev>, LegacyError>,
    expected: Option<Option<ProfileContext<Kandev>>>,
    mode: &str,
    what: &str,
) {
    match (result, expected) {
        (Ok(context), Some(Some(expected))) => {
            assert_eq!(context, expected, "{what}({mode:?})");
            assert_round_trips(&context);
        }
        (Err(LegacyError::UnknownMode { mode: named, .. }), None) => {
            assert_eq!(named, mode, "{what}: the error names another mode");
        }
        (Err(LegacyError::Context(_)), Some(None)) => {}
        (result, expected) => panic!("{what}({mode:?}): got {result:?}, expected {expected:?}"),
    }
}

/// Fuzz target `legacy`.
pub fn check_legacy(data: &[u8]) {
    let (flags, index, rest) = match data {
        [flags, index, rest @ ..] => (*flags, *index, rest),
        _ => return,
    };
    let disable = flags & 1 == 1;
    let start = context_at(index);
    let text = String::from_utf8_lossy(rest);
    let mut lines = text.split('\n');
    let mode = lines.next().unwrap_or_default();
    let providers: Vec<&str> = lines.collect();

    let fresh = ProfileContext::new(Surface::KanbanTask);
    let expected_fresh = oracle_mode(&fresh, mode, disable).map(|ctx| {
        // A fresh session holds nothing a mode could clash with, and its
        // surface is the mode's whatever the placeholder surface was.
        Some(ctx.expect("a fresh mode context is always valid"))
    });
    assert_mode_result(
        legacy::context_for_mode(mode, disable),
        expected_fresh,
        mode,
        "context_for_mode",
    );
    assert_mode_result(
        legacy::apply_mode(&start, mode, disable),
        oracle_mode(&start, mode, disable),
        mode,
        "apply_mode",
    );

    match (
        legacy::apply_providers(&start, &providers),
        oracle_providers(&start, &providers),
    ) {
        (Ok(context), Some(expected)) => {
            assert_eq!(context, expected, "apply_providers({providers:?})");
            assert_round_trips(&context);
        }
        (Err(LegacyError::UnknownProvider(err)), None) => {
            assert!(
                providers.contains(&err.value()),
                "the error names {:?}, not one of {providers:?}",
                err.value()
            );
        }
        (result, expected) => {
            panic!("apply_providers({providers:?}): got {result:?}, expected {expected:?}")
        }
    }
}

// ---------------------------------------------------------------------------
// (c) The control API's PUT bodies.

const TOKEN: &str = "fuzz-token";

/// `PUT /api/v1/mcp/mode`'s body, as `kandev_mcp::control` declares it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeBody {
    mode: String,
    #[serde(default)]
    disable_ask_question: bool,
}

/// `PUT /api/v1/mcp/providers`'s body, as `kandev_mcp::control` declares it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProvidersBody {
    mcp_providers: Vec<String>,
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    controller: ProfileController<Kandev>,
    router: axum::Router,
}

thread_local! {
    /// Built once per thread: routes and schemas are costly, requests cheap.
    static HARNESS: RefCell<Option<Harness>> = const { RefCell::new(None) };
}

fn with_harness<R>(f: impl FnOnce(&Harness) -> R) -> R {
    HARNESS.with(|cell| {
        let mut cell = cell.borrow_mut();
        let harness = cell.get_or_insert_with(|| {
            let single =
                kandev_mcp::control::Single::demo(ProfileContext::new(Surface::KanbanTask));
            Harness {
                runtime: tokio::runtime::Builder::new_current_thread()
                    .build()
                    .expect("a runtime"),
                router: kandev_mcp::control::router(single.clone(), TOKEN),
                controller: single.controller(),
            }
        });
        f(harness)
    })
}

/// Sends `request` through `router` in-process: the status and the answer,
/// which every route gives as JSON.
fn send(
    runtime: &tokio::runtime::Runtime,
    router: axum::Router,
    request: Request<Body>,
) -> (StatusCode, Value) {
    runtime.block_on(async {
        let response = router
            .oneshot(request)
            .await
            .expect("the router is infallible");
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("the answer is readable");
        let answer = serde_json::from_slice(&bytes)
            .unwrap_or_else(|err| panic!("{status} with a non-JSON answer: {err}"));
        (status, answer)
    })
}

/// Fuzz target `control`.
pub fn check_control(data: &[u8]) {
    let (route, index, body) = match data {
        [route, index, body @ ..] => (*route % 3, *index, body),
        _ => return,
    };
    with_harness(|harness| {
        let before = harness.controller.replace(context_at(index)).new;
        let path = ["profile", "mode", "providers"][usize::from(route)];
        // The oracle: `Some(Some(c))` installs c, anything else is a 400.
        let expected: Option<Option<ProfileContext<Kandev>>> = match route {
            0 => serde_json::from_slice::<ProfileContext<Kandev>>(body)
                .ok()
                .map(Some),
            1 => serde_json::from_slice::<ModeBody>(body)
                .ok()
                .map(|b| oracle_mode(before.context(), &b.mode, b.disable_ask_question).flatten()),
            _ => serde_json::from_slice::<ProvidersBody>(body).ok().map(|b| {
                let names: Vec<&str> = b.mcp_providers.iter().map(String::as_str).collect();
                oracle_providers(before.context(), &names)
            }),
        };
        if route == 0 {
            // The decoder itself is the oracle here; hold it to the rules.
            assert_eq!(
                expected.flatten(),
                oracle_context(body),
                "the profile decoder disagrees with the JSON form's rules"
            );
        }

        let request = Request::builder()
            .method("PUT")
            .uri(format!("/api/v1/mcp/{path}"))
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_vec()))
            .expect("a request");
        let (status, answer) = send(&harness.runtime, harness.router.clone(), request);
        let after = harness.controller.current();

        match expected.flatten() {
            Some(expected) => {
                assert_eq!(status, StatusCode::OK, "{path}: {answer}");
                assert_eq!(
                    after.context(),
                    &expected,
                    "{path}: another context installed"
                );
                let reported: ProfileContext<Kandev> =
                    serde_json::from_value(answer["profile"].clone())
                        .unwrap_or_else(|err| panic!("{path}: the answer's profile: {err}"));
                assert_eq!(
                    reported, expected,
                    "{path}: the answer names another context"
                );
                assert_round_trips(&reported);
                let tools: Vec<&str> = answer["tools"]
                    .as_array()
                    .expect("tools")
                    .iter()
                    .map(|t| t.as_str().expect("a tool name"))
                    .collect();
                assert_eq!(tools, after.tool_names(), "{path}: the answer's tools");
                assert_eq!(
                    answer["changed"],
                    Value::Bool(!before.same_tools(&after)),
                    "{path}: `changed`"
                );
            }
            None => {
                let limit = kandev_mcp::control::MAX_BODY_BYTES;
                let status_expected = if body.len() > limit {
                    StatusCode::PAYLOAD_TOO_LARGE
                } else {
                    StatusCode::BAD_REQUEST
                };
                assert_eq!(status, status_expected, "{path}: {answer}");
                assert!(
                    answer["error"].as_str().is_some_and(|e| !e.is_empty()),
                    "{path}: a refusal without an error message: {answer}"
                );
                assert_eq!(
                    after.context(),
                    before.context(),
                    "{path}: a refusal changed the profile"
                );
            }
        }
    });
}
