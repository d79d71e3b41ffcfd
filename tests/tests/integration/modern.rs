//! MCP 2026-07-28 next to 2025-era sessions: list_changed only on a
//! `subscriptions/listen` stream that asked for it, stateless HTTP with the
//! profile looked up per request (per principal on a multi-agent server),
//! and cache hints on `tools/list`.

use std::sync::Arc;
use std::time::Duration;

use mcp_profiles::ProfileController;
use mcp_profiles_serve::ProfileStore;
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::client::{Session, serve_agents};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::modern::{
    LIMIT, Modern, ModernSession, QUIET, expect_one_list_changed, expect_silence,
};
use mcp_profiles_tests::raw::RawSession;
use rmcp::model::{CacheScope, ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use tokio::sync::watch;

async fn duplex_modern(controller: &ProfileController<TaskServer>) -> ModernSession {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = controller.server(TaskServer::default());
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    ModernSession::connect(client_io).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplex_subscribers_get_one_notification_and_others_none() {
    let controller = ProfileController::<TaskServer>::new(asking());
    let subscribed = duplex_modern(&controller).await;
    let mut subscription = subscribed.subscribe().await;
    let unsubscribed = duplex_modern(&controller).await;
    assert_eq!(unsubscribed.tool_names().await, names_of(&asking()));

    assert!(controller.replace(child()).changed());
    expect_one_list_changed(&mut subscription).await;
    assert_eq!(subscribed.tool_names().await, names_of(&child()));
    assert_eq!(unsubscribed.tool_names().await, names_of(&child()));
    assert_eq!(subscribed.unsolicited() + unsubscribed.unsolicited(), 0);

    // An equal tool set sends nothing, even to subscribers.
    assert!(!controller.replace(child()).changed());
    expect_silence(&mut subscription).await;
}

/// This server implements `subscriptions/listen` (it advertises
/// `tools.listChanged`), so a stream asking only for what the handler does
/// not serve is acknowledged, not refused as an unknown method (the
/// conformance suite's notification-filter check), and hears no tool change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_without_tools_is_acknowledged_and_hears_no_tool_change() {
    let controller = ProfileController::<TaskServer>::new(asking());
    let session = duplex_modern(&controller).await;
    let filter = SubscriptionFilter::builder().prompts_list_changed().build();
    let mut subscription = session
        .service
        .listen(filter)
        .await
        .expect("subscriptions/listen is acknowledged");
    assert_ne!(subscription.acknowledged().tools_list_changed, Some(true));

    assert!(controller.replace(child()).changed());
    expect_silence(&mut subscription).await;
    assert_eq!(session.unsolicited(), 0);
}

/// rmcp acknowledges a stream before `listen` registers it: a replacement
/// made as soon as the client holds the acknowledgement must still reach the
/// stream, exactly once. A race: on a loaded machine, streams registered
/// after a replacement or two used to miss them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replacement_right_after_the_acknowledgement_reaches_the_stream_once() {
    for _ in 0..6 {
        replacements_right_after_acknowledgements(40).await;
    }
}

