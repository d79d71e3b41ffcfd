//! The golden profile matrix: `matrix.md` must equal what the registry
//! assembles. After an intended change, regenerate it with
//! `cargo run -p kandev-mcp -- matrix --format markdown > examples/kandev/matrix.md`.

#[test]
fn the_committed_matrix_matches_the_registry() {
    let committed = include_str!("../../matrix.md");
    let generated = kandev_mcp::matrix::markdown();
    if committed != generated {
        let first = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || "a line count".to_owned(),
                |line| format!("line {}", line + 1),
            );
        panic!(
            "matrix.md is out of date (first difference at {first}); regenerate it with \
             `cargo run -p kandev-mcp -- matrix --format markdown > examples/kandev/matrix.md` \
             and review what agents can now reach"
        );
    }
}
