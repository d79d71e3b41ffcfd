//! The diagnostic tools of the 2026-07-28 `server-stateless` scenario: a
//! tool that needs a client capability, one that needs input, one that logs
//! only when asked to, one that changes the tool list (by replacing the
//! profile, the only way tools change here) and one that changes the
//! prompt list (the handler's own).

// Logging is deprecated in rmcp (SEP-2577), yet the suite checks it.
#![allow(deprecated)]

use mcp_profiles::tool_group;
use rmcp::handler::server::tool::InputResponses;
use rmcp::model::{CallToolResponse, ClientCapabilities, LoggingMessageNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool};
use serde_json::json;

use crate::mrtr::{ask, done, elicit};
use crate::{Capability, Everything};

type Answer = Result<CallToolResponse, ErrorData>;

#[tool_group(surface = "conformance", name = "diagnostics")]
impl Everything {
    #[tool(description = "Needs the client's sampling capability")]
    async fn test_missing_capability(&self, context: RequestContext<RoleServer>) -> Answer {
        let declared = context.client_capabilities();
        if declared.is_some_and(|capabilities| capabilities.sampling.is_some()) {
            return Ok(done("The client declared sampling"));
        }
        let required: ClientCapabilities = serde_json::from_value(json!({ "sampling": {} }))
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Err(ErrorData::missing_required_client_capability(required))
    }

    #[tool(description = "Asks for input in its result, never by a request of its own")]
    async fn test_streaming_elicitation(
        &self,
        InputResponses(responses): InputResponses,
    ) -> Answer {
        Ok(match responses {
            Some(_) => done("Input received"),
            None => ask([("answer", elicit("Anything to add?", "answer", "string"))]).into(),
        })
    }

    #[tool(description = "Logs three messages, if the request asked for a log level")]
    async fn test_logging_tool(&self, context: RequestContext<RoleServer>) -> Answer {
        if let Some(level) = context.meta.log_level() {
            for message in ["started", "working", "finished"] {
                let log = LoggingMessageNotificationParam::new(level, json!(message));
                let _ = context.peer.notify_logging_message(log).await;
            }
        }
        Ok(done("Logging tool finished"))
    }

    #[tool(description = "Adds or removes test_changing_tool by replacing the profile")]
    async fn test_trigger_tool_change(&self) -> Answer {
        let Some(controller) = self.controller() else {
            return Err(ErrorData::internal_error(
                "no controller attached: the tool list cannot change",
                None,
            ));
        };
        let change = controller.update(|current| {
            if current.has_capability(Capability::Changing) {
                Ok(current.without_capability(Capability::Changing))
            } else {
                current.with_capability(Capability::Changing)
            }
        });
        let change = change.map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(done(format!(
            "Tools added: {:?}; removed: {:?}",
            change.diff.added, change.diff.removed
        )))
    }

    #[tool(description = "Adds or removes the prompt test_changing_prompt")]
    async fn test_trigger_prompt_change(&self) -> Answer {
        let listed = self.toggle_changing_prompt();
        Ok(done(format!("test_changing_prompt listed: {listed}")))
    }
}

#[tool_group(surface = "conformance", capability = "changing", name = "changing")]
impl Everything {
    #[tool(description = "Comes and goes with test_trigger_tool_change")]
    async fn test_changing_tool(&self) -> Answer {
        Ok(done("Still here"))
    }
}
