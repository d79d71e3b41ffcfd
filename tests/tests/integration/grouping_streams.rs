//! Groups on the wire, told (issue 45 §1): `notifications/groups/list_changed`
//! on the 2026-07-28 `subscriptions/listen` streams that ask for it in their
//! `_meta` (raw JSON-RPC over streamable HTTP on 127.0.0.1, and a real rmcp
//! client over a duplex opening its stream by hand: rmcp's `listen` cannot
//! ask), and a membership change that leaves a list as it was told to
//! grouping clients of both eras as that list's `list_changed`.

use mcp_profiles::{
    DenyList, GROUP_MEMBERSHIP_KEY, GROUPS_LIST_CHANGED_KEY, Policy, ProfileContext,
    ProfileController,
};
use mcp_profiles_tests::client::{serve_duplex, serve_http, with_grouping_declared};
use mcp_profiles_tests::clinic::{Clinic, billing, desk};
use mcp_profiles_tests::raw::{
    GROUPS_CHANGED, PROMPTS_CHANGED, RESOURCES_CHANGED, RawListen, RawSession, TOOLS_CHANGED,
    declaring_grouping,
};
use serde_json::{Value, json};

const TOKEN: &str = "unused";

/// A stream's `_meta` asking for group changes.
fn asking() -> Value {
    json!({GROUPS_LIST_CHANGED_KEY: true})
}

/// Opens a stream at `uri`; panics if it is refused.
async fn listen(uri: &str, capabilities: Value, meta: Value, filter: Value) -> RawListen {
    let (stream, acknowledged) = RawListen::open(uri, TOKEN, capabilities, meta, filter.clone())
        .await
        .unwrap_or_else(|error| panic!("refused: {error}"));
    // The acknowledgement is the filter as MCP has it: no key for groups.
    assert_eq!(acknowledged["notifications"], filter);
    stream
}