/// `rounds` times: a new stream, then at once a replacement. The stream of
/// round r hears the replacements of rounds r.., once each, and nothing else.
async fn replacements_right_after_acknowledgements(rounds: usize) {
    let controller = ProfileController::<TaskServer>::new(asking());
    let mut streams = Vec::new();
    for round in 0..rounds {
        let session = duplex_modern(&controller).await;
        let subscription = session.subscribe().await;
        let next = if round % 2 == 0 { child() } else { asking() };
        assert!(controller.replace(next).changed());
        streams.push((session, subscription));
    }
    for (round, (_, subscription)) in streams.iter_mut().enumerate() {
        for _ in round..rounds {
            let next = tokio::time::timeout(LIMIT, subscription.next())
                .await
                .unwrap_or_else(|_| panic!("round {round}: a list_changed went missing"));
            assert!(
                matches!(
                    next,
                    Ok(Some(ServerNotification::ToolListChangedNotification(_)))
                ),
                "round {round}: {next:?}"
            );
        }
    }
    tokio::time::sleep(QUIET).await;
    for (round, (_, subscription)) in streams.iter_mut().enumerate() {
        // Polled once: anything already delivered is one too many.
        if let Ok(extra) = tokio::time::timeout(Duration::ZERO, subscription.next()).await {
            panic!("round {round}: one notification too many: {extra:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_subscription_is_dropped() {
    let controller = ProfileController::<TaskServer>::new(asking());
    let session = duplex_modern(&controller).await;
    let subscription = session.subscribe().await;
    let registered = async {
        while controller.session_count() != 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(LIMIT, registered)
        .await
        .expect("the stream registers");
    drop(subscription);
    let dropped = async {
        while controller.session_count() != 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(LIMIT, dropped)
        .await
        .expect("the closed stream is forgotten");
    assert_eq!(controller.replace(child()).notified_sessions, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_carries_private_cache_hints() {
    let controller = ProfileController::<TaskServer>::new(asking());
    let session = duplex_modern(&controller).await;
    let result = session.service.list_tools(None).await.unwrap();
    assert_eq!(result.ttl_ms, Some(0));
    assert_eq!(result.cache_scope, Some(CacheScope::Private));

    let cached = ProfileController::<TaskServer>::new(asking());
    cached.set_list_ttl(Duration::from_secs(30));
    let session = duplex_modern(&cached).await;
    let result = session.service.list_tools(None).await.unwrap();
    assert_eq!(result.ttl_ms, Some(30_000));
}

/// A subscribed client that caches lists for as long as the server allows
/// still never serves a stale list after a notification.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caching_subscriber_never_serves_a_stale_list_after_a_notification() {
    let controller = ProfileController::<TaskServer>::new(asking());
    controller.set_list_ttl(Duration::from_secs(3600));
    let session = duplex_modern(&controller).await;
    let mut subscription = session.subscribe().await;
    let unsubscribed = duplex_modern(&controller).await;
    assert_eq!(session.tool_names().await, names_of(&asking()));
    assert_eq!(unsubscribed.tool_names().await, names_of(&asking()));
    controller.replace(child());
    expect_one_list_changed(&mut subscription).await;
    assert_eq!(session.tool_names().await, names_of(&child()));
    // Why the default TTL is zero: a caching client nobody told still serves
    // the old list.
    assert_eq!(unsubscribed.tool_names().await, names_of(&asking()));
}

fn http_transport(
    uri: &str,
    token: Option<&str>,
) -> StreamableHttpClientTransport<reqwest::Client> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(uri.to_owned());
    if let Some(token) = token {
        config = config.auth_header(token.to_owned());
    }
    StreamableHttpClientTransport::from_config(config)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_http_serves_both_eras_from_one_cell() {
    let controller = ProfileController::<TaskServer>::new(asking());
    let (http, uri) =
        mcp_profiles_tests::client::serve_http(controller.server(TaskServer::default())).await;
    let subscribed = ModernSession::connect(http_transport(&uri, None)).await;
    let mut subscription = subscribed.subscribe().await;
    let unsubscribed = ModernSession::connect(http_transport(&uri, None)).await;
    let legacy = Session::connect(http_transport(&uri, None)).await;
    assert_eq!(unsubscribed.tool_names().await, names_of(&asking()));

    assert!(controller.replace(child()).changed());
    expect_one_list_changed(&mut subscription).await;
    assert_eq!(legacy.wait_for_notifications(1, LIMIT).await, 1);
    tokio::time::sleep(QUIET).await;
    assert_eq!(legacy.notifications(), 1);
    assert_eq!(unsubscribed.unsolicited(), 0);
    for names in [
        subscribed.tool_names().await,
        unsubscribed.tool_names().await,
        legacy.tool_names().await,
    ] {
        assert_eq!(names, names_of(&child()));
    }
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn principals_hold_their_own_profiles_on_one_http_server() {
    let (store, alice, bob) = alice_and_bob();
    assert!(store.grant("carol-token", "carol").is_err());
    let (http, uri) = serve_agents(&store, TaskServer::default()).await;

    let alice_client = ModernSession::connect(http_transport(&uri, Some("alice-token"))).await;
    let mut alice_events = alice_client.subscribe().await;
    let bob_client = ModernSession::connect(http_transport(&uri, Some("bob-token"))).await;
    let mut bob_events = bob_client.subscribe().await;
    let alice_legacy = Session::connect(http_transport(&uri, Some("alice-token"))).await;

    assert!(alice.replace(child()).changed());
    expect_one_list_changed(&mut alice_events).await;
    assert_eq!(alice_legacy.wait_for_notifications(1, LIMIT).await, 1);
    expect_silence(&mut bob_events).await;
    assert_eq!(alice_client.tool_names().await, names_of(&child()));
    assert_eq!(alice_legacy.tool_names().await, names_of(&child()));
    assert_eq!(bob_client.tool_names().await, names_of(&asking()));
    assert_eq!(bob.current().context(), &asking());

    // Unknown and missing tokens are refused before MCP sees them.
    for token in [Some("mallory-token"), None] {
        let refused = Modern {
            unsolicited: watch::channel(0).0,
        }
        .serve_with_lifecycle(
            http_transport(&uri, token),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await;
        assert!(refused.is_err(), "token {token:?} was let in");
        expect_unauthorised(&uri, token).await;
    }

    // Revoking a token shuts its bearer out; the other principal is unaffected.
    store.revoke("bob-token");
    let bob_again = Modern {
        unsolicited: watch::channel(0).0,
    }
    .serve_with_lifecycle(
        http_transport(&uri, Some("bob-token")),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await;
    assert!(bob_again.is_err());
    expect_unauthorised(&uri, Some("bob-token")).await;
    // And what bob had open ends.
    let ended = tokio::time::timeout(LIMIT, bob_events.next()).await;
    assert!(!matches!(ended, Ok(Ok(Some(_)))), "{ended:?}");
    assert_eq!(alice_client.tool_names().await, names_of(&child()));
    drop(Arc::clone(&store));
    http.shutdown().await.unwrap();
}

/// Panics unless a `tools/list` bearing `token` (or none) is refused with
/// 401, the `Bearer` challenge and the refusal's text, before MCP sees it.
async fn expect_unauthorised(uri: &str, token: Option<&str>) {
    let mut request = reqwest::Client::new()
        .post(uri)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    let challenge = answer.headers().get("www-authenticate").cloned();
    let text = answer.text().await.unwrap();
    assert_eq!(
        (
            status,
            challenge.as_ref().and_then(|value| value.to_str().ok()),
            text.as_str()
        ),
        (401, Some("Bearer"), "missing or unknown bearer token"),
        "token {token:?}"
    );
}

/// A store with agents `alice` and `bob`, both asking, each holding one token
/// (`alice-token`, `bob-token`); returns the store and their controllers.
fn alice_and_bob() -> (
    Arc<ProfileStore<TaskServer>>,
    ProfileController<TaskServer>,
    ProfileController<TaskServer>,
) {
    let store = Arc::new(ProfileStore::<TaskServer>::default());
    let alice = store.add_agent("alice", asking());
    let bob = store.add_agent("bob", asking());
    store.grant("alice-token", "alice").unwrap();
    store.grant("bob-token", "bob").unwrap();
    (store, alice, bob)
}

/// Waits until `controller` has `n` sessions registered for list_changed.
async fn wait_for_sessions(controller: &ProfileController<TaskServer>, n: usize) {
    let settled = async {
        while controller.session_count() != n {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    if tokio::time::timeout(LIMIT, settled).await.is_err() {
        panic!(
            "expected {n} sessions, still {}",
            controller.session_count()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn re_adding_a_principal_keeps_its_sessions_notified() {
    let (store, alice, bob) = alice_and_bob();
    let (http, uri) = serve_agents(&store, TaskServer::default()).await;

    let alice_modern = ModernSession::connect(http_transport(&uri, Some("alice-token"))).await;
    let mut alice_events = alice_modern.subscribe().await;
    let alice_legacy = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    let bob_modern = ModernSession::connect(http_transport(&uri, Some("bob-token"))).await;
    let mut bob_events = bob_modern.subscribe().await;
    let bob_legacy = Session::connect(http_transport(&uri, Some("bob-token"))).await;
    wait_for_sessions(&alice, 2).await;
    wait_for_sessions(&bob, 2).await;

    // Re-adding replaces alice's profile on the controller her sessions hear.
    let again = store.add_agent("alice", child());
    expect_one_list_changed(&mut alice_events).await;
    assert_eq!(alice_legacy.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(alice_modern.tool_names().await, names_of(&child()));
    assert_eq!(alice_legacy.tool_names().await, names_of(&child()));
    assert_eq!(alice.current().context(), &child());

    // The same tool set again: nothing to say.
    store.add_agent("alice", child());
    expect_silence(&mut alice_events).await;

    // The returned handle is the one the sessions follow.
    assert!(again.replace(asking()).changed());
    expect_one_list_changed(&mut alice_events).await;
    assert_eq!(alice_legacy.wait_for_notifications(2, LIMIT).await, 2);
    assert_eq!(alice_legacy.tool_names().await, names_of(&asking()));

    expect_silence(&mut bob_events).await;
    assert_eq!(alice_legacy.notifications(), 2);
    assert_eq!(bob_legacy.notifications(), 0);
    assert_eq!(bob_modern.unsolicited() + alice_modern.unsolicited(), 0);
    assert_eq!(bob.current().context(), &asking());
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoking_a_token_ends_its_sessions_and_streams() {
    let (store, alice, bob) = alice_and_bob();
    store.grant("alice-phone", "alice").unwrap();
    let (http, uri) = serve_agents(&store, TaskServer::default()).await;

    let mut alice_raw = RawSession::open(&uri, "alice-token").await;
    assert_eq!(alice_raw.list_status("alice-token").await, 200);
    // A session belongs to the token that opened it.
    assert_eq!(alice_raw.list_status("alice-phone").await, 404);
    let alice_modern = ModernSession::connect(http_transport(&uri, Some("alice-token"))).await;
    let mut alice_events = alice_modern.subscribe().await;
    let phone_modern = ModernSession::connect(http_transport(&uri, Some("alice-phone"))).await;
    let mut phone_events = phone_modern.subscribe().await;
    let phone_legacy = Session::connect(http_transport(&uri, Some("alice-phone"))).await;
    let bob_modern = ModernSession::connect(http_transport(&uri, Some("bob-token"))).await;
    let mut bob_events = bob_modern.subscribe().await;
    let bob_legacy = Session::connect(http_transport(&uri, Some("bob-token"))).await;
    wait_for_sessions(&alice, 4).await;
    wait_for_sessions(&bob, 2).await;

    store.revoke("alice-token");
    let ended = tokio::time::timeout(LIMIT, alice_events.next())
        .await
        .expect("alice's listen stream ends");
    // Abruptly, from the client's side: `None` or a transport error.
    assert!(!matches!(ended, Ok(Some(_))), "{ended:?}");
    alice_raw.expect_stream_end().await;
    // rmcp closed her session: it no longer counts, and its id is unknown.
    wait_for_sessions(&alice, 2).await;
    assert_eq!(alice_raw.list_status("alice-token").await, 401);
    assert_eq!(alice_raw.list_status("alice-phone").await, 404);
    let refused = RawSession::post(
        &uri,
        "alice-token",
        None,
        &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    assert_eq!(refused.status().as_u16(), 401);

    // Alice's other token and bob keep working and hearing of replacements.
    assert!(alice.replace(child()).changed());
    expect_one_list_changed(&mut phone_events).await;
    assert_eq!(phone_legacy.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(phone_modern.tool_names().await, names_of(&child()));
    assert_eq!(phone_legacy.tool_names().await, names_of(&child()));
    expect_silence(&mut bob_events).await;
    assert!(bob.replace(child()).changed());
    expect_one_list_changed(&mut bob_events).await;
    assert_eq!(bob_legacy.wait_for_notifications(1, LIMIT).await, 1);
    assert_eq!(bob_modern.tool_names().await, names_of(&child()));
    assert_eq!(phone_legacy.notifications(), 1);
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_an_agent_ends_all_its_tokens_sessions() {
    let (store, alice, bob) = alice_and_bob();
    store.grant("alice-phone", "alice").unwrap();
    let (http, uri) = serve_agents(&store, TaskServer::default()).await;

    let mut laptop = RawSession::open(&uri, "alice-token").await;
    let mut phone = RawSession::open(&uri, "alice-phone").await;
    let bob_legacy = Session::connect(http_transport(&uri, Some("bob-token"))).await;
    wait_for_sessions(&alice, 2).await;

    assert!(store.remove_agent("alice").is_some());
    laptop.expect_stream_end().await;
    phone.expect_stream_end().await;
    wait_for_sessions(&alice, 0).await;
    assert_eq!(laptop.list_status("alice-token").await, 401);
    assert_eq!(phone.list_status("alice-phone").await, 401);
    assert!(store.grant("alice-token", "alice").is_err());

    // Re-adding starts afresh; bob never noticed.
    let alice = store.add_agent("alice", child());
    store.grant("alice-token", "alice").unwrap();
    let again = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    assert_eq!(again.tool_names().await, names_of(&child()));
    assert_eq!(laptop.list_status("alice-token").await, 404);
    assert_eq!(bob_legacy.tool_names().await, names_of(&asking()));

    // Granting a token again changes nothing; granting it to someone else
    // ends what it opened, so no session outlives its principal.
    store.grant("bob-token", "bob").unwrap();
    store.grant("alice-token", "alice").unwrap();
    assert_eq!(again.tool_names().await, names_of(&child()));
    store.grant("alice-token", "bob").unwrap();
    wait_for_sessions(&alice, 0).await;
    assert_eq!(bob.session_count(), 1);
    assert_eq!(bob_legacy.tool_names().await, names_of(&asking()));
    http.shutdown().await.unwrap();
}
