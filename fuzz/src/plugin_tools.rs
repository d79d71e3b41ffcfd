//! The check behind the `plugin_tools` fuzz target, shared with the corpus
//! replay test (included with `lib.rs`, so it depends on nothing libFuzzer
//! brings).
//!
//! Input: byte 0 says what is sent: bit 0 `GET` (else `PUT`); bit 1 the
//! gateway's per-agent route, `/api/v1/agents/{principal}/plugin-tools`,
//! with bit 2 naming carol, who has no agent (else alice, a kanban-task
//! agent), instead of Kandev's single-agent `/api/v1/mcp/plugin-tools`;
//! bit 6 a wrong control token; bit 7 the body declared `text/plain`. (So
//! the ASCII digits `0` and `1` are a `PUT` and a `GET` of the single-agent
//! route sent plainly, `2` and `3` of alice's, `6` and `7` of carol's.)
//! Byte 1 `% 3` is the snapshot installed before the request: none, or
//! generation `g1` at revision 5 with one tool offered on `kanban-task` (1)
//! or only on `office-task` (2). The rest is the body.
//!
//! The request goes through Kandev's single-agent control router
//! (`kandev_mcp::control::router` over a fresh `Single::demo`, a
//! kanban-task agent `task-2`, per input) or the gateway's
//! (`kandev_mcp::gateway::control::router`, a fresh in-memory store with
//! Kandev's catalog decoder per input), in-process. Oracle, written from
//! the rules `control/plugins.rs` and
//! `plugins::Snapshot` document, not from the routes' code: a wrong token
//! is 401 before anything else; `GET` answers the installed snapshot
//! (`generation`, `revision`, `tools`), or nulls and `[]` before the first
//! (carol: 404). A `PUT` body is declared JSON (else 415), at most
//! `MAX_SNAPSHOT_BYTES` (else 413), and a snapshot by the wire rules and
//! Kandev's naming rule (the `plugin_snapshot` target's oracle), else 400;
//! then carol's is 404. Two tools with one exposed name collide: 400
//! naming it. A snapshot this oracle calls plain (no schemas, local names
//! of 1 to 20 `[a-z0-9_]`, no collision with each other or with a Kandev
//! tool) is accepted: when its generation is the installed one and its
//! revision is not newer, it is ignored (200, `"changed": false`, the
//! installed generation and revision answered), else installed (200, the
//! session lists Kandev's tools and the snapshot's `kanban-task` tools,
//! sorted, `changed` saying whether that list changed). Both routes'
//! answers also name the principal and its version (one more on each
//! install, the same when ignored). Any other snapshot may also be
//! refused by the catalog checks (names, schemas) with a 400; whichever the
//! answer, a 200 must be what the rules above predict and a refusal must
//! carry an error message and change nothing (installed snapshot, listed
//! tools, version).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, header};
use kandev_mcp::control::{MAX_SNAPSHOT_BYTES, Single, router};
use kandev_mcp::plugins::{Backend, Snapshot, catalog_decoder};
use kandev_mcp::{Kandev, Surface};
use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore};
use serde::Deserialize;
use serde_json::{Value, json};

use super::plugin_snapshot::oracle;
use super::send;

const CONTROL_TOKEN: &str = "fuzz-control-token";

thread_local! {
    /// One runtime per thread; the session and router are made per input.
    static RUNTIME: RefCell<Option<tokio::runtime::Runtime>> = const { RefCell::new(None) };
}

/// The snapshot installed before the request.
fn starting(state: u8) -> Option<Snapshot> {
    let surface = match state {
        1 => "kanban-task",
        2 => "office-task",
        _ => return None,
    };
    let body = json!({
        "generation": "g1",
        "revision": 5,
        "tools": [{
            "plugin_id": "acme",
            "local_name": "search",
            "exposed_name": "kandev_acme_search",
            "description": "Searches.",
            "surfaces": [surface],
        }],
    });
    Some(Snapshot::decode(body.to_string().as_bytes()).expect("a valid starting snapshot"))
}

