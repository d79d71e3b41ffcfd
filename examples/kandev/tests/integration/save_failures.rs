//! A change the database refuses fails the tool call: the agent is never
//! told of a change the file does not hold, and the board in memory goes
//! back to what the file holds.

use std::sync::Arc;

use kandev_mcp::store::Store;
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::json;

use crate::common::{self, Db};

/// Another writer of the file makes every write of a task row fail, the
/// way a full disk or a broken file would, until `DROP TRIGGER refuse`.
const REFUSE_TASK_ROWS: &str = "CREATE TRIGGER refuse BEFORE INSERT ON tasks \
     BEGIN SELECT RAISE(ABORT, 'no room for this row'); END;";

fn title_of(store: &Store, task: &str) -> String {
    store.refresh().expect("the file reads");
    store.peek(|board| board.tasks[task].title.clone())
}

#[tokio::test]
async fn a_change_the_file_refuses_fails_the_call_and_is_not_kept() {
    let (db, _) = Db::init();
    let store = Arc::new(Store::open(&db.path).expect("the database opens"));
    let (client, _controller) = common::in_process(store.clone(), "task-2").await;
    let before = title_of(&store, "task-3");
    let rename = |title: &str| {
        let arguments = json!({ "task_id": "task-3", "title": title });
        let serde_json::Value::Object(arguments) = arguments else {
            unreachable!()
        };
        CallToolRequestParams::new("update_task_kandev").with_arguments(arguments)
    };

    let other = rusqlite::Connection::open(&db.path).expect("a second connection");
    other.execute_batch(REFUSE_TASK_ROWS).expect("the trigger");
    let refused = client.call_tool(rename("Never saved")).await;
    let Err(ServiceError::McpError(error)) = refused else {
        panic!("a refused save must fail the call, got {refused:?}");
    };
    assert!(
        error.message.contains("nothing was changed") && error.message.contains("no room"),
        "the error names the failure: {}",
        error.message
    );
    assert_eq!(title_of(&store, "task-3"), before, "the change is not kept");

    other
        .execute_batch("DROP TRIGGER refuse")
        .expect("the trigger goes");
    let saved = client
        .call_tool(rename("Saved"))
        .await
        .expect("the call runs");
    assert_ne!(saved.is_error, Some(true), "{saved:?}");
    assert_eq!(title_of(&store, "task-3"), "Saved");
}
