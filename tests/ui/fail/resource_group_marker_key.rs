#[path = "../support.rs"]
mod support;

use mcp_profiles::resource_group;
use rmcp::ErrorData;
use rmcp::model::ReadResourceResult;
use rmcp::service::{RequestContext, RoleServer};
use support::Kandev;

#[resource_group(name = "board", always)]
impl Kandev {
    #[resource(uri = "kandev://board", mime = "application/json")]
    async fn board(
        &self,
        uri: String,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let _ = uri;
        Ok(ReadResourceResult::new(vec![]))
    }
}

fn main() {}
