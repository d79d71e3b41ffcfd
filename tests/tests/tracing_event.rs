//! The one `tracing` info event every replacement emits. Alone in its test
//! binary: tracing caches callsite interest process-wide, and a concurrent
//! test replacing profiles without a subscriber could make this thread's
//! scoped subscriber miss the event.

use std::sync::{Arc, Mutex};

use mcp_profiles::{ProfileContext, ProfileController};
use mcp_profiles_tests::{Capability, Surface, TaskServer};

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

#[test]
fn every_replacement_emits_one_info_event_with_old_new_and_counts() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .finish();
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
    let output = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let tools = controller.current().tool_names().len();
    assert_eq!(
        output,
        format!(
            " INFO tool profile replaced old=kanban-task +user-question \
             new=kanban-task +parent-question tools={tools} added=1 removed=1 notified_sessions=0\n"
        )
    );
}
