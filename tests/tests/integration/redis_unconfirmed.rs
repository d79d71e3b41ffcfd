//! A change the store's replicas did not confirm is answered as made, never
//! as refused (issue: a promoted primary without a replica answered every
//! change `503 store-unavailable`, "nothing was changed", while the change
//! was in force). Here one `redis-server` with no replica at all and a
//! store that requires one: every change is made, recorded and served, and
//! says it is unconfirmed; the control API answers 202 with
//! `Mcp-Profiles-Unconfirmed: 0/1` and the body of the change.

use std::sync::Arc;
use std::time::Duration;

use mcp_profiles_serve::audit::AuditQuery;
use mcp_profiles_serve::control::{ControlApi, UNCONFIRMED_HEADER};
use mcp_profiles_serve::http::Serve;
use mcp_profiles_serve::store::Replication;
use mcp_profiles_serve::{AgentStore, RedisOptions, RedisStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::client::{Session, http_transport, serve_agents};
use mcp_profiles_tests::contexts::{asking, child, names_of};
use mcp_profiles_tests::redis::RedisServer;
use reqwest::Method;
use serde_json::{Value, json};

const TOKEN: &str = "control-secret";

/// A store requiring one replica of a Redis that has none: every `WAIT`
/// ends at its limit (a quarter of the timeout) with 0 confirmations. A
/// script's first call waits twice (it is loaded and sent again), and
/// Redis ends a `WAIT` on its 100 ms clock, so the timeout leaves room.
async fn store_without_replicas(redis: &RedisServer) -> std::sync::Arc<RedisStore<TaskServer>> {
    let options = RedisOptions::default()
        .with_replica_acks(1)
        .with_timeout(Duration::from_secs(1));
    RedisStore::connect(&redis.url(), options)
        .await
        .expect("the store connects")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unconfirmed_change_is_made_recorded_and_said_so() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = store_without_replicas(&redis).await;
    let unconfirmed = Replication::new(0, 1);

    let put = store.put_agent("alice", asking(), by()).await.unwrap();
    assert_eq!(put.replication, unconfirmed, "no replica confirmed it");
    let stored = store
        .agent("alice")
        .await
        .unwrap()
        .expect("the agent is stored");
    assert_eq!(
        stored.version, put.agent.version,
        "the change is in the store"
    );
    let records = store.audit(&AuditQuery::new()).await.unwrap();
    let said: Vec<(&str, Option<&str>, &str)> = records
        .iter()
        .map(|record| {
            (
                record.kind.as_str(),
                record.principal.as_deref(),
                record.request_id.as_str(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("profile-put", Some("alice"), "test-request"),
            ("replication-unconfirmed", Some("alice"), "test-request"),
        ],
        "in its audit trail, which says it was not confirmed"
    );
    assert_eq!(records[1].after, json!({"confirmed": 0, "required": 1}));

    // What changed nothing needs no replica.
    let missing = store.delete_agent("nobody", by()).await.unwrap();
    assert_eq!(
        (missing.value, missing.replication),
        (false, Replication::not_required())
    );
    let unknown = store.revoke_token("never-granted", by()).await.unwrap();
    assert!(!unknown.value && unknown.replication.is_confirmed());

    let granted = store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    assert_eq!(granted.replication, unconfirmed);
    let again = store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    assert!(
        again.replication.is_confirmed(),
        "granting it again changed nothing"
    );
}

async fn request(
    base: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{base}{path}"))
        .bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("the control API answers");
    let status = response.status().as_u16();
    let unconfirmed = response
        .headers()
        .get(UNCONFIRMED_HEADER)
        .map(|value| value.to_str().unwrap().to_owned());
    (
        status,
        unconfirmed,
        response.json().await.expect("a JSON answer"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_control_api_answers_an_unconfirmed_change_202_with_its_body() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = store_without_replicas(&redis).await;
    let (_mcp, uri) = serve_agents(store.profiles(), TaskServer::default()).await;
    let store: Arc<dyn AgentStore<TaskServer>> = Arc::new(store);
    let control = Serve::on("127.0.0.1:0".parse().unwrap())
        .app(ControlApi::new(Arc::clone(&store), TOKEN).router())
        .await
        .unwrap();
    let base = format!("http://{}", control.local_addr());
    let profile = |context: &mcp_profiles::ProfileContext<TaskServer>| json!({"profile": serde_json::from_str::<Value>(&context.to_json()).unwrap()});

    let (status, unconfirmed, answer) = request(
        &base,
        Method::PUT,
        "/api/v1/agents/alice",
        Some(profile(&asking())),
    )
    .await;
    assert_eq!(
        (status, unconfirmed.as_deref()),
        (202, Some("0/1")),
        "{answer}"
    );
    assert_eq!(
        (answer["principal"].as_str(), answer["changed"].as_bool()),
        (Some("alice"), Some(true))
    );
    let version = answer["version"].as_u64().expect("the version made");

    let grant = json!({"token": "alice-token", "principal": "alice"});
    let (status, unconfirmed, _) =
        request(&base, Method::POST, "/api/v1/tokens", Some(grant)).await;
    assert_eq!((status, unconfirmed.as_deref()), (202, Some("0/1")));
    let alice = Session::connect(http_transport(&uri, Some("alice-token"))).await;
    assert_eq!(
        alice.tool_names().await,
        names_of(&asking()),
        "the change is served"
    );

    let (status, unconfirmed, answer) = request(
        &base,
        Method::PUT,
        "/api/v1/agents/alice",
        Some(json!({"profile": profile(&child())["profile"], "version": version})),
    )
    .await;
    assert_eq!(
        (status, unconfirmed.as_deref()),
        (202, Some("0/1")),
        "{answer}"
    );
    assert_eq!(answer["version"].as_u64(), Some(version + 1));
    assert_eq!(
        alice.tool_names().await,
        names_of(&child()),
        "and the next one"
    );
    let (status, unconfirmed, answer) =
        request(&base, Method::GET, "/api/v1/agents/alice", None).await;
    assert_eq!(
        (status, unconfirmed, answer["version"].as_u64()),
        (200, None, Some(version + 1))
    );

    // A change that changed nothing is a plain answer.
    let revoke = json!({"token": "never-granted"});
    let (status, unconfirmed, answer) =
        request(&base, Method::POST, "/api/v1/tokens/revoke", Some(revoke)).await;
    assert_eq!(
        (status, unconfirmed, answer),
        (200, None, json!({"revoked": false}))
    );
    let (status, unconfirmed, _) = request(&base, Method::DELETE, "/api/v1/agents/bob", None).await;
    assert_eq!((status, unconfirmed), (404, None));

    let kill = json!({"deny": [], "version": 0});
    let (status, unconfirmed, answer) =
        request(&base, Method::PUT, "/api/v1/kill-switch", Some(kill)).await;
    assert_eq!(
        (status, unconfirmed.as_deref()),
        (202, Some("0/1")),
        "{answer}"
    );
    let records = store.audit(&AuditQuery::new()).await.unwrap();
    let kinds: Vec<&str> = records.iter().map(|record| record.kind.as_str()).collect();
    let unconfirmed = "replication-unconfirmed";
    let each_said_so = [
        "profile-put",
        unconfirmed,
        "token-granted",
        unconfirmed,
        "profile-put",
        unconfirmed,
        "kill-switch",
        unconfirmed,
    ];
    assert_eq!(
        kinds, each_said_so,
        "and what changed nothing recorded nothing"
    );
}
