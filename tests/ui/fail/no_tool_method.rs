#[path = "../support.rs"]
mod support;

use mcp_profiles::tool_group;
use support::Kandev;

#[tool_group(surface = "kanban-task")]
impl Kandev {
    fn helper(&self) -> usize {
        1
    }
}

fn main() {
    let _ = Kandev.helper();
}