/// The next `count` messages on `stream`, each checked to be marked with
/// the stream's id, then nothing more: their methods.
async fn hear(stream: &mut RawListen, count: usize) -> Vec<String> {
    let mut methods = Vec::new();
    for _ in 0..count {
        let message = stream.next_message().await;
        let id = &message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
        assert_eq!(id, "listen", "{message}");
        methods.push(message["method"].as_str().expect("a method").to_owned());
    }
    let more = stream.methods_within_quiet().await;
    assert!(more.is_empty(), "after {methods:?}, also {more:?}");
    methods
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_stream_that_asks_hears_each_change_of_its_groups_once() {
    let controller = ProfileController::<Clinic>::new(desk()).with_grouping();
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let tools = json!({"toolsListChanged": true});
    let mut asks = listen(&uri, declaring_grouping(), asking(), tools.clone()).await;
    let mut groups_only = listen(&uri, declaring_grouping(), asking(), json!({})).await;
    // Asking nothing of groups, or not served the extension: tools only.
    let mut silent = listen(&uri, declaring_grouping(), json!({}), tools.clone()).await;
    let mut undeclared = listen(&uri, json!({}), asking(), tools.clone()).await;
    let mut declined = listen(
        &uri,
        declaring_grouping(),
        json!({GROUPS_LIST_CHANGED_KEY: false}),
        tools,
    )
    .await;

    // `billing` on: the group list and the tools change.
    controller.replace(billing());
    assert_eq!(hear(&mut asks, 2).await, [TOOLS_CHANGED, GROUPS_CHANGED]);
    assert_eq!(hear(&mut groups_only, 1).await, [GROUPS_CHANGED]);
    for stream in [&mut silent, &mut undeclared, &mut declined] {
        assert_eq!(hear(stream, 1).await, [TOOLS_CHANGED]);
    }

    // A policy takes a tool away, the groups stay: tools only.
    let deny = DenyList::new(["list_invoices"]).unwrap();
    controller.replace(billing().with_policy(Policy::none().with_deny(deny)));
    assert_eq!(hear(&mut asks, 1).await, [TOOLS_CHANGED]);
    assert_eq!(hear(&mut groups_only, 0).await, Vec::<String>::new());

    // `billing` off again: one more of each.
    controller.replace(desk());
    assert_eq!(hear(&mut asks, 2).await, [TOOLS_CHANGED, GROUPS_CHANGED]);
    assert_eq!(hear(&mut groups_only, 1).await, [GROUPS_CHANGED]);
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_asking_in_a_malformed_key_is_refused_naming_the_value() {
    let controller = ProfileController::<Clinic>::new(desk()).with_grouping();
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let meta = json!({GROUPS_LIST_CHANGED_KEY: "yes"});
    let filter = json!({"toolsListChanged": true});
    let answer = match RawListen::open(&uri, TOKEN, declaring_grouping(), meta, filter).await {
        // rmcp acknowledges before the server reads `_meta`: the answer ends
        // the stream.
        Ok((mut stream, _)) => stream.next_message().await,
        Err(answer) => answer,
    };
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        format!("`_meta[\"{GROUPS_LIST_CHANGED_KEY}\"]` must be true or false, not \"yes\""),
    );
    http.shutdown().await.unwrap();
}

/// The shift's prompt and resource pass from the day's groups to the
/// night's unchanged: a client not told of groups hears nothing; a grouping
/// one hears its prompts' and resources' `list_changed` (the extension's
/// "membership changed") and its groups', in both eras.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_membership_change_alone_is_told_to_grouping_clients_only() {
    use mcp_profiles_tests::library::shift::{Shift, Surface};
    let controller =
        ProfileController::<Shift>::new(ProfileContext::new(Surface::Day)).with_grouping();
    let (http, uri) = serve_http(controller.server(Shift)).await;
    let mut aware = RawSession::open_with(&uri, TOKEN, declaring_grouping()).await;
    let plain = RawSession::open(&uri, TOKEN).await;
    let lists = json!({"promptsListChanged": true, "resourcesListChanged": true});
    let mut asks = listen(&uri, declaring_grouping(), asking(), lists.clone()).await;
    let mut plain_stream = listen(&uri, json!({}), json!({}), lists).await;
    let prompt_groups = |answer: Value| answer["result"]["prompts"][0]["_meta"].clone();
    let before = aware.request(TOKEN, "prompts/list", json!({})).await;
    let unmarked = plain.request(TOKEN, "prompts/list", json!({})).await;

    // rmcp acknowledges a stream before it registers: counted only once
    // registered (the two sessions and the two streams).
    let registered = async {
        while controller.session_count() != 4 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(mcp_profiles_tests::waits::LIMIT, registered)
        .await
        .expect("the streams register");
    let night = controller.replace(ProfileContext::new(Surface::Night));
    // Told to the grouping session and the stream that asked, to no other.
    assert!(!night.prompts_changed && !night.resources_changed);
    assert_eq!(night.notified_sessions, 2);
    assert_eq!(
        hear(&mut asks, 3).await,
        [PROMPTS_CHANGED, RESOURCES_CHANGED, GROUPS_CHANGED]
    );
    let heard = aware.events_until(GROUPS_CHANGED).await;
    for told in [PROMPTS_CHANGED, RESOURCES_CHANGED] {
        assert_eq!(heard.matches(told).count(), 1, "{heard}");
    }
    assert_eq!(hear(&mut plain_stream, 0).await, Vec::<String>::new());
    // The membership moved; for the other client nothing did.
    let after = aware.request(TOKEN, "prompts/list", json!({})).await;
    assert_eq!(
        prompt_groups(before),
        json!({GROUP_MEMBERSHIP_KEY: ["day-prompts"]})
    );
    assert_eq!(
        prompt_groups(after),
        json!({GROUP_MEMBERSHIP_KEY: ["night-prompts"]})
    );
    assert_eq!(
        plain.request(TOKEN, "prompts/list", json!({})).await,
        unmarked
    );
    http.shutdown().await.unwrap();
}

/// A real rmcp client over an in-process duplex that opens its stream by
/// hand, asking in `_meta` as rmcp's `listen` cannot: it hears the groups'
/// `list_changed` on that stream (routed by the stream's id; rmcp hands
/// notifications of a stream it did not open through `listen` to the
/// handler), as it hears its tools'.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rmcp_client_asking_by_hand_hears_groups_on_its_stream() {
    use rmcp::model::{
        ClientRequest, CustomNotification, NotificationMetaObject, ProtocolVersion,
        RequestMetaObject, SubscriptionFilter, SubscriptionsListenRequest,
        SubscriptionsListenRequestParams,
    };
    use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    use tokio::sync::mpsc;

    /// Declares the extension and passes on each notification it hears:
    /// its method and the stream it names.
    struct Hearing(mpsc::UnboundedSender<(String, Value)>);

    impl Hearing {
        fn heard(&self, method: &str, context: &NotificationContext<RoleClient>) {
            // rmcp 3.11 leaves a notification's `_meta` in `extensions`
            // (`context.meta` comes empty).
            let meta = context.extensions.get::<NotificationMetaObject>();
            let stream = meta.and_then(NotificationMetaObject::subscription_id);
            let _ = self.0.send((method.to_owned(), json!(stream)));
        }
    }

    impl rmcp::ClientHandler for Hearing {
        fn get_info(&self) -> rmcp::model::ClientConfig {
            with_grouping_declared(Default::default())
        }

        async fn on_subscriptions_acknowledged(
            &self,
            _params: rmcp::model::SubscriptionsAcknowledgedNotificationParams,
            context: NotificationContext<RoleClient>,
        ) {
            self.heard("acknowledged", &context);
        }

        async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
            self.heard(TOOLS_CHANGED, &context);
        }

        async fn on_custom_notification(
            &self,
            notification: CustomNotification,
            context: NotificationContext<RoleClient>,
        ) {
            self.heard(&notification.method, &context);
        }
    }

    let controller = ProfileController::<Clinic>::new(desk()).with_grouping();
    let (heard, mut hearing) = mpsc::unbounded_channel();
    let client = Hearing(heard)
        .serve_with_lifecycle(
            serve_duplex(controller.server(Clinic)),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("2026-07-28");
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let listen = SubscriptionsListenRequest::new(SubscriptionsListenRequestParams::new(filter));
    let mut options = PeerRequestOptions::no_options();
    let mut meta = RequestMetaObject::default();
    meta.0
        .insert(GROUPS_LIST_CHANGED_KEY.to_owned(), json!(true));
    options.meta = Some(meta);
    let stream = client
        .peer()
        .send_cancellable_request(ClientRequest::SubscriptionsListenRequest(listen), options)
        .await
        .expect("subscriptions/listen is sent");
    let id = json!(stream.id);
    let mut next = async || {
        tokio::time::timeout(mcp_profiles_tests::waits::LIMIT, hearing.recv())
            .await
            .expect("a notification arrives")
            .expect("the client runs")
    };
    assert_eq!(next().await, ("acknowledged".to_owned(), id.clone()));

    controller.replace(billing());
    // Sent tools first (the raw test above checks the wire order), but
    // rmcp's client runs each notification's handler in a task of its
    // own, so they may be heard in either order.
    let mut heard = [next().await, next().await];
    heard.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        heard,
        [
            (GROUPS_CHANGED.to_owned(), id.clone()),
            (TOOLS_CHANGED.to_owned(), id),
        ]
    );
    stream.cancel(None).await.expect("the stream is cancelled");
    client.cancel().await.expect("closes");
}
