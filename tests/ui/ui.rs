//! Compile-time errors of `#[tool_group]`, `#[prompt_group]`,
//! `#[resource_group]` and `vocabulary!`, as trybuild
//! snapshots, one case per file in `fail/`. Regenerate after an intended
//! change with `TRYBUILD=overwrite cargo test -p mcp-profiles-ui --test ui`
//! and read every changed `.stderr`.
//!
//! Cases that must compile live in `pass/` and are test targets of their own
//! (see Cargo.toml), so trybuild only checks, never builds.
//!
//! Each failing case makes one or more mistakes and its snapshot shows one
//! error per mistake, nothing else: [`ERRORS`] says how many, and
//! `snapshots_show_one_error_per_mistake` counts them (see
//! `error_count.rs` for what counts as an error).

#[path = "error_count.rs"]
mod error_count;

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("fail/*.rs");
}

/// The errors each case's snapshot shows: one per mistake the case makes.
/// Where a case makes more than one, the comment says which.
const ERRORS: &[(&str, usize)] = &[
    ("allow_list_default_outside_universe", 1),
    ("allow_list_default_over_max", 1),
    // a name twice in `default`, one twice in `universe`
    ("allow_list_duplicate", 2),
    ("allow_list_malformed", 1),
    ("allow_list_max_above_universe", 1),
    ("allow_list_max_zero", 1),
    ("allow_list_missing_default", 1),
    ("allow_list_near_miss", 1),
    // two unknown keys
    ("allow_list_unknown_key", 2),
    // an unknown tool in `universe`, one in `default`
    ("allow_list_unknown_tool", 2),
    ("allow_list_without_name", 1),
    ("always_with_condition", 1),
    ("always_with_value", 1),
    // three tools, each leaving a hint unstated
    ("annotations_missing", 3),
    ("annotations_required_by_vocabulary", 1),
    ("budget_without_tokens_feature", 1),
    ("duplicate_tool_name", 1),
    ("exclusive_capabilities", 1),
    ("generic_impl", 1),
    // a blank title, a title over two lines, a description twice, a list
    // as a prompt group's description
    ("group_title_misuse", 4),
    // eight dead names in `exclude`
    ("include_dead_exclude", 8),
    // an unknown surface in one group, an unknown key in another
    ("include_failed_group", 2),
    // nine misuses of `include` and `exclude`
    ("include_misuse", 9),
    ("include_two_definitions", 1),
    // a group nobody declared, a tool its group lacks
    ("include_unknown_tool", 2),
    // ONE mistake, TWO errors: rustc resolves the registration macro before
    // any type, and reports the missing macro itself; no fallback can stand in
    // for a macro the user never declared (a glob-imported one would be
    // ambiguous with the real one, E0659). The second error, E0277 on the
    // type, is the one that says what to write
    ("missing_vocabulary", 2),
    ("no_condition", 1),
    ("no_tool_method", 1),
    ("not_an_impl", 1),
    ("prompt_group_duplicate_prompt", 1),
    ("prompt_group_rule_misuse", 1),
    ("prompt_group_trait_impl", 1),
    ("prompt_group_unknown_name", 1),
    ("prompt_group_with_prompt_router", 1),
    ("provider_and_providers", 1),
    ("provider_listed_twice", 1),
    ("repeated_key", 1),
    // three groups, each misusing the flag one way
    ("require_annotations_misuse", 3),
    ("resource_group_bad_template", 1),
    ("resource_group_marker_key", 1),
    ("resource_group_unknown_name", 1),
    ("resource_group_uri_with_variable", 1),
    // three misused rule keys
    ("rule_key_misuse", 3),
    ("server_without_handler", 1),
    // three misused keys
    ("several_attribute_errors", 3),
    // three unknown names
    ("several_unknown_names", 3),
    ("surface_and_surfaces", 1),
    ("too_many_terms", 1),
    // two impl blocks, each with `#[tool_router]`
    ("tool_router_above_tool_group", 2),
    ("tool_router_below_tool_group", 1),
    ("trait_impl", 1),
    ("unknown_capability", 1),
    ("unknown_key", 1),
    ("unknown_provider", 1),
    ("unknown_provider_in_list", 1),
    ("unknown_surface", 1),
    ("unsatisfiable_any_capability", 1),
    // nine vocabularies, each misusing `#[budget]` one way
    ("vocabulary_budget_misuse", 9),
    // three vocabularies, each declaring one part twice
    ("vocabulary_duplicate_part", 3),
    ("vocabulary_empty_surfaces", 1),
    // a rename, an unmarked enum, an unknown `exclusive_with`
    ("vocabulary_errors", 3),
    ("vocabulary_missing_surfaces", 1),
    ("vocabulary_misspelt_capabilities", 1),
    ("vocabulary_misspelt_providers", 1),
    ("vocabulary_misspelt_surfaces", 1),
    ("vocabulary_out_of_scope", 1),
    // a value, a repeat, a misspelling
    // a value, then the flag given twice (three times in all)
    ("vocabulary_additive_misuse", 3),
    ("vocabulary_require_annotations_misuse", 3),
    // four vocabularies, each misusing a role attribute one way
    ("vocabulary_role_misuse", 4),
    // twelve vocabularies, one with two wrong surfaces
    ("vocabulary_runtime_allow_list_misuse", 13),
    // five vocabularies, each with its `server` line wrong one way
    ("vocabulary_server_line", 5),
    ("vocabulary_syntax_error", 1),
    // three vocabularies, each with one unmarked enum
    ("vocabulary_unmarked_part", 3),
];

#[test]
fn snapshots_show_one_error_per_mistake() {
    error_count::check(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), ERRORS);
}
