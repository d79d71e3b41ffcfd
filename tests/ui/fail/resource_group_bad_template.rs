#[path = "../support.rs"]
mod support;

use mcp_profiles::resource_group;
use rmcp::ErrorData;
use rmcp::model::ReadResourceResult;
use rmcp::service::{RequestContext, RoleServer};
use support::Kandev;

#[resource_group(name = "task-files", surface = "kanban-task")]
impl Kandev {
    #[resource(uri_template = "kandev://task/{task_id}/files/{+path}")]
    async fn task_file(
        &self,
        uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let _ = uri;
        Ok(ReadResourceResult::new(vec![]))
    }
}

fn main() {}
