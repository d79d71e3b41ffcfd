//! The demo's plugin backend: one plugin (`Acme.Jira`) with one tool,
//! answered by a small HTTP server on loopback, as Kandev's backend would.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Json;
use axum::routing::post;
use serde_json::{Value, json};

use crate::plugins::{Backend, Plugins, Snapshot, exposed_name};

/// The plugin tool's exposed name.
pub fn tool_name() -> String {
    exposed_name("Acme.Jira", "create_issue")
}

/// Revision `revision` of the demo catalog, with the tool or without it.
pub fn snapshot(revision: u64, with_tool: bool) -> Snapshot {
    let tools = if with_tool {
        json!([{
            "plugin_id": "Acme.Jira",
            "plugin_display_name": "Acme Jira",
            "local_name": "create_issue",
            "exposed_name": tool_name(),
            "description": "Create a Jira issue for this task.",
            "surfaces": ["kanban-task", "office-task"],
            "input_schema": {
                "type": "object",
                "properties": {"summary": {"type": "string", "minLength": 1}},
                "required": ["summary"],
                "additionalProperties": false
            },
            "read_only_hint": false,
            "destructive_hint": false,
            "idempotent_hint": false,
            "open_world_hint": true
        }])
    } else {
        json!([])
    };
    let body = json!({"generation": "demo", "revision": revision, "tools": tools});
    Snapshot::decode(body.to_string().as_bytes()).expect("the demo snapshot is valid")
}

/// Serves the demo plugin backend on loopback; [`Plugins`] forwarding to it.
pub async fn backend() -> std::io::Result<(Plugins, tokio::task::JoinHandle<()>)> {
    let app = axum::Router::new().route("/invoke", post(invoke));
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let url = format!("http://{}/invoke", listener.local_addr()?);
    let serving = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let backend = Backend::new(&url, Duration::from_secs(5)).map_err(std::io::Error::other)?;
    Ok((Plugins::new(backend), serving))
}

async fn invoke(Json(call): Json<Value>) -> Json<Value> {
    let summary = call["arguments"]["summary"].as_str().unwrap_or_default();
    let surface = call["surface"].as_str().unwrap_or_default();
    Json(json!({
        "text": format!("created ACME-101 \"{summary}\" (from a {surface} session)"),
        "is_error": false
    }))
}
