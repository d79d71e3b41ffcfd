//! The controller's read-modify-write: one serialised step, errors that
//! change nothing and send nothing.

use std::time::Duration;

use mcp_profiles::{ContextError, ProfileContext, ProfileController};
use mcp_profiles_tests::client::{Session, serve_duplex};
use mcp_profiles_tests::contexts::asking;
use mcp_profiles_tests::{Capability, Provider, Surface, TaskServer};

type Context = ProfileContext<TaskServer>;

async fn connected(controller: &ProfileController<TaskServer>) -> Session {
    Session::connect(serve_duplex(controller.server(TaskServer::default()))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_replaces_from_the_current_context() {
    let controller = ProfileController::new(asking());
    let session = connected(&controller).await;

    let change = controller
        .update(|current| current.with_capability(Capability::TaskTitle))
        .unwrap();
    assert_eq!(change.old.context(), &asking());
    assert_eq!(change.diff.added, ["set_task_title"]);
    assert!(change.diff.removed.is_empty());
    assert_eq!(
        session
            .wait_for_notifications(1, Duration::from_secs(10))
            .await,
        1
    );

    let change = controller
        .update(|current| Ok::<_, ContextError>(current.with_provider(Provider::Github)))
        .unwrap();
    assert_eq!(change.diff.added, ["get_pull_request"]);
    assert_eq!(
        controller.current().context().to_json(),
        r#"{"surface":"kanban-task","capabilities":["user-question","task-title"],"providers":["github"]}"#
    );
    assert_eq!(
        session
            .wait_for_notifications(2, Duration::from_secs(10))
            .await,
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_update_changes_nothing_and_sends_nothing() {
    let child = Context::new(Surface::KanbanTask)
        .with_capability(Capability::ParentQuestion)
        .unwrap();
    let controller = ProfileController::new(child);
    let session = connected(&controller).await;

    // The closure's own error comes back as it was.
    let err = controller
        .update(|current| current.with_capability(Capability::UserQuestion))
        .unwrap_err();
    assert!(matches!(err, ContextError::Exclusive { .. }), "{err:?}");
    assert_eq!(
        controller
            .update(|_| Err::<Context, _>("refused by the backend"))
            .unwrap_err(),
        "refused by the backend"
    );
    assert_eq!(controller.current().context(), &child);

    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(session.notifications(), 0, "an error sent a notification");
}

#[test]
fn updates_and_replacements_are_serialised() {
    // Every update flips the provider it reads: a lost update (a replacement
    // landing between an update's read and its swap) would break the chain
    // of old -> new contexts or the final parity.
    let controller = ProfileController::new(asking());
    let flips_per_thread = 50;
    let changes: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let controller = controller.clone();
                scope.spawn(move || {
                    (0..flips_per_thread)
                        .map(|_| {
                            let change = controller
                                .update(|current| {
                                    let flipped = if current.has_provider(Provider::Github) {
                                        current.replace_providers([])
                                    } else {
                                        current.with_provider(Provider::Github)
                                    };
                                    Ok::<_, ContextError>(flipped)
                                })
                                .unwrap();
                            (*change.old.context(), *change.new.context())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap())
            .collect()
    });
    assert_eq!(changes.len(), 4 * flips_per_thread);
    for (old, new) in &changes {
        assert_ne!(
            old.has_provider(Provider::Github),
            new.has_provider(Provider::Github),
            "an update did not flip what it read"
        );
    }
    // 200 flips from "no provider" end on "no provider".
    assert!(
        !controller
            .current()
            .context()
            .has_provider(Provider::Github)
    );
}
