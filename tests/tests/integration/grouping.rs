//! Groups on the wire (issue 45 §1): MCP's draft grouping extension served
//! from the registry to a client that declares it, over streamable HTTP on
//! 127.0.0.1 with a raw JSON-RPC client, on the clinic fixture (whose
//! `billing` includes `records`' `list_patients`); a client that does not
//! declare it is answered as before.

use mcp_profiles::{
    DenyList, GROUP_MEMBERSHIP_KEY, GROUPING_EXTENSION, Policy, ProfileContext, ProfileController,
};
use mcp_profiles_tests::client::serve_http;
use mcp_profiles_tests::clinic::{Clinic, Surface, billing, desk};
use mcp_profiles_tests::raw::{GROUPS_CHANGED, RawSession, TOOLS_CHANGED, declaring_grouping};
use serde_json::{Value, json};

const TOKEN: &str = "unused";

/// Each listed tool's name and the groups its `_meta` names (`None`: no
/// membership), in list order.
async fn memberships(session: &RawSession) -> Vec<(String, Option<Value>)> {
    let listed = session.request(TOKEN, "tools/list", json!({})).await;
    listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| {
            let groups = tool["_meta"][GROUP_MEMBERSHIP_KEY].clone();
            let name = tool["name"].as_str().expect("a name").to_owned();
            (name, (!groups.is_null()).then_some(groups))
        })
        .collect()
}

