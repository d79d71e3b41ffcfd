//! What tool search saves on each Kandev surface: the `tools/list` answer
//! of the surface's largest profile, in bytes of its JSON and o200k tokens
//! ([`ListCost`]), with every tool listed and with Kandev's search (the
//! question tool and search's two).
//!
//! `cargo run --release -p mcp-profiles-bench --example search_savings`
//!
//! Prints a markdown table (the one in BENCHMARKS.md).

use kandev_mcp::Kandev;
use mcp_profiles::{ListCost, ProfileController, ToolSearch};
use mcp_profiles_bench::largest_kandev_contexts;

/// What a session's `tools/list` costs, and how many tools it lists.
fn listed(controller: &ProfileController<Kandev>) -> (ListCost, usize) {
    let tools = controller.tools();
    (ListCost::of(&tools), tools.len())
}

fn main() {
    let search = ToolSearch::<Kandev>::new()
        .always_listing(kandev_mcp::search::ALWAYS_LISTED)
        .expect("declared groups");
    println!(
        "| surface (largest profile) | tools | bytes | tokens | with search: tools | bytes | tokens | tokens saved |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for context in largest_kandev_contexts() {
        let controller = ProfileController::<Kandev>::new(context);
        let (full, full_tools) = listed(&controller);
        controller
            .set_tool_search(search.clone())
            .expect("no collision");
        let (searched, tools) = listed(&controller);
        let note = if kandev_mcp::search::SEARCHED_SURFACES.contains(&context.surface()) {
            ""
        } else {
            " (not searched by default)"
        };
        println!(
            "| {context}{note} | {full_tools} | {} | {} | {tools} | {} | {} | {} ({:.0}%) |",
            full.bytes(),
            full.tokens(),
            searched.bytes(),
            searched.tokens(),
            full.tokens() - searched.tokens(),
            100.0 * (1.0 - searched.tokens() as f64 / full.tokens() as f64)
        );
    }
}
