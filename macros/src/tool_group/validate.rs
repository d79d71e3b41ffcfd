//! Validate stage: what the impl block of tools means, with every problem
//! recorded in [`Errors`] rather than stopping at the first. The attribute's
//! rule keys are `rule_args`' to check.

use proc_macro2::TokenStream;
use syn::{ItemImpl, TypePath};

use super::parse::{Hints, ToolFn};
use crate::errors::Errors;
use crate::impl_block::{Keyed, Marker, check};

/// The hints `tool` leaves unstated, by the rule the annotation requirement
/// enforces: a tool says whether it is read-only, and a tool that is not
/// read-only also says whether it is destructive. MCP clients assume the
/// worst for an absent hint (`readOnlyHint` false, `destructiveHint` true)
/// and ignore `destructiveHint` on a read-only tool, so `read_only_hint =
/// true` alone is a complete statement. Whether the requirement applies is
/// decided by the registration macro, which knows the vocabulary's switch.
pub(crate) fn missing_hints(hints: &Hints) -> Vec<&'static str> {
    match (hints.read_only, hints.destructive) {
        (Some(true), _) | (Some(false), Some(_)) => Vec::new(),
        (Some(false), None) => vec!["destructive_hint"],
        (None, Some(_)) => vec!["read_only_hint"],
        (None, None) => vec!["read_only_hint", "destructive_hint"],
    }
}

/// How `#[tool_group]`'s errors about its impl block say it.
const MARKER: Marker = Marker {
    attr: "tool_group",
    marker: "#[tool]",
    item: "tool",
    trait_reason: "rmcp's #[tool] adds associated functions that a trait impl cannot hold",
    how_to_mark: "mark its handlers with rmcp's #[tool]",
    keys: "tool names",
};

/// Checks the impl block: inherent, concrete, with uniquely named tools
/// (none needed when the group includes others'). Returns the self type's
/// path when the block is usable.
pub(crate) fn item<'a>(
    item: &'a ItemImpl,
    tools: &[ToolFn],
    includes: bool,
    errors: &mut Errors,
) -> Option<&'a TypePath> {
    let keyed: Vec<Keyed<'_>> = tools
        .iter()
        .map(|tool| Keyed {
            key: &tool.name,
            span: tool.name_span,
            method: &tool.method,
        })
        .collect();
    check(
        item,
        &MARKER,
        keyed.len() + usize::from(includes),
        &keyed,
        errors,
    )
}

/// An impl block that is both a tool group and an rmcp `#[tool_router]`: the
/// profile serves its tools, and the router would be built but never
/// consulted. One error per trace of `#[tool_router]`.
pub(crate) fn no_tool_router(traces: &[TokenStream], errors: &mut Errors) {
    for trace in traces {
        errors.spanned(
            trace,
            "`#[tool_router]` and `#[tool_group]` on one impl block: the tool group serves \
             these tools through the profile, so rmcp's router would never be called; remove \
             `#[tool_router]`, and `#[tool_handler]` from the `ServerHandler` impl (keep that \
             impl for server info)",
        );
    }
}
