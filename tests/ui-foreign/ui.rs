//! A tool group declared in another crate than its server's does not
//! compile: rustc refuses the inherent impl (E0116), next to an error that
//! the server's hidden registration macro cannot be found (the type was
//! imported) or is private (the type was named by path). Regenerate after an
//! intended change with
//! `TRYBUILD=overwrite cargo test -p mcp-profiles-ui-foreign --test ui`.
//!
//! Each snapshot's errors are counted as `tests/ui`'s are
//! (`tests/ui/error_count.rs`).

#[path = "../ui/error_count.rs"]
mod error_count;

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("fail/*.rs");
}

/// The errors each case's snapshot shows. Both cases make one mistake and
/// show two errors, both rustc's own: E0116 on the impl, and the registration
/// macro, which rustc resolves before it looks at any type, not found or
/// private. Nothing a macro emits can stand in for a macro of another crate.
const ERRORS: &[(&str, usize)] = &[
    ("group_in_another_crate", 2),
    ("group_in_another_crate_by_path", 2),
];

#[test]
fn snapshots_show_one_error_per_mistake() {
    error_count::check(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), ERRORS);
}
