//! The Kandev example's SQLite board: what one tool-sized change (a task's
//! title) costs when it is written through to the file, on the demo board
//! and on a board near its 20,000-record cap, against the same change in
//! memory. Each change is one `BEGIN IMMEDIATE` … `COMMIT` writing only the
//! changed row; finding it compares every record with its saved copy, so
//! the cost grows with the board.
//!
//! `cargo bench -p mcp-profiles-bench --bench sqlite_board`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kandev_mcp::store::{MAX_RECORDS, Message, Store};

/// Grows the board to `records` records with messages, in one change.
fn grow(store: &Store, records: usize) {
    let mut board = store.lock();
    let template = Message {
        id: String::new(),
        task_id: "task-4".into(),
        session_id: "session-1".into(),
        kind: "prompt".into(),
        text: "Run the login test fifty times and report the failures.".into(),
        delivery_mode: "queued".into(),
        reply_to_question_id: None,
        sequence: 0,
    };
    while board.records() < records {
        let sequence = board.next_sequence();
        board.messages.push(Message {
            id: format!("message-{sequence}"),
            sequence,
            ..template.clone()
        });
    }
}

/// One tool-sized change: task-4's title.
fn rename(store: &Store, round: &mut u64) {
    *round += 1;
    let mut board = store.lock();
    let task = board.tasks.get_mut("task-4").expect("the demo's task-4");
    task.title = format!("Fix the flaky login test, take {round}");
    black_box(&task.title);
}

fn sqlite_board(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut group = c.benchmark_group("sqlite_board");
    for (name, records) in [("demo", 0), ("20k", MAX_RECORDS - 1)] {
        let memory = Store::demo();
        grow(&memory, records);
        let mut round = 0;
        group.bench_function(format!("rename/{name}/memory"), |b| {
            b.iter(|| rename(&memory, &mut round))
        });
        let file = Store::create(&dir.path().join(format!("{name}.db"))).expect("a new database");
        grow(&file, records);
        group.bench_function(format!("rename/{name}/sqlite"), |b| {
            b.iter(|| rename(&file, &mut round))
        });
    }
    group.finish();
}

criterion_group!(benches, sqlite_board);
criterion_main!(benches);
