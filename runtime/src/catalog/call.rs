//! Calling a runtime tool: arguments checked against the input schema
//! compiled at install, then the handler.

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use super::Entry;
use super::validate::display_path;
use crate::Vocabulary;
use crate::telemetry::{self, Refusal};

/// Runs the visible runtime tool `entry` (the server found it by
/// `request.name`, once).
///
/// Arguments that do not match the input schema fail with JSON-RPC -32602
/// naming the first failing instance path, and the handler never runs.
pub(crate) async fn call<S: Vocabulary>(
    entry: &Entry<S>,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let arguments = Value::Object(request.arguments.unwrap_or_default());
    if let Err(error) = entry.arguments.validate(&arguments) {
        let path = error.instance_path().to_string();
        let message = format!(
            "the arguments of tool `{}` do not match its input schema at `{}`: {error}",
            entry.tool.name(),
            display_path(&path),
        );
        telemetry::decided(|| Some("bad_arguments"));
        telemetry::refused(Refusal::BadArguments);
        return Err(ErrorData::invalid_params(
            message,
            Some(serde_json::json!({ "path": path })),
        ));
    }
    let Value::Object(arguments) = arguments else {
        unreachable!("built as an object above")
    };
    #[cfg(not(feature = "metrics"))]
    return (entry.tool.handler)(arguments, context).await;
    #[cfg(feature = "metrics")]
    {
        let started = telemetry::Started::now();
        let result = (entry.tool.handler)(arguments, context).await;
        entry.meter.finish_runtime(started, &result);
        result
    }
}
