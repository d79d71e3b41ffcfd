//! Compile-time checks of `#[tool_group]` and `vocabulary!`, as trybuild
//! snapshots. Regenerate after an intended change with
//! `TRYBUILD=overwrite cargo test -p mcp-profiles-tests --test ui`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
