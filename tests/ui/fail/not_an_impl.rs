#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;

#[tool_group(surface = "kanban-task")]
struct Tools;

fn main() {
    let _ = Tools;
    let _ = support::Kandev;
}
