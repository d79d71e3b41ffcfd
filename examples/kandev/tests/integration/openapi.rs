//! The control APIs' OpenAPI descriptions: the committed copies under
//! `docs/openapi/` are what the code builds and what each running server
//! answers at `GET /api/v1/openapi.json`, and every operation they describe
//! is served (a request for it without the token is 401, never 404 or
//! 405). Regenerate the copies with
//! `cargo run -p kandev-mcp -- openapi --api serve > docs/openapi/serve.json`
//! (and `--api gateway > docs/openapi/gateway.json`). Schemathesis fuzzes
//! the servers from them: `scripts/schemathesis.sh`.

use crate::common::{BEARER, Server};
use serde_json::Value;

const SERVE: &str = include_str!("../../../../docs/openapi/serve.json");
const GATEWAY: &str = include_str!("../../../../docs/openapi/gateway.json");

fn committed(text: &str) -> Value {
    serde_json::from_str(text).expect("a committed description is JSON")
}

#[test]
fn the_committed_descriptions_are_what_the_code_builds() {
    for (api, text, built) in [
        ("serve", SERVE, kandev_mcp::control::openapi()),
        ("gateway", GATEWAY, kandev_mcp::gateway::control::openapi()),
    ] {
        assert!(
            committed(text) == built,
            "docs/openapi/{api}.json is out of date: regenerate it with \
             `cargo run -p kandev-mcp -- openapi --api {api} > docs/openapi/{api}.json`"
        );
    }
}

/// Every (method, path) `document` describes, `{…}` filled in.
fn operations(document: &Value) -> Vec<(reqwest::Method, String)> {
    let mut all = Vec::new();
    for (path, methods) in document["paths"].as_object().unwrap() {
        let filled = path
            .replace("{id}", "task-1")
            .replace("{principal}", "alice");
        for method in methods.as_object().unwrap().keys() {
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            all.push((method, filled.clone()));
        }
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_server_serves_its_description_and_every_operation_in_it() {
    let http = reqwest::Client::new();
    for (api, text, server) in [
        ("serve", SERVE, Server::start().await),
        ("gateway", GATEWAY, Server::start_gateway(&[]).await),
    ] {
        let document = committed(text);
        let (status, served) = server
            .control(
                &http,
                reqwest::Method::GET,
                "/api/v1/openapi.json",
                Some(BEARER),
                None,
            )
            .await;
        assert_eq!(status, 200, "{api}");
        assert!(served == document, "{api} serves another description");
        for (method, path) in operations(&document) {
            let (status, answer) = server
                .control(&http, method.clone(), &path, None, None)
                .await;
            let open = path == "/metrics" || path.starts_with("/admin");
            if open {
                // Pages answer a browser (a login form, a redirect, a CSRF
                // refusal); metrics are behind the token unless public.
                assert!(
                    ![404, 405].contains(&status),
                    "{api}: {method} {path} is described but not served ({status})"
                );
            } else {
                assert_eq!(
                    (status, answer["code"].as_str()),
                    (401, Some("unauthorized")),
                    "{api}: {method} {path} is described but not served as described"
                );
            }
        }
    }
}
