//! A tool group declared in another crate than its server's does not
//! compile: rustc refuses the inherent impl (E0116), next to an error that
//! the server's hidden registration macro cannot be found (the type was
//! imported) or is private (the type was named by path). Regenerate after an
//! intended change with
//! `TRYBUILD=overwrite cargo test -p mcp-profiles-ui-foreign --test ui`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("fail/*.rs");
}
