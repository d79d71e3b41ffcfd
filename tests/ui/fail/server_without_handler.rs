// A server type must implement rmcp's ServerHandler (for everything but
// tools) before a controller can serve it; the error names the type where
// the server is made, whatever transport comes next.
#[path = "../support.rs"]
mod support;

use mcp_profiles::{ProfileContext, ProfileController};
use support::{Kandev, Surface};

fn main() {
    let controller = ProfileController::<Kandev>::new(ProfileContext::new(Surface::KanbanTask));
    let _server = controller.server(Kandev);
}
