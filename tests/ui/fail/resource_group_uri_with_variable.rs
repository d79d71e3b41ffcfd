#[path = "../support.rs"]
mod support;

use mcp_profiles::resource_group;
use rmcp::ErrorData;
use rmcp::model::ReadResourceResult;
use rmcp::service::{RequestContext, RoleServer};
use support::Kandev;

#[resource_group(name = "task-plan", surface = "kanban-task")]
impl Kandev {
    #[resource(uri = "kandev://task/{task_id}/plan", name = "task-plan")]
    async fn task_plan(
        &self,
        uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let _ = uri;
        Ok(ReadResourceResult::new(vec![]))
    }
}

fn main() {}
