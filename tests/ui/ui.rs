//! Compile-time errors of `#[tool_group]`, `#[prompt_group]`,
//! `#[resource_group]` and `vocabulary!`, as trybuild
//! snapshots, one case per file in `fail/`. Regenerate after an intended
//! change with `TRYBUILD=overwrite cargo test -p mcp-profiles-ui --test ui`
//! and read every changed `.stderr`.
//!
//! Cases that must compile live in `pass/` and are test targets of their own
//! (see Cargo.toml), so trybuild only checks, never builds.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("fail/*.rs");
}
