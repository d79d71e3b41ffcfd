//! Tools that notify the client while they run: log messages and progress.

// Logging is deprecated in rmcp (SEP-2577), yet the 2025-era suite tests it.
#![allow(deprecated)]

use std::time::Duration;

use mcp_profiles::tool_group;
use rmcp::model::{
    CallToolResult, ContentBlock, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool};
use serde_json::json;

use crate::Everything;

/// The pause between notifications the scenarios ask for.
const STEP: Duration = Duration::from_millis(50);

#[tool_group(surface = "conformance", name = "notifications")]
impl Everything {
    #[tool(description = "Sends three log messages while it runs")]
    async fn test_tool_with_logging(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        for message in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ] {
            let log = LoggingMessageNotificationParam::new(LoggingLevel::Info, json!(message))
                .with_logger("everything");
            // A client gone mid-call loses its log; the call itself still answers.
            let _ = context.peer.notify_logging_message(log).await;
            tokio::time::sleep(STEP).await;
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "Logging test completed",
        )]))
    }

    #[tool(description = "Reports progress 0, 50 and 100 of 100")]
    async fn test_tool_with_progress(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let token = context.meta.get_progress_token();
        for (progress, message) in [(0.0, "Starting"), (50.0, "Halfway"), (100.0, "Complete")] {
            if let Some(token) = &token {
                let step = ProgressNotificationParam::new(token.clone(), progress)
                    .with_total(100.0)
                    .with_message(message);
                let _ = context.peer.notify_progress(step).await;
            }
            tokio::time::sleep(STEP).await;
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "Progress test completed",
        )]))
    }

    #[tool(description = "Answers after a pause, for SSE reconnection tests")]
    async fn test_reconnection(&self) -> Result<CallToolResult, ErrorData> {
        tokio::time::sleep(STEP * 2).await;
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "Reconnection test completed",
        )]))
    }
}
