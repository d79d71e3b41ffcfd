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

/// The matrix's annotation table shows one row per tool name: every
/// definition of a name (groups that never meet may share one) must say the
/// same, and state every hint.
#[test]
fn every_tool_states_every_hint_and_shared_names_agree() {
    use mcp_profiles::Vocabulary;
    let mut seen = std::collections::BTreeMap::new();
    for group in kandev_mcp::Kandev::registry().groups() {
        for route in group.routes() {
            let name = route.attr.name.to_string();
            let hints = route
                .attr
                .annotations
                .unwrap_or_else(|| panic!("{name} in {} has no annotations", group.name()));
            for (hint, value) in [
                ("read_only_hint", hints.read_only_hint),
                ("destructive_hint", hints.destructive_hint),
                ("idempotent_hint", hints.idempotent_hint),
                ("open_world_hint", hints.open_world_hint),
            ] {
                assert!(
                    value.is_some(),
                    "{name} in {} leaves out {hint}",
                    group.name()
                );
            }
            if let Some((first, earlier)) =
                seen.insert(name.clone(), (group.name().to_owned(), hints.clone()))
            {
                assert_eq!(
                    earlier,
                    hints,
                    "{name}: {first} and {} disagree",
                    group.name()
                );
            }
        }
    }
    assert_eq!(seen.len(), kandev_mcp::policy::tool_names().count());
}
