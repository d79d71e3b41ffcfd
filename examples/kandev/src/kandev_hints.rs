//! The annotation hints Kandev's own source sets, tool by tool: the
//! `annotations` column of its catalog (`tests/data/kandev-catalog.tsv`,
//! which a test holds this table to). Where Kandev sets a hint, ours says
//! the same; every other hint is ours, chosen from what our handler does.
//! The matrix marks which is which.

/// The hints Kandev sets on one tool; `None` where it sets none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KandevHints {
    /// The tool.
    pub tool: &'static str,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

/// A table row: the four hints in MCP's order (read-only, destructive,
/// idempotent, open-world).
const fn set(tool: &'static str, hints: [Option<bool>; 4]) -> KandevHints {
    let [read_only, destructive, idempotent, open_world] = hints;
    KandevHints {
        tool,
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}

const T: Option<bool> = Some(true);
const F: Option<bool> = Some(false);
const UNSET: Option<bool> = None;

/// Every tool on which Kandev's source (at 2ead7b81) sets a hint, by name.
pub const KANDEV_HINTS: &[KandevHints] = &[
    set("add_workspace_sources_kandev", [F, F, T, T]),
    set("archive_task_kandev", [F, F, T, F]),
    set("ask_user_question_kandev", [UNSET, F, UNSET, UNSET]),
    set("create_automation_kandev", [F, F, F, UNSET]),
    set("create_canvas_kandev", [F, F, F, F]),
    set("create_shared_prompt_kandev", [F, F, F, F]),
    set("delete_task_kandev", [F, T, F, F]),
    set("export_workflow_kandev", [T, F, T, F]),
    set("get_canvas_kandev", [T, F, T, F]),
    set("get_canvas_state_kandev", [T, F, T, F]),
    set("get_shared_prompt_kandev", [T, F, T, F]),
    set("list_shared_prompts_kandev", [T, F, T, F]),
    set("list_task_sessions_kandev", [T, F, T, F]),
    set("publish_canvas_kandev", [F, F, F, F]),
    set("set_canvas_state_kandev", [F, F, F, F]),
    set("show_rich_output_kandev", [T, F, UNSET, UNSET]),
    set("stop_task_kandev", [F, T, T, F]),
    set("update_shared_prompt_kandev", [F, T, F, F]),
];

/// The hints Kandev sets on `tool`, if it sets any.
pub fn kandev_hints(tool: &str) -> Option<&'static KandevHints> {
    KANDEV_HINTS.iter().find(|hints| hints.tool == tool)
}
