//! The library's control API over HTTP with runtime catalogs
//! (`ControlApi::with_catalogs`): a catalog put through it reaches the
//! agent's sessions once, reads back as it was put, compares and sets on
//! the agent's version, and is refused, naming why, when the decoder
//! refuses it; the document describes the route with the application's
//! wire form.

use std::sync::Arc;

use mcp_profiles_serve::control::ControlApi;
use mcp_profiles_serve::http::Serve;
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::client::{List, Session, http_transport, serve_agents};
use mcp_profiles_tests::contexts::{asking, names_of};
use mcp_profiles_tests::waits::LIMIT;
use reqwest::Method;
use serde_json::{Value, json};

use crate::store_catalogs::{decoder, wire};

const TOKEN: &str = "control-secret";

/// The test's wire form, as the document describes it.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct Wire {
    revision: u64,
    tools: Vec<String>,
}

async fn request(base: &str, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{base}{path}"))
        .bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("the control API answers");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON answer"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalog_put_through_the_control_api_reaches_the_agents_sessions() {
    let profiles = Arc::new(ProfileStore::<TaskServer>::default().with_catalogs(decoder()));
    let store: Arc<dyn AgentStore<TaskServer>> = Arc::new(MemoryStore::new(Arc::clone(&profiles)));
    let api = ControlApi::new(store, TOKEN).with_catalogs::<Wire>();
    let (router, document) = api.described();
    let control = Serve::on("127.0.0.1:0".parse().unwrap())
        .app(router)
        .await
        .unwrap();
    let base = format!("http://{}", control.local_addr());
    let (_mcp, uri) = serve_agents(&profiles, TaskServer::default()).await;

    let put = json!({"profile": serde_json::from_str::<Value>(&asking().to_json()).unwrap()});
    let (status, _) = request(&base, Method::PUT, "/api/v1/agents/alice", Some(put)).await;
    assert_eq!(status, 200);
    let grant = json!({"token": "alice-token", "principal": "alice"});
    assert_eq!(
        request(&base, Method::POST, "/api/v1/tokens", Some(grant))
            .await
            .0,
        200
    );
    let alice = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    assert_eq!(alice.tool_names().await, names_of(&asking()));

    let path = "/api/v1/agents/alice/catalog";
    let (status, answer) = request(&base, Method::GET, path, None).await;
    assert_eq!(
        (status, &answer["catalog"]),
        (200, &Value::Null),
        "{answer}"
    );
    let version = answer["version"].clone();
    let body = json!({"catalog": wire(1, &["plugin_echo"]), "version": version});
    let (status, answer) = request(&base, Method::PUT, path, Some(body.clone())).await;
    assert_eq!(
        (status, &answer["changed"]),
        (200, &json!(true)),
        "{answer}"
    );
    assert!(
        answer["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("plugin_echo")),
        "{answer}"
    );
    alice.wait_for_notifications_of(List::Tools, 1, LIMIT).await;
    assert!(alice.tool_names().await.contains(&"plugin_echo".to_owned()));
    let (_, read) = request(&base, Method::GET, path, None).await;
    assert_eq!(read["catalog"], wire(1, &["plugin_echo"]));

    // Stale, refused by the decoder, or for nobody: refused, nothing changed.
    let (status, _) = request(&base, Method::PUT, path, Some(body)).await;
    assert_eq!(status, 409);
    let bad = json!({"catalog": {"revision": 2, "tools": "plugin_echo"}});
    let (status, answer) = request(&base, Method::PUT, path, Some(bad)).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("`tools` must be a list"),
        "{answer}"
    );
    let nobody = "/api/v1/agents/nobody/catalog";
    let fresh = json!({"catalog": wire(1, &["plugin_echo"])});
    assert_eq!(
        request(&base, Method::PUT, nobody, Some(fresh)).await.0,
        404
    );
    alice.expect_exactly(&[(List::Tools, 1)]).await;

    let route = &document["paths"]["/api/v1/agents/{principal}/catalog"];
    assert!(
        route["get"].is_object() && route["put"].is_object(),
        "{route}"
    );
    let put = &document["components"]["schemas"]["CatalogPut"]["properties"]["catalog"];
    assert_eq!(put["$ref"], "#/components/schemas/Wire", "{put}");
}
