//! `explain` and `verify` from the command line
//! (`mcp_profiles_serve::cli::Ask`), parsed as a server's binary parses
//! them and asked of a real Redis the gateways share (issue 44 §2, §3).

use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use mcp_profiles_serve::audit::decisions::DecisionLog;
use mcp_profiles_serve::cli::Ask;
use mcp_profiles_serve::control::answers::Exposed;
use mcp_profiles_serve::exposure::past::{Moment, exposure_at};
use mcp_profiles_serve::{AgentStore, ProfileStore};
use mcp_profiles_tests::TaskServer;
use mcp_profiles_tests::audit::by;
use mcp_profiles_tests::contexts::{asking, child};
use mcp_profiles_tests::redis::RedisServer;

use crate::redis_store::Instance;

/// A server's command line with the two questions mounted.
#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    ask: Ask,
}

/// What `args` answer: the output, or the error's text.
async fn asked(args: &[&str]) -> Result<String, String> {
    let cli = Cli::try_parse_from(["server"].iter().chain(args)).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let answered = cli.ask.answer::<TaskServer>(&mut out).await;
    answered.map_err(|error| error.to_string())?;
    Ok(String::from_utf8(out).expect("UTF-8"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_and_verify_answer_from_the_shared_store() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let log = Arc::new(DecisionLog::new(100));
    let logged = ProfileStore::default().with_decision_log(log);
    let gateway = Instance::start_over(&redis, Duration::from_secs(30), logged).await;
    let first = gateway
        .store
        .put_agent("alice", asking(), by())
        .await
        .unwrap();
    let v1 = first.value.agent.version.to_string();
    gateway
        .store
        .grant_token("alice-token", "alice", by())
        .await
        .unwrap();
    let session = gateway.legacy("alice-token").await;
    session.call("ask_user_question", None).await;
    session.call("ask_parent_question", None).await;
    gateway
        .store
        .put_agent("alice", child(), by())
        .await
        .unwrap();
    let url = redis.url();

    // explain: the control API's JSON, and each group's reason.
    let json = asked(&["explain", "alice", "--revision", &v1, "--store", &url]).await;
    let past = exposure_at(
        &gateway.store,
        "alice",
        Moment::Revision(v1.parse().unwrap()),
    );
    let expected = serde_json::to_value(Exposed::from(past.await.unwrap())).unwrap();
    let json: serde_json::Value = serde_json::from_str(&json.unwrap()).unwrap();
    assert_eq!(json, expected);
    assert_eq!(
        json["agent"]["profile"],
        serde_json::to_value(asking()).unwrap()
    );
    let why = asked(&[
        "explain",
        "alice",
        "--revision",
        &v1,
        "--why",
        "--store",
        &url,
    ])
    .await;
    let why = why.unwrap();
    for line in [
        "on   user-question        capability(user-question)",
        "capability parent-question is absent",
    ] {
        assert!(why.contains(line), "{why}");
    }

    // verify: what the gateway decided, shipped, agrees with the trail.
    gateway.store.decisions_written().await.unwrap();
    let verified = asked(&["verify", "--store", &url]).await;
    assert_eq!(
        verified.unwrap(),
        "2 decisions: 2 judged, 0 unjudged, 0 mismatches\n"
    );

    // A planted decision: allowed, of a tool revision 1 did not serve.
    let planted = [
        "XADD",
        "mcp-profiles:decisions",
        "1000-0",
        "at",
        "0",
        "principal",
        "alice",
        "tool",
        "ask_parent_question",
        "revision",
        &v1,
    ];
    assert_eq!(redis.query(&planted), ["1000-0"]);
    let refuted = asked(&["verify", "--store", &url]).await.unwrap_err();
    assert!(
        refuted.starts_with(&format!(
            "the decision log disagrees with the audit trail: decision 1000 \
             (`alice` calling `ask_parent_question` at revision {v1}): allowed, but not in the profile"
        )),
        "{refuted}"
    );

    // Bad questions are named.
    for (args, says) in [
        (
            vec!["explain", "alice", "--store", &url],
            "<--at <AT>|--revision <REVISION>>",
        ),
        (
            vec![
                "explain",
                "alice",
                "--at",
                "1",
                "--revision",
                "1",
                "--store",
                &url,
            ],
            "cannot be used with",
        ),
        (
            vec!["explain", "alice", "--revision", "99", "--store", &url],
            "no record in the audit trail made revision 99 of `alice`'s agent",
        ),
        (
            vec!["verify", "--store", "redis://127.0.0.1:1/0"],
            "--store redis://127.0.0.1:1/0: the profile store is unreachable",
        ),
        (vec!["verify", "--store", "memory"], "--store memory:"),
    ] {
        let error = asked(&args).await.unwrap_err();
        assert!(error.contains(says), "{args:?}: {error}");
    }
}