/// Whether an accepted snapshot's tool is plain: no schema, a short local
/// name of `[a-z0-9_]`.
fn plain_tool(tool: &Value) -> bool {
    let local = tool["local_name"].as_str().unwrap_or_default();
    tool.get("input_schema").is_none_or(Value::is_null)
        && tool.get("output_schema").is_none_or(Value::is_null)
        && (1..=20).contains(&local.len())
        && local
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Every compiled Kandev tool's name.
fn kandev_tools() -> BTreeSet<&'static str> {
    Kandev::registry()
        .groups()
        .iter()
        .flat_map(|group| group.tools().iter().copied())
        .collect()
}

fn error(answer: &Value) -> &str {
    answer["error"].as_str().unwrap_or_default()
}

/// Fuzz target `plugin_tools`.
pub fn check_plugin_tools(data: &[u8]) {
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

fn listed(controller: &ProfileController<Kandev>) -> Vec<String> {
    controller
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

/// The agent the per-agent route serves.
const ALICE: &str = "alice";

/// The single agent's principal (`Single::demo`'s).
const SINGLE: &str = "task-2";

/// What a request reaches: Kandev's single agent (`serve`'s control API
/// over a store of one principal) or a gateway's store with alice's agent;
/// either way a store holding the agent's catalog.
struct Target {
    store: Arc<MemoryStore<Kandev>>,
    principal: &'static str,
    /// The single agent, for `serve`'s router.
    single: Option<Single>,
}

/// What a target holds: the installed snapshot, what the agent's session
/// lists, and the agent's version.
type Held = (Option<Snapshot>, Vec<String>, u64);

impl Target {
    /// A target of each kind, `starting` installed.
    fn new(runtime: &tokio::runtime::Runtime, agents: bool, starting: Option<Snapshot>) -> Self {
        let context = ProfileContext::new(Surface::KanbanTask);
        let target = if agents {
            let store = Arc::new(MemoryStore::new(
                ProfileStore::<Kandev>::default().with_catalogs(catalog_decoder(Backend::none())),
            ));
            store.profiles().add_agent(ALICE, context);
            Target {
                store,
                principal: ALICE,
                single: None,
            }
        } else {
            let single = Single::demo(context);
            Target {
                store: Arc::clone(single.store()),
                principal: SINGLE,
                single: Some(single),
            }
        };
        if let Some(snapshot) = starting {
            let by = Attribution::new("fuzz", "starting").expect("a valid attribution");
            let wire = serde_json::to_value(&snapshot).expect("a snapshot encodes");
            runtime
                .block_on(
                    target
                        .store
                        .put_catalog_if(target.principal, wire, None, &by),
                )
                .expect("the starting snapshot is put");
        }
        target
    }

    fn router(&self) -> axum::Router {
        match &self.single {
            Some(single) => router(single.clone(), CONTROL_TOKEN),
            None => kandev_mcp::gateway::control::router(
                Arc::clone(&self.store) as Arc<_>,
                CONTROL_TOKEN,
            ),
        }
    }

    fn held(&self, runtime: &tokio::runtime::Runtime) -> Held {
        let stored = runtime
            .block_on(self.store.catalog(self.principal))
            .expect("an in-memory store answers")
            .expect("the agent");
        let installed = stored
            .wire
            .and_then(|wire| Snapshot::deserialize(&wire).ok());
        let controller = self
            .store
            .profiles()
            .controller(self.principal)
            .expect("the agent");
        (installed, listed(&controller), stored.version)
    }
}

fn check(runtime: &tokio::runtime::Runtime, how: u8, state: u8, body: &[u8]) {
    let get = how & 1 != 0;
    let agents = how & 2 != 0;
    let missing = agents && how & 4 != 0;
    let wrong_token = how & 0x40 != 0;
    let plain_text = how & 0x80 != 0;

    let target = Target::new(runtime, agents, starting(state));
    let compiled = listed(&ProfileController::<Kandev>::new(ProfileContext::new(
        Surface::KanbanTask,
    )));
    let before = target.held(runtime);

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
    let path = match (agents, missing) {
        (false, _) => "/api/v1/mcp/plugin-tools",
        (true, false) => "/api/v1/agents/alice/plugin-tools",
        (true, true) => "/api/v1/agents/carol/plugin-tools",
    };
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(sent.to_vec()))
        .expect("a request");
    let (status, answer) = send(runtime, target.router(), request);
    let status = status.as_u16();
    let after = target.held(runtime);
    let what = format!("{method} {path}: {status} {answer}");

    let refused = |expected: u16| {
        assert_eq!(status, expected, "{what}");
        assert!(!error(&answer).is_empty(), "{what}: no error message");
        assert_eq!(after, before, "{what}: a refusal changed the plugin tools");
    };

    if wrong_token {
        return refused(401);
    }
    if missing && get {
        return refused(404);
    }
    if get {
        assert_eq!(status, 200, "{what}");
        let expected = match &before.0 {
            Some(snapshot) => json!({
                "generation": snapshot.generation,
                "revision": snapshot.revision,
                "tools": serde_json::to_value(&snapshot.tools).expect("tools encode"),
            }),
            None => json!({ "generation": null, "revision": null, "tools": [] }),
        };
        assert_eq!(answer, expected, "{what}");
        assert_eq!(after, before, "{what}: a GET changed the plugin tools");
        return;
    }
    if plain_text {
        return refused(415);
    }
    if body.len() > MAX_SNAPSHOT_BYTES {
        return refused(413);
    }
    let Some(exposed) = oracle(body) else {
        return refused(400);
    };
    if missing {
        return refused(404);
    }

    let document: Value = serde_json::from_slice(body).expect("the oracle read it");
    let tools = document["tools"].as_array().cloned().unwrap_or_default();
    let mut seen = BTreeSet::new();
    let collided: Vec<&String> = exposed
        .iter()
        .filter(|name| !seen.insert(name.as_str()))
        .collect();
    if !collided.is_empty() {
        refused(400);
        assert!(
            collided
                .iter()
                .any(|name| error(&answer).contains(name.as_str())),
            "{what}: the refusal names none of {collided:?}"
        );
        return;
    }
    let kandev = kandev_tools();
    let plain =
        tools.iter().all(plain_tool) && exposed.iter().all(|n| !kandev.contains(n.as_str()));
    if status != 200 {
        assert!(!plain, "{what}: a plain snapshot was refused");
        return refused(400);
    }

    // Accepted: ignored as stale, or installed.
    let generation = document["generation"].as_str().expect("a generation");
    let revision = document["revision"].as_u64().unwrap_or(0);
    let stale = before.0.as_ref().is_some_and(|installed| {
        installed.generation == generation && revision <= installed.revision
    });
    if stale {
        let installed = before.0.as_ref().expect("stale against an installed one");
        let mut expected = json!({
            "generation": installed.generation,
            "revision": installed.revision,
            "tools": before.1,
            "changed": false,
        });
        expected["principal"] = json!(target.principal);
        expected["version"] = json!(before.2);
        assert_eq!(answer, expected, "{what}: a stale snapshot was not ignored");
        assert_eq!(after, before, "{what}: a stale snapshot changed something");
        return;
    }
    let mut expected_tools: Vec<String> = tools
        .iter()
        .zip(&exposed)
        .filter(|(tool, _)| {
            tool["surfaces"]
                .as_array()
                .is_some_and(|s| s.iter().any(|s| s == "kanban-task"))
        })
        .map(|(_, name)| name.clone())
        .chain(compiled.iter().cloned())
        .collect();
    expected_tools.sort();
    let mut expected = json!({
        "generation": generation,
        "revision": revision,
        "tools": expected_tools,
        "changed": expected_tools != before.1,
    });
    expected["principal"] = json!(target.principal);
    expected["version"] = json!(before.2 + 1);
    assert_eq!(after.2, before.2 + 1, "{what}: the agent's version");
    assert_eq!(answer, expected, "{what}");
    assert_eq!(
        after.1, expected_tools,
        "{what}: the session lists other tools"
    );
    let installed = after.0.expect("a snapshot is installed");
    assert_eq!(
        serde_json::to_value(&installed).expect("a snapshot encodes"),
        serde_json::to_value(Snapshot::decode(body).expect("the oracle accepted it"))
            .expect("a snapshot encodes"),
        "{what}: another snapshot is installed"
    );
}
