//! What tool search saves on each Kandev surface: the `tools/list` answer
//! of the surface's largest profile, in bytes of its JSON, with every tool
//! listed and with Kandev's search (the question tool and search's two).
//!
//! `cargo run --release -p mcp-profiles-bench --example search_savings`
//!
//! Prints a markdown table (the one in BENCHMARKS.md).

use kandev_mcp::{Kandev, Surface};
use mcp_profiles::{ProfileContext, ProfileController, ToolSearch, Vocabulary};

/// The valid context of `surface` that serves the most tools.
fn largest(surface: Surface) -> ProfileContext<Kandev> {
    ProfileContext::<Kandev>::all()
        .filter(|context| context.surface() == surface)
        .max_by_key(|context| Kandev::registry().assemble(context).tool_names().len())
        .expect("every surface has a valid context")
}

/// The JSON of a `tools/list` answer's tools, in bytes, and how many.
fn listed(controller: &ProfileController<Kandev>) -> (usize, usize) {
    let tools = controller.tools();
    (
        serde_json::to_vec(&tools).expect("tools serialize").len(),
        tools.len(),
    )
}

fn main() {
    let search = ToolSearch::<Kandev>::new()
        .always_listing(kandev_mcp::search::ALWAYS_LISTED)
        .expect("declared groups");
    println!(
        "| surface (largest profile) | tools | full list, bytes | with search: tools | bytes | saved |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for surface in [
        Surface::KanbanTask,
        Surface::OfficeTask,
        Surface::Configuration,
        Surface::External,
        Surface::Automation,
        Surface::Coordinator,
    ] {
        let context = largest(surface);
        let controller = ProfileController::<Kandev>::new(context);
        let (full_bytes, full_tools) = listed(&controller);
        controller
            .set_tool_search(search.clone())
            .expect("no collision");
        let (bytes, tools) = listed(&controller);
        let searched = if kandev_mcp::search::SEARCHED_SURFACES.contains(&surface) {
            ""
        } else {
            " (not searched by default)"
        };
        println!(
            "| {context}{searched} | {full_tools} | {full_bytes} | {tools} | {bytes} | {:.0}% |",
            100.0 * (1.0 - bytes as f64 / full_bytes as f64)
        );
    }
}
