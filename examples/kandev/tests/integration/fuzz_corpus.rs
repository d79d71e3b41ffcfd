//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) through the
//! same checks the cargo-fuzz targets run (`fuzz/src/lib.rs`, included here
//! as a module so libFuzzer stays out of the workspace): every seed and
//! every input the fuzzer kept either decodes to a valid context that
//! round-trips, or is refused with an error, in agreement with the oracles.

#[path = "../../../../fuzz/src/lib.rs"]
mod checks;

use std::path::{Path, PathBuf};

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| {
            let path = entry.expect("a directory entry").path();
            let bytes =
                std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            (path, bytes)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no corpus", dir.display());
    files
}

fn replay(target: &str, check: fn(&[u8])) {
    let files = corpus(target);
    for (path, bytes) in &files {
        let outcome = std::panic::catch_unwind(|| check(bytes));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails the check (input {:?})",
            path.display(),
            String::from_utf8_lossy(bytes)
        );
    }
    println!("{target}: replayed {} corpus files", files.len());
}

#[test]
fn context_json_corpus_replays() {
    replay("context_json", checks::check_context_json);
}

#[test]
fn legacy_corpus_replays() {
    replay("legacy", checks::check_legacy);
}

#[test]
fn control_corpus_replays() {
    replay("control", checks::check_control);
}

#[test]
fn plugin_snapshot_corpus_replays() {
    replay("plugin_snapshot", checks::check_plugin_snapshot);
}

#[test]
fn gateway_control_corpus_replays() {
    replay("gateway_control", checks::check_gateway_control);
}

#[test]
fn kill_switch_corpus_replays() {
    replay("kill_switch", checks::check_kill_switch);
}

#[test]
fn plugin_tools_corpus_replays() {
    replay("plugin_tools", checks::check_plugin_tools);
}

#[test]
fn oauth_router_corpus_replays() {
    replay("oauth_router", checks::check_oauth_router);
}
