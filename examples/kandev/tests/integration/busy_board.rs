//! Tool handlers never stall the runtime: two dependency checks over a
//! dense 600-task chain run through a real rmcp client while the control API
//! (HTTP on 127.0.0.1) keeps answering.
//!
//! This is the one timed assertion the suite makes: the bound is generous
//! (2 s); the measured figure is printed (`--nocapture`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common;

use kandev_mcp::control;
use kandev_mcp::store::Store;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::json;

const TOKEN: &str = "test-token-0123456789";
const CHAIN: usize = 600;

/// The demo board plus `chain-000` .. `chain-599`, each waiting for every
/// earlier one: 179,700 edges, the shape that made the old cycle check
/// O(V·E) per call.
fn chained_store() -> Arc<Store> {
    let store = Arc::new(Store::demo());
    {
        let mut board = store.lock();
        let template = board.tasks["task-1"].clone();
        for index in 0..CHAIN {
            let id = format!("chain-{index:03}");
            let mut task = template.clone();
            task.id = id.clone();
            board.tasks.insert(id.clone(), task);
            for earlier in 0..index {
                board
                    .dependencies
                    .insert((id.clone(), format!("chain-{earlier:03}")));
            }
        }
    }
    store
}

/// GETs the profile over its own thread and runtime until `done`, so the
/// measurement is the server's answer time, not this test runtime's; the
/// slowest answer and how many were made.
fn poll_control(url: String, done: Arc<std::sync::atomic::AtomicBool>) -> (Duration, usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let http = reqwest::Client::new();
        let (mut slowest, mut count) = (Duration::ZERO, 0);
        loop {
            let finished = done.load(std::sync::atomic::Ordering::SeqCst);
            let started = Instant::now();
            let response = http
                .get(&url)
                .header("Authorization", format!("Bearer {TOKEN}"))
                .send()
                .await
                .expect("the control API answers");
            assert_eq!(response.status().as_u16(), 200);
            response.bytes().await.unwrap();
            slowest = slowest.max(started.elapsed());
            count += 1;
            if finished {
                return (slowest, count);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_control_api_answers_while_dependency_checks_run() {
    let (client, single) = common::in_process(chained_store(), "chain-000").await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/api/v1/mcp/profile",
        listener.local_addr().unwrap()
    );
    let app = control::router(single.clone(), TOKEN);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let call = |task_id: &str, depends_on: &str| {
        let params = CallToolRequestParams::new("add_task_dependency_kandev").with_arguments(
            json!({ "task_id": task_id, "depends_on_task_id": depends_on })
                .as_object()
                .unwrap()
                .clone(),
        );
        let peer = client.peer().clone();
        tokio::spawn(async move { peer.call_tool(params).await })
    };
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let poller = std::thread::spawn({
        let done = Arc::clone(&done);
        move || poll_control(url, done)
    });
    let started = Instant::now();
    // The first closes a cycle (refused); the second re-adds an existing
    // edge. Both walk the whole chain.
    let (cycle, existing) = tokio::join!(
        call("chain-000", "chain-599"),
        call("chain-599", "chain-598")
    );
    let calls = started.elapsed();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let (slowest, answers) = poller.join().expect("the poller finishes");
    println!(
        "two dependency calls: {calls:?}; {answers} control GETs meanwhile, slowest {slowest:?}"
    );

    let text = |result: CallToolResult| -> (bool, String) {
        let text = result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .map(|t| t.text.clone())
            .collect();
        (result.is_error == Some(true), text)
    };
    let (refused, message) = text(cycle.unwrap().expect("a tool result"));
    assert!(refused && message.contains("would be a cycle"), "{message}");
    let (refused, message) = text(existing.unwrap().expect("a tool result"));
    assert!(
        !refused && message.contains(r#""added":false"#),
        "{message}"
    );
    assert!(
        slowest < Duration::from_secs(2),
        "a control GET took {slowest:?} while the dependency calls ran ({calls:?})"
    );
}
