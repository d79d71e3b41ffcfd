//! Claims to profile: scopes narrow the stored profile and never widen it,
//! a step-up scope is asked for by the spec's scope challenge, a ceiling
//! mapping derives the profile from the token, a token mapping to no
//! profile is refused saying why, and a mapping naming what the vocabulary
//! lacks is refused at start.

use mcp_profiles_serve::oauth::{ClaimMapping, OAuth};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::client::{List, Session, http_transport, refused};
use mcp_profiles_tests::raw::RawSession;
use mcp_profiles_tests::waits::LIMIT;
use serde_json::json;

use super::issuer::merged;
use super::resource::{ALICE, MAPPING, Resource, context, initialize, request};

async fn tools(r: &Resource, token: &str) -> Vec<String> {
    let session = Session::connect(http_transport(&r.uri, Some(token))).await;
    session.tool_names().await
}

fn call(tool: &str) -> serde_json::Value {
    mcp_profiles_tests::oauth::probe::call(tool, json!({}))
}

#[tokio::test]
async fn scopes_narrow_the_stored_profile_never_widen_it() {
    let r = Resource::start(MAPPING).await;
    let none = tools(&r, &r.token("")).await;
    let ask = tools(&r, &r.token("tasks:ask")).await;
    let both = tools(&r, &r.token("tasks:ask tasks:title")).await;
    assert!(!none.contains(&"ask_user_question".to_owned()), "{none:?}");
    assert!(!none.contains(&"set_task_title".to_owned()));
    assert!(ask.contains(&"ask_user_question".to_owned()), "{ask:?}");
    assert!(!ask.contains(&"set_task_title".to_owned()));
    assert!(both.contains(&"set_task_title".to_owned()), "{both:?}");
    // The same token always yields the same profile.
    assert_eq!(tools(&r, &r.token("tasks:ask")).await, ask);

    // A scope cannot widen: without `user-question` stored, `tasks:ask`
    // grants nothing.
    r.store.add_agent(
        "alice",
        context(r#"{"surface":"kanban-task","capabilities":["task-title"]}"#),
    );
    let narrowed = tools(&r, &r.token("tasks:ask tasks:title")).await;
    assert!(
        !narrowed.contains(&"ask_user_question".to_owned()),
        "{narrowed:?}"
    );
    assert!(narrowed.contains(&"set_task_title".to_owned()));
}

#[tokio::test]
async fn a_tool_a_step_up_scope_reveals_is_answered_with_the_scope_challenge() {
    let r = Resource::start(MAPPING).await;
    let token = r.token("tasks:ask");
    let session = RawSession::open(&r.uri, &token).await;
    let answer =
        RawSession::post(&r.uri, &token, Some(session.id()), &call("set_task_title")).await;
    assert_eq!(answer.status().as_u16(), 403);
    assert_eq!(
        answer.headers()["www-authenticate"].to_str().unwrap(),
        format!(
            "Bearer resource_metadata=\"{}\", error=\"insufficient_scope\", scope=\"tasks:ask tasks:title\", error_description=\"the tool needs scope tasks:title\"",
            r.metadata_url()
        )
    );

    // A tool hidden for any other reason is unknown, as without OAuth.
    let hidden = Session::connect(http_transport(&r.uri, Some(&token))).await;
    assert_eq!(
        hidden.call("ask_parent_question", None).await,
        refused("ask_parent_question")
    );
    assert_eq!(
        hidden.call("no_such_tool", None).await,
        refused("no_such_tool")
    );

    // With the scope, the call runs on the same session.
    let stepped_up = r.token("tasks:ask tasks:title");
    let answer = RawSession::post(
        &r.uri,
        &stepped_up,
        Some(session.id()),
        &call("set_task_title"),
    )
    .await;
    assert_eq!(answer.status().as_u16(), 200);
    let body = answer.text().await.unwrap();
    assert!(!body.contains("\"error\""), "{body}");
}

#[tokio::test]
async fn a_step_up_scope_the_stored_profile_cannot_use_is_not_asked_for() {
    let r = Resource::start(MAPPING).await;
    r.store.add_agent(
        "alice",
        context(r#"{"surface":"kanban-task","capabilities":["user-question"]}"#),
    );
    let session = Session::connect(http_transport(&r.uri, Some(&r.token("tasks:ask")))).await;
    assert_eq!(
        session.call("set_task_title", None).await,
        refused("set_task_title")
    );
}

#[tokio::test]
async fn a_narrowed_view_follows_the_stored_profile() {
    let r = Resource::start(MAPPING).await;
    let session = Session::connect(http_transport(&r.uri, Some(&r.token("tasks:ask")))).await;
    assert!(
        session
            .tool_names()
            .await
            .contains(&"ask_user_question".to_owned())
    );
    r.store
        .add_agent("alice", context(r#"{"surface":"kanban-task"}"#));
    assert_eq!(
        session
            .wait_for_notifications_of(List::Tools, 1, LIMIT)
            .await,
        1
    );
    assert!(
        !session
            .tool_names()
            .await
            .contains(&"ask_user_question".to_owned())
    );
}

#[tokio::test]
async fn a_token_mapping_to_no_profile_is_refused_with_403_saying_why() {
    // On both stores: agents in memory and in Redis.
    for r in Resource::on_each_store(r#"{"surface_claim": "mcp_surface"}"#, |config| config).await {
        refuses_a_token_mapping_to_no_profile(&r).await;
    }
}

async fn refuses_a_token_mapping_to_no_profile(r: &Resource) {
    let kept = r.kept();
    let cases = [
        (
            json!({ "sub": null, "client_id": null, "mcp_surface": "kanban-task" }),
            "forbidden: the token names no principal (no `sub` or `client_id`)",
        ),
        (
            json!({ "sub": "carol", "mcp_surface": "kanban-task" }),
            "forbidden: principal `carol` has no profile here",
        ),
        (json!({}), "forbidden: the token has no `mcp_surface` claim"),
        (
            json!({ "mcp_surface": "office-task" }),
            "forbidden: the token's surface `office-task` is not principal `alice`'s `kanban-task`",
        ),
        (
            json!({ "mcp_surface": "attic" }),
            "forbidden: the token's `mcp_surface`: unknown surface `attic`; expected one of: kanban-task, office-task, configuration, external",
        ),
    ];
    for (change, why) in cases {
        let token = r.key.sign(&r.claims(change.clone()));
        let (status, _, body) = request(&r.uri, Some(&token), initialize()).await;
        assert_eq!((status, body.as_str()), (403, why), "{change}, {kept}");
    }
    // `client_id` names the principal of a token without `sub`, in a
    // namespace of its own: a client called `alice` is not user alice.
    let client = |client_id: &str| {
        r.key.sign(
            &r.claims(json!({ "sub": null, "client_id": client_id, "mcp_surface": "kanban-task" })),
        )
    };
    let (status, _, body) = request(&r.uri, Some(&client("alice")), initialize()).await;
    assert_eq!(
        (status, body.as_str()),
        (
            403,
            "forbidden: principal `client_id.alice` has no profile here"
        ),
        "{kept}"
    );
    r.put_agent("client_id.alice", ALICE).await;
    assert_eq!(
        request(&r.uri, Some(&client("alice")), initialize())
            .await
            .0,
        200,
        "{kept}"
    );
    // A `sub` that would read as a client's principal is ambiguous.
    let token = r.key.sign(&r.claims(json!({ "sub": "client_id.alice" })));
    let (status, _, body) = request(&r.uri, Some(&token), initialize()).await;
    assert_eq!(
        (status, body.as_str()),
        (
            403,
            "forbidden: the token's `sub` `client_id.alice` would read as a `client_id` principal, and is refused as ambiguous"
        ),
        "{kept}"
    );
}

#[tokio::test]
async fn a_ceiling_mapping_derives_the_profile_from_the_token() {
    let r = Resource::start(
        r#"{
            "profile": {"ceiling": {"surface": "kanban-task", "capabilities": ["task-title"], "providers": ["github"]}},
            "surface_claim": "mcp_surface",
            "providers_claim": "mcp_providers",
            "scopes": {"tasks:title": ["task-title"]}
        }"#,
    )
    .await;
    // No stored agent needed: zed's profile comes from the token.
    let token = |change: serde_json::Value| {
        let zed = json!({ "sub": "zed", "mcp_surface": "kanban-task" });
        r.key.sign(&r.claims(merged(zed, &change)))
    };
    let wide = tools(
        &r,
        &token(json!({ "scope": "tasks:title", "mcp_providers": ["github", "gitlab"] })),
    )
    .await;
    let narrow = tools(
        &r,
        &token(json!({ "scope": "", "mcp_providers": "gitlab" })),
    )
    .await;
    assert!(wide.contains(&"set_task_title".to_owned()), "{wide:?}");
    assert!(
        wide.contains(&"get_pull_request".to_owned()),
        "the ceiling's github: {wide:?}"
    );
    assert!(!narrow.contains(&"set_task_title".to_owned()), "{narrow:?}");
    assert!(
        !narrow.contains(&"get_pull_request".to_owned()),
        "gitlab is above the ceiling"
    );
    // The ceiling's surface is overridden by the claim; the ceiling's
    // capabilities still bound it.
    let office = tools(
        &r,
        &token(json!({ "mcp_surface": "office-task", "scope": "tasks:title" })),
    )
    .await;
    assert!(!office.contains(&"set_task_title".to_owned()), "{office:?}");

    let unknown = token(json!({ "mcp_providers": ["bitbucket"] }));
    let (status, _, body) = request(&r.uri, Some(&unknown), initialize()).await;
    assert_eq!(
        (status, body.as_str()),
        (
            403,
            "forbidden: the token's `mcp_providers`: unknown provider `bitbucket`; expected one of: github, gitlab"
        )
    );
}

#[test]
fn a_mapping_naming_what_the_vocabulary_lacks_is_refused_naming_it() {
    let error = |json: &str| {
        ClaimMapping::<TaskServer>::from_json(json)
            .unwrap_err()
            .to_string()
    };
    assert!(
        error(r#"{"scopes": {"tasks:ask": ["user-questions"]}}"#)
            .contains("unknown capability `user-questions`"),
        "{}",
        error(r#"{"scopes": {"tasks:ask": ["user-questions"]}}"#)
    );
    assert_eq!(
        error(r#"{"scopes": {"tasks:ask": ["user-question"]}, "step_up": ["tasks:title"]}"#),
        "oauth claim mapping: step-up scope `tasks:title` is not one of `scopes`"
    );
    assert!(error(r#"{"scope": {}}"#).contains("unknown field `scope`"));
    assert_eq!(
        error(r#"{"profile": "token"}"#),
        "oauth claim mapping: `profile` must be \"stored\" or {\"ceiling\": <profile context>}, not `\"token\"`"
    );
    assert!(
        error(r#"{"profile": {"ceiling": {"surface": "attic"}}}"#)
            .starts_with("oauth claim mapping: `profile.ceiling`: unknown surface `attic`")
    );
    assert_eq!(
        error(r#"{"scopes": {"tasks ask": ["user-question"]}}"#),
        "oauth claim mapping: scope `tasks ask` is not a single scope token (RFC 6749 §3.3)"
    );
    assert_eq!(
        error(r#"{"principal_claims": []}"#),
        "oauth claim mapping: `principal_claims` names no claim"
    );

    let settings = |claims: &str| {
        format!(
            r#"{{"token": {{"issuer": "https://auth.example.com", "resource": "https://mcp.example.com/mcp"}}, "claims": {claims}}}"#
        )
    };
    assert!(OAuth::<TaskServer>::from_json(&settings(MAPPING)).is_ok());
    let refused =
        OAuth::<TaskServer>::from_json(&settings(r#"{"scopes": {"x": ["nope"]}}"#)).unwrap_err();
    assert!(
        refused.to_string().contains("unknown capability `nope`"),
        "{refused}"
    );
    let refused = OAuth::<TaskServer>::from_json(r#"{"token": {"issuer": "http://auth.example.com", "resource": "https://mcp.example.com/mcp"}}"#).unwrap_err();
    assert!(
        refused.to_string().contains("`issuer` must be https"),
        "{refused}"
    );
}
