//! Progressive disclosure within the profile (issue 45 §2), over
//! streamable HTTP with a raw JSON-RPC client on the clinic fixture:
//! `tools/list` starts with the activation tool and `records`, grows
//! append-only as groups are activated (byte for byte), one
//! `tools/list_changed` per activation; the profile stays the ceiling.

use mcp_profiles::{
    ACTIVATE_GROUPS, ACTIVATION_TOOL, Disclosure, ProfileContext, ProfileController,
};
use mcp_profiles_tests::client::serve_http;
use mcp_profiles_tests::clinic::{Clinic, Surface, billing};
use mcp_profiles_tests::raw::RawSession;
use serde_json::{Value, json};

const TOKEN: &str = "unused";

/// The listed tools, each as the JSON text it was answered with.
async fn listed(session: &RawSession) -> Vec<String> {
    let answer = session.request(TOKEN, "tools/list", json!({})).await;
    answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(Value::to_string)
        .collect()
}

fn names(tools: &[String]) -> Vec<String> {
    tools
        .iter()
        .map(|tool| {
            serde_json::from_str::<Value>(tool).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// A controller serving `context`, disclosing its tools with `records`
/// listed from the start.
fn disclosing(context: ProfileContext<Clinic>) -> ProfileController<Clinic> {
    let controller = ProfileController::new(context);
    let disclosure = Disclosure::new().always_listing(["records"]).unwrap();
    assert_eq!(controller.set_disclosure(disclosure), Ok(true));
    controller
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn activations_append_to_the_list_byte_for_byte_within_the_profile() {
    let controller = disclosing(billing());
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let mut session = RawSession::open(&uri, TOKEN).await;

    let first = listed(&session).await;
    assert_eq!(
        names(&first),
        [
            ACTIVATION_TOOL,
            "delete_patient",
            "get_patient",
            "list_patients"
        ]
    );
    let activation: Value = serde_json::from_str(&first[0]).unwrap();
    assert_eq!(
        activation["inputSchema"]["properties"]["groups"]["items"]["enum"],
        json!(["billing"])
    );
    // Listing is not access: a tool of the profile not listed yet runs.
    let call = json!({"name": "list_invoices", "arguments": {}});
    let ran = session.request(TOKEN, "tools/call", call).await;
    assert_eq!(
        ran["result"]["content"][0]["text"], "list_invoices",
        "{ran}"
    );

    // Beyond the profile: refused, naming it; nothing listed.
    let outside = json!({"name": ACTIVATION_TOOL, "arguments": {"groups": ["night"]}});
    let refused = session.request(TOKEN, "tools/call", outside).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`night` is not a group this session can activate; it can: billing"),
        "{message}"
    );
    assert_eq!(listed(&session).await, first);

    // The model activates `billing`: one list_changed, and the list is the
    // previous one, byte for byte, and then `billing`'s new tool.
    let activate = json!({"name": ACTIVATION_TOOL, "arguments": {"groups": ["billing"]}});
    let activated = session.request(TOKEN, "tools/call", activate).await;
    assert_eq!(
        activated["result"]["content"][0]["text"],
        r#"{"activated":["billing"]}"#
    );
    let heard = session
        .events_until("notifications/tools/list_changed")
        .await;
    assert_eq!(heard.matches("list_changed").count(), 1, "{heard}");
    let second = listed(&session).await;
    assert_eq!(second[..first.len()], first[..]);
    assert_eq!(names(&second[first.len()..]), ["list_invoices"]);

    // A groups-aware client asks again: nothing new, nothing sent.
    let again = session
        .request(TOKEN, ACTIVATE_GROUPS, json!({"groups": ["billing"]}))
        .await;
    assert_eq!(again["result"], json!({"activated": []}), "{again}");
    assert_eq!(listed(&session).await, second);

    // A replacement that removes `billing` drops it from the list.
    controller.replace(ProfileContext::new(Surface::Desk));
    session
        .events_until("notifications/tools/list_changed")
        .await;
    assert_eq!(
        names(&listed(&session).await),
        [
            ACTIVATION_TOOL,
            "delete_patient",
            "get_patient",
            "list_patients"
        ]
    );
    http.shutdown().await.unwrap();
}

/// A 2026-07-28 request belongs to no session: its client keeps its
/// activations and sends them in each request's `_meta`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_keeps_its_activations_and_its_list_grows_append_only() {
    use mcp_profiles::ACTIVE_GROUPS_KEY;
    use mcp_profiles_tests::client::http_transport;
    use rmcp::model::{CallToolRequestParams, GetMeta, PaginatedRequestParams, ProtocolVersion};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};

    let controller = disclosing(billing());
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client =
        ().serve_with_lifecycle(http_transport(&uri, None), lifecycle)
            .await
            .expect("2026-07-28");
    let peer = client.peer();
    let held = |groups: Value| json!({ ACTIVE_GROUPS_KEY: groups });
    let list = |meta: Option<Value>| async move {
        let params = json!({ "_meta": meta });
        let params: PaginatedRequestParams = serde_json::from_value(params).unwrap();
        peer.list_tools(Some(params)).await
    };
    let texts = |tools: &[rmcp::model::Tool]| -> Vec<String> {
        tools
            .iter()
            .map(|tool| serde_json::to_string(tool).unwrap())
            .collect()
    };

    // Without the key: every tool, as before.
    let all = list(None).await.expect("tools/list");
    assert!(all.tools.iter().all(|tool| tool.name != ACTIVATION_TOOL));
    assert!(all.tools.iter().any(|tool| tool.name == "list_invoices"));

    // Opted in with nothing activated: the activation tool and `records`,
    // the set in force echoed.
    let first = list(Some(held(json!([])))).await.expect("tools/list");
    let tool_names: Vec<&str> = first.tools.iter().map(|tool| &*tool.name).collect();
    assert_eq!(
        tool_names,
        [
            ACTIVATION_TOOL,
            "delete_patient",
            "get_patient",
            "list_patients"
        ]
    );
    assert_eq!(first.meta.unwrap().0[ACTIVE_GROUPS_KEY], json!([]));

    // The model activates `billing`: the answer tells the new set.
    let call = |arguments: Value| async move {
        let params = json!({
            "name": ACTIVATION_TOOL,
            "arguments": arguments,
            "_meta": held(json!([])),
        });
        let params: CallToolRequestParams = serde_json::from_value(params).unwrap();
        peer.call_tool(params).await
    };
    let activated = call(json!({"groups": ["billing"]}))
        .await
        .expect("activated");
    assert_eq!(
        activated.meta.unwrap().0[ACTIVE_GROUPS_KEY],
        json!(["billing"])
    );
    // Beyond the profile: refused, naming it.
    let refused = call(json!({"groups": ["night"]})).await.unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("`night` is not a group this session can activate"),
        "{refused}"
    );

    // Listed with `billing`: the previous list byte for byte, then its
    // tool; a held group the profile does not enable is dropped.
    let second = list(Some(held(json!(["triage", "billing"]))))
        .await
        .expect("tools/list");
    let (before, after) = (texts(&first.tools), texts(&second.tools));
    assert_eq!(after[..before.len()], before[..]);
    assert_eq!(second.tools[before.len()..].len(), 1);
    assert_eq!(second.tools[before.len()].name, "list_invoices");
    assert_eq!(
        second.meta.unwrap().0[ACTIVE_GROUPS_KEY],
        json!(["billing"])
    );

    // A groups-aware client activates with the request: the same answer.
    let mut request =
        rmcp::model::CustomRequest::new(ACTIVATE_GROUPS, Some(json!({"groups": ["billing"]})));
    request
        .get_meta_mut()
        .0
        .insert(ACTIVE_GROUPS_KEY.to_owned(), json!(["billing"]));
    let answer = peer
        .send_request(rmcp::model::ClientRequest::CustomRequest(request))
        .await
        .expect("activated");
    let rmcp::model::ServerResult::CustomResult(answer) = answer else {
        panic!("not a custom result: {answer:?}");
    };
    assert_eq!(
        answer.0,
        json!({"activated": [], "_meta": {ACTIVE_GROUPS_KEY: ["billing"]}})
    );

    // Not a list of names: refused, naming the key.
    let malformed = list(Some(held(json!("billing")))).await.unwrap_err();
    assert!(
        malformed.to_string().contains(ACTIVE_GROUPS_KEY),
        "{malformed}"
    );
    client.cancel().await.expect("closes");
    http.shutdown().await.unwrap();
}