/// What `session`'s stream carries until it has heard at least `tools`
/// tools and `groups` groups `list_changed` (one replacement's may come in
/// either order with another's).
async fn hear(session: &mut RawSession, tools: usize, groups: usize) -> String {
    let mut heard = String::new();
    while heard.matches(TOOLS_CHANGED).count() < tools
        || heard.matches(GROUPS_CHANGED).count() < groups
    {
        heard.push_str(&session.events_until("list_changed").await);
    }
    heard
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grouping_client_sees_its_profiles_groups_and_others_see_todays_answers() {
    let controller = ProfileController::<Clinic>::new(desk()).with_grouping();
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let declares = declaring_grouping();
    let mut aware = RawSession::open_with(&uri, TOKEN, declares).await;
    let mut plain = RawSession::open(&uri, TOKEN).await;

    // Declared back to the client that declared it, to no other.
    let declared = &aware.initialized()["capabilities"]["extensions"][GROUPING_EXTENSION];
    assert_eq!(declared, &json!({"listChanged": true}));
    assert!(
        plain.initialized()["capabilities"]
            .get("extensions")
            .is_none()
    );

    // The profile's groups, and only those: `billing` is off.
    let groups = aware.request(TOKEN, "groups/list", json!({})).await;
    assert_eq!(
        groups["result"],
        json!({"groups": [{
            "name": "records",
            "title": "Patient records",
            "description": "Find, read and remove patients",
        }]})
    );
    let records = Some(json!(["records"]));
    assert_eq!(
        memberships(&aware).await,
        [
            ("delete_patient".to_owned(), records.clone()),
            ("get_patient".to_owned(), records.clone()),
            ("list_patients".to_owned(), records.clone()),
        ]
    );
    // Today's answers for the other: no membership, no `groups/list`.
    let unmarked: Vec<(String, Option<Value>)> = ["delete_patient", "get_patient", "list_patients"]
        .map(|name| (name.to_owned(), None))
        .into();
    assert_eq!(memberships(&plain).await, unmarked);
    let unknown = plain.request(TOKEN, "groups/list", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");

    // `billing` on: one groups notification, and a shared tool belongs to
    // both groups that bring it.
    controller.replace(billing());
    let heard = aware.events_until(GROUPS_CHANGED).await;
    assert_eq!(heard.matches(TOOLS_CHANGED).count(), 1, "{heard}");
    let groups = aware.request(TOKEN, "groups/list", json!({})).await;
    let names: Vec<&str> = groups["result"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|group| group["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["billing", "records"]);
    assert_eq!(
        groups["result"]["groups"][0],
        json!({"name": "billing", "title": "Billing"})
    );
    // `billing` includes `records`' `list_patients`: `records` nests in it.
    assert_eq!(
        groups["result"]["groups"][1]["_meta"],
        json!({GROUP_MEMBERSHIP_KEY: ["billing"]})
    );
    let shared = memberships(&aware).await;
    assert!(
        shared.contains(&(
            "list_patients".to_owned(),
            Some(json!(["billing", "records"]))
        )),
        "{shared:?}"
    );
    assert!(shared.contains(&("list_invoices".to_owned(), Some(json!(["billing"])))));

    // A policy takes a tool away, the groups stay: tools only.
    let deny = DenyList::new(["delete_patient"]).unwrap();
    controller.replace(billing().with_policy(Policy::none().with_deny(deny)));
    // Then `billing` off again: one more groups notification.
    controller.replace(desk());
    let heard = hear(&mut aware, 2, 1).await;
    assert_eq!(heard.matches(GROUPS_CHANGED).count(), 1, "{heard}");
    assert_eq!(heard.matches(TOOLS_CHANGED).count(), 2, "{heard}");

    // The other client heard the three tools changes and nothing of groups.
    let heard = hear(&mut plain, 3, 0).await;
    assert_eq!(heard.matches(TOOLS_CHANGED).count(), 3, "{heard}");
    assert!(!heard.contains("groups"), "{heard}");
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_and_resource_groups_are_listed_and_name_their_members() {
    use mcp_profiles_tests::library::{Library, lending};
    let controller = ProfileController::<Library>::new(lending()).with_grouping();
    let (http, uri) = serve_http(controller.server(Library::default())).await;
    let declares = declaring_grouping();
    let aware = RawSession::open_with(&uri, TOKEN, declares).await;
    let plain = RawSession::open(&uri, TOKEN).await;

    let groups = aware.request(TOKEN, "groups/list", json!({})).await;
    assert_eq!(
        groups["result"]["groups"],
        json!([
            {"name": "catalogue", "title": "The catalogue"},
            {"name": "lending-prompts"},
            {"name": "loans"},
            {"name": "reading-prompts"},
        ])
    );
    // Each listed item names its group; the other client's do not.
    for (method, list, key, expected) in [
        (
            "prompts/list",
            "prompts",
            "name",
            json!([
                ["lend_book", ["lending-prompts"]],
                ["summarise_book", ["reading-prompts"]]
            ]),
        ),
        (
            "resources/list",
            "resources",
            "uri",
            json!([["library://catalogue", ["catalogue"]]]),
        ),
        (
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
            json!([["library://loan/{id}", ["loans"]]]),
        ),
    ] {
        let members = |answer: Value| -> Value {
            answer["result"][list]
                .as_array()
                .unwrap_or_else(|| panic!("{method}: {answer}"))
                .iter()
                .map(|item| json!([item[key], item["_meta"][GROUP_MEMBERSHIP_KEY]]))
                .collect()
        };
        let marked = members(aware.request(TOKEN, method, json!({})).await);
        assert_eq!(marked, expected, "{method}");
        let unmarked = members(plain.request(TOKEN, method, json!({})).await);
        assert!(
            unmarked
                .as_array()
                .unwrap()
                .iter()
                .all(|item| item[1].is_null()),
            "{method}: {unmarked}"
        );
    }
    http.shutdown().await.unwrap();
}

/// A real rmcp client that declares the grouping extension, in `era`'s
/// lifecycle.
struct Declaring;

impl rmcp::ClientHandler for Declaring {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        mcp_profiles_tests::client::with_grouping_declared(
            rmcp::model::ClientConfig::default()
                .with_protocol_version(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE),
        )
    }
}

/// `groups/list` as an rmcp client sends it: a custom request.
async fn list_groups(peer: &rmcp::Peer<rmcp::RoleClient>) -> Value {
    let request = rmcp::model::CustomRequest::new("groups/list", None);
    match peer
        .send_request(rmcp::model::ClientRequest::CustomRequest(request))
        .await
        .expect("groups/list answers")
    {
        rmcp::model::ServerResult::CustomResult(result) => result.0,
        other => panic!("not a custom result: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_clients_of_both_eras_list_groups_and_memberships() {
    use mcp_profiles_tests::client::http_transport;
    use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
    let controller = ProfileController::<Clinic>::new(billing()).with_grouping();
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let sessions = [
        Declaring
            .serve(http_transport(&uri, None))
            .await
            .expect("2025-11-25"),
        Declaring
            .serve_with_lifecycle(
                http_transport(&uri, None),
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("2026-07-28"),
    ];
    for session in &sessions {
        let groups = list_groups(session.peer()).await;
        let names: Vec<&str> = groups["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .map(|group| group["name"].as_str().expect("a name"))
            .collect();
        assert_eq!(names, ["billing", "records"]);
        let tools = session.peer().list_all_tools().await.expect("tools/list");
        let shared = tools
            .iter()
            .find(|tool| tool.name == "list_patients")
            .expect("listed");
        let groups = shared
            .meta
            .as_ref()
            .map(|meta| meta.0[GROUP_MEMBERSHIP_KEY].clone());
        assert_eq!(groups, Some(json!(["billing", "records"])));
    }
    // The 2026-07-28 client's tools stream hears the change as its tools'
    // list_changed only: rmcp's client does not ask for groups (in the
    // stream's `_meta`), and fails a stream that carries a notification it
    // did not ask for (`grouping_streams` asks by hand).
    let filter = rmcp::model::SubscriptionFilter::builder()
        .tools_list_changed()
        .build();
    let mut stream = sessions[1]
        .listen(filter)
        .await
        .expect("subscriptions/listen");
    controller.replace(ProfileContext::new(Surface::Desk));
    mcp_profiles_tests::modern::expect_one_list_changed(&mut stream).await;
    for session in sessions {
        session.cancel().await.expect("closes");
    }
    http.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stamped_list_digests_what_each_client_was_answered() {
    use mcp_profiles::{EXPOSURE_META_KEY, ListDigest};
    let controller = ProfileController::<Clinic>::new(billing())
        .with_grouping()
        .with_exposure_stamp();
    let (http, uri) = serve_http(controller.server(Clinic)).await;
    let declares = declaring_grouping();
    let aware = RawSession::open_with(&uri, TOKEN, declares).await;
    let plain = RawSession::open(&uri, TOKEN).await;
    let mut digests = Vec::new();
    for session in [&aware, &plain] {
        let answer = session.request(TOKEN, "tools/list", json!({})).await;
        let tools = answer["result"]["tools"].as_array().expect("tools").clone();
        let stamped = &answer["result"]["_meta"][EXPOSURE_META_KEY]["digest"];
        assert_eq!(
            stamped,
            &json!(ListDigest::of(&tools).to_string()),
            "{answer}"
        );
        digests.push(stamped.clone());
    }
    // The marked list is another list: another digest.
    assert_ne!(digests[0], digests[1]);
    http.shutdown().await.unwrap();
}

/// `method`'s answer to a client that does not declare the extension, on a
/// server with grouping on and on one without: byte for byte the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_the_extension_is_answered_byte_for_byte_as_without_it() {
    use mcp_profiles_tests::library::{Library, lending};
    let clinic = |grouping: bool| {
        let controller = ProfileController::<Clinic>::new(billing());
        controller.set_grouping(grouping);
        controller.server(Clinic)
    };
    let library = |grouping: bool| {
        let controller = ProfileController::<Library>::new(lending());
        controller.set_grouping(grouping);
        controller.server(Library::default())
    };
    let mut answers: Vec<[String; 2]> = Vec::new();
    for grouping in [true, false] {
        let (clinic_http, clinic_uri) = serve_http(clinic(grouping)).await;
        let (library_http, library_uri) = serve_http(library(grouping)).await;
        let (on_clinic, on_library) = (
            RawSession::open(&clinic_uri, TOKEN).await,
            RawSession::open(&library_uri, TOKEN).await,
        );
        let mut texts = vec![
            on_clinic.initialized().to_string(),
            on_library.initialized().to_string(),
        ];
        for (session, method) in [
            (&on_clinic, "tools/list"),
            (&on_clinic, "groups/list"),
            (&on_library, "prompts/list"),
            (&on_library, "resources/list"),
            (&on_library, "resources/templates/list"),
        ] {
            texts.push(session.request(TOKEN, method, json!({})).await.to_string());
        }
        for (index, text) in texts.into_iter().enumerate() {
            match answers.get_mut(index) {
                Some(pair) => pair[1] = text,
                None => answers.push([text, String::new()]),
            }
        }
        clinic_http.shutdown().await.unwrap();
        library_http.shutdown().await.unwrap();
    }
    for [with, without] in &answers {
        assert_eq!(with, without);
    }
}
