//! The one `tracing` info event every replacement emits, and the spans of
//! the `metrics` feature around it and around a call. Alone in their test
//! binary: tracing caches callsite interest process-wide, and a concurrent
//! test replacing profiles without a subscriber could make this thread's
//! scoped subscriber miss the event.

use std::sync::{Arc, Mutex};

use mcp_profiles::{ProfileContext, ProfileController};
#[cfg(feature = "metrics")]
use mcp_profiles_tests::client::{Session, refused, serve_duplex};
use mcp_profiles_tests::{Capability, Surface, TaskServer};
use tracing_subscriber::fmt::format::FmtSpan;

type Context = ProfileContext<TaskServer>;

/// Collects what the fmt layer writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A subscriber writing to a buffer, at `level` and above, and the buffer.
fn capturing(
    level: tracing::Level,
) -> (impl tracing::Subscriber + Send + Sync + 'static, Captured) {
    capturing_with(level, FmtSpan::NONE)
}

/// [`capturing`], writing the span `events` too (a closed span with every
/// field recorded in it, say).
fn capturing_with(
    level: tracing::Level,
    events: FmtSpan,
) -> (impl tracing::Subscriber + Send + Sync + 'static, Captured) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(level)
        .with_span_events(events)
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .finish();
    (subscriber, captured)
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[test]
fn every_replacement_emits_one_info_event_with_old_new_and_counts() {
    let (subscriber, captured) = capturing(tracing::Level::INFO);
    let controller = ProfileController::<TaskServer>::new(
        Context::new(Surface::KanbanTask)
            .with_capability(Capability::UserQuestion)
            .unwrap(),
    );
    tracing::subscriber::with_default(subscriber, || {
        controller.replace(
            Context::new(Surface::KanbanTask)
                .with_capability(Capability::ParentQuestion)
                .unwrap(),
        );
    });
    let output = captured.text();
    let tools = controller.current().tool_names().len();
    // In the replacement's span with the `metrics` feature.
    let span = if cfg!(feature = "metrics") {
        "mcp_profiles.replace{old=kanban-task +user-question \
         profile=kanban-task +parent-question}: "
    } else {
        ""
    };
    assert_eq!(
        output,
        format!(
            " INFO {span}tool profile replaced \
             old=kanban-task +user-question new=kanban-task +parent-question \
             tools={tools} added=1 removed=1 notified_sessions=0\n"
        )
    );
}

/// A call runs in a `debug` span naming the tool, the profile, the
/// revision and tools digest it is decided under, and the decision: a
/// refusal says why, and is logged inside the span.
#[cfg(feature = "metrics")]
#[tokio::test(flavor = "current_thread")]
async fn a_call_runs_in_a_span_with_its_tool_profile_and_decision() {
    use mcp_profiles::{DenyList, Policy};
    // Closed spans are written with their fields: an allowed call logs
    // nothing inside its span.
    let (subscriber, captured) = capturing_with(tracing::Level::DEBUG, FmtSpan::CLOSE);
    let _default = tracing::subscriber::set_default(subscriber);
    let asking = Context::new(Surface::KanbanTask)
        .with_capability(Capability::UserQuestion)
        .unwrap();
    let controller = ProfileController::<TaskServer>::new(asking);
    let session = Session::connect(serve_duplex(controller.server(TaskServer::default()))).await;
    let digest = controller.exposure().digest;
    assert_eq!(
        session.call("no_such_tool", None).await,
        refused("no_such_tool")
    );
    let output = captured.text();
    let refusal = format!(
        "mcp_profiles.call{{tool=no_such_tool profile=kanban-task +user-question revision=1 \
         digest=\"{digest}\" decision=\"refused\" reason=\"not_in_profile\"}}: \
         refused a tool outside the current profile tool=no_such_tool"
    );
    assert!(output.contains(&refusal), "{output}");

    // Allowed: the decision, no reason.
    session.call("ask_user_question", None).await;
    let allowed = format!("revision=1 digest=\"{digest}\" decision=\"allowed\"}}");
    assert!(captured.text().contains(&allowed), "{}", captured.text());

    // Removed by the context's own deny list: the policy; by the
    // operator's switch: the kill switch. A new revision each time the
    // profile changes, not when the switch flips.
    let denied = DenyList::new(["ask_user_question"]).unwrap();
    controller.replace(asking.with_policy(Policy::none().with_deny(denied)));
    session.call("ask_user_question", None).await;
    let text = captured.text();
    assert!(
        text.contains("revision=2 digest=") && text.contains("reason=\"policy\""),
        "{text}"
    );
    controller.replace(asking);
    controller.kill_switch().set(denied);
    session.call("ask_user_question", None).await;
    let text = captured.text();
    assert!(
        text.contains("revision=3 digest=") && text.contains("reason=\"kill_switch\""),
        "{text}"
    );
}