/// A runtime catalog's own groups are disclosed like the profile's: the
/// activation tool names them, and an activated one's tools are appended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalogs_groups_are_activated_like_the_profiles() {
    use mcp_profiles::rmcp::model::CallToolResult;
    use mcp_profiles::{Catalog, Rule, RuntimeGroup, RuntimeTool};

    let tool = |name: &str| {
        let schema = json!({"type": "object"}).as_object().unwrap().clone();
        RuntimeTool::<Clinic>::new(
            name,
            "a plugin tool",
            schema,
            Rule::always(),
            |_, _| async { Ok(CallToolResult::success(vec![])) },
        )
    };
    let controller = disclosing(ProfileContext::new(Surface::Desk));
    let pager = RuntimeGroup::new("plugin.pager").with_title("Pager");
    let tools = [
        tool("page_oncall").in_group("plugin.pager"),
        tool("take_note"),
    ];
    controller.install(&Catalog::grouped("plugins", 1, [pager], tools).unwrap());
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let mut session = RawSession::open(&uri, TOKEN).await;

    let first = listed(&session).await;
    let activation: Value = serde_json::from_str(&first[0]).unwrap();
    assert_eq!(
        activation["inputSchema"]["properties"]["groups"]["items"]["enum"],
        json!(["plugin.pager"])
    );
    assert!(!names(&first).contains(&"page_oncall".to_owned()));
    let activate = json!({"name": ACTIVATION_TOOL, "arguments": {"groups": ["plugin.pager"]}});
    let activated = session.request(TOKEN, "tools/call", activate).await;
    assert_eq!(
        activated["result"]["content"][0]["text"],
        r#"{"activated":["plugin.pager"]}"#
    );
    session
        .events_until("notifications/tools/list_changed")
        .await;
    let second = listed(&session).await;
    assert_eq!(second[..first.len()], first[..]);
    assert_eq!(names(&second[first.len()..]), ["page_oncall"]);
    // A tool in no group is not disclosed; it runs by name.
    let call = json!({"name": "take_note", "arguments": {}});
    let ran = session.request(TOKEN, "tools/call", call).await;
    assert!(ran["result"].is_object(), "{ran}");
    http.shutdown().await.unwrap();
}
