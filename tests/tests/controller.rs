//! The controller: legacy entry points, errors that change nothing, and the
//! tracing event every replacement emits.

use std::time::Duration;

use mcp_profiles::{LegacyAliases, LegacyError, ProfileContext, ProfileController};
use mcp_profiles_tests::client::Session;
use mcp_profiles_tests::{Capability, Surface, TaskServer};

type Context = ProfileContext<TaskServer>;

fn legacy() -> LegacyAliases<TaskServer> {
    LegacyAliases::new()
        .question_capability(Capability::UserQuestion)
        .mode("task", Surface::KanbanTask, [])
        .mode(
            "task-title-pending",
            Surface::KanbanTask,
            [Capability::TaskTitle],
        )
        .mode("config", Surface::Configuration, [])
        .mode("office", Surface::OfficeTask, [])
        .mode_without_question("external", Surface::External, [])
}

async fn connected(controller: &ProfileController<TaskServer>) -> Session {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = controller.server(TaskServer::default());
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        let running = server.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    Session::connect(client_io).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_mode_and_providers_replace_the_profile() {
    let initial = legacy().context_for_mode("task", false).unwrap();
    let controller = ProfileController::new(initial).with_legacy(legacy());
    let session = connected(&controller).await;

    let change = controller.set_mode("task-title-pending", false).unwrap();
    assert_eq!(change.diff.added, ["set_task_title"]);
    assert!(change.diff.removed.is_empty());
    assert_eq!(
        session
            .wait_for_notifications(1, Duration::from_secs(10))
            .await,
        1
    );

    let change = controller.set_providers(["GitHub"]).unwrap();
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
async fn bad_legacy_input_is_an_error_and_changes_nothing() {
    let initial = legacy().context_for_mode("task", false).unwrap();
    let controller = ProfileController::new(initial).with_legacy(legacy());
    let session = connected(&controller).await;
    let before = *controller.current().context();

    assert_eq!(
        controller.set_mode("chat", false).unwrap_err().to_string(),
        "unknown mode `chat`; expected one of: task, task-title-pending, config, office, external"
    );
    assert_eq!(
        controller
            .set_providers(["github", "bitbucket"])
            .unwrap_err()
            .to_string(),
        "unknown provider `bitbucket`; expected one of: github, gitlab"
    );
    let child = Context::new(Surface::KanbanTask)
        .with_capability(Capability::ParentQuestion)
        .unwrap();
    controller.replace(child);
    assert_eq!(
        session
            .wait_for_notifications(1, Duration::from_secs(10))
            .await,
        1
    );
    assert!(matches!(
        controller.set_mode("task", false),
        Err(LegacyError::Context(_))
    ));
    assert_eq!(controller.current().context(), &child);

    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(session.notifications(), 1, "an error sent a notification");
    assert_ne!(before, child);
}

#[test]
fn a_controller_without_aliases_refuses_modes() {
    let controller = ProfileController::<TaskServer>::new(Context::new(Surface::External));
    assert_eq!(
        controller.set_mode("task", false).unwrap_err().to_string(),
        "unknown mode `task`; this server declares no legacy modes"
    );
}
