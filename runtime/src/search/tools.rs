//! The two tools search lists: their arguments and what they answer; and
//! the search state of one served profile.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, JsonObject, Tool};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Index, ToolSearch};
use crate::Vocabulary;

/// Which of search's tools a call names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Meta {
    Search,
    Call,
}

/// Search as it applies to one served profile: what `tools/list` answers,
/// and the index of every tool the profile serves, built on the first
/// search (a profile searched never pays nothing for it).
pub(crate) struct Searching {
    search: Arc<str>,
    call: Arc<str>,
    limits: (usize, usize),
    listed: Arc<[Tool]>,
    index: OnceLock<Index>,
}

impl Searching {
    /// Search over `reachable` (every tool served, as listed without
    /// search), whose tools `canonical` names canonically.
    pub(crate) fn new<S: Vocabulary>(
        config: &ToolSearch<S>,
        reachable: &[Tool],
        canonical: impl Fn(&str) -> Cow<'_, str>,
    ) -> Self {
        let always = config.always_listed_tools();
        let mut listed: Vec<Tool> = reachable
            .iter()
            .filter(|tool| always.binary_search(&&*canonical(&tool.name)).is_ok())
            .chain(config.tools())
            .cloned()
            .collect();
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        Searching {
            search: Arc::from(config.search_name()),
            call: Arc::from(config.call_name()),
            limits: config.limits(),
            listed: listed.into(),
            index: OnceLock::new(),
        }
    }

    /// What `tools/list` answers.
    pub(crate) fn listed(&self) -> &[Tool] {
        &self.listed
    }

    /// Which of search's tools `name` is, if one.
    pub(crate) fn meta(&self, name: &str) -> Option<Meta> {
        if name == &*self.search {
            Some(Meta::Search)
        } else if name == &*self.call {
            Some(Meta::Call)
        } else {
            None
        }
    }

    /// Whether `name` is one of search's tools.
    pub(crate) fn is_meta(&self, name: &str) -> bool {
        self.meta(name).is_some()
    }

    /// Answers a search over `reachable` (the list this state was made
    /// from): the best matches' definitions, or a tool error saying what
    /// is wrong with the arguments.
    pub(crate) fn search(
        &self,
        reachable: &[Tool],
        arguments: Option<JsonObject>,
    ) -> CallToolResult {
        let arguments: SearchArguments = match parse(arguments) {
            Ok(arguments) => arguments,
            Err(result) => return result,
        };
        let (default, max) = self.limits;
        let limit = arguments.limit.unwrap_or(default as u64);
        if limit == 0 || limit > max as u64 {
            return tool_error(format!("`limit` must be 1 to {max}, not {limit}"));
        }
        if arguments.query.trim().is_empty() {
            return tool_error(
                "`query` is empty: say what the tool should do, or name it".to_owned(),
            );
        }
        let index = self.index.get_or_init(|| Index::new(reachable));
        let found: Vec<&Tool> = index
            .search(&arguments.query, limit as usize)
            .into_iter()
            .map(|position| &reachable[position])
            .collect();
        search_result(&found)
    }
}

/// A search's answer: the definitions of `found`, best first.
fn search_result(found: &[&Tool]) -> CallToolResult {
    CallToolResult::structured(json!({ "tools": found }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArguments {
    query: String,
    #[serde(default)]
    limit: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallArguments {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
}

/// Arguments that do not deserialize answer as rmcp answers a tool's:
/// a tool error, the handler never run.
fn parse<T: serde::de::DeserializeOwned>(
    arguments: Option<JsonObject>,
) -> Result<T, CallToolResult> {
    serde_json::from_value(Value::Object(arguments.unwrap_or_default()))
        .map_err(|error| tool_error(format!("failed to deserialize parameters: {error}")))
}

fn tool_error(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The direct call a call through the proxy stands for: the tool it names,
/// with its arguments and the request's metadata and input responses. A
/// call naming one of search's own tools is refused as a tool outside the
/// profile (`not_in_profile`), and arguments that do not deserialize are
/// the proxy's tool error.
pub(crate) fn proxied_request(
    searching: &Searching,
    request: CallToolRequestParams,
    not_in_profile: impl FnOnce(&str) -> ErrorData,
) -> Result<Result<CallToolRequestParams, CallToolResult>, ErrorData> {
    let arguments: CallArguments = match parse(request.arguments) {
        Ok(arguments) => arguments,
        Err(result) => return Ok(Err(result)),
    };
    if searching.is_meta(&arguments.name) {
        return Err(not_in_profile(&arguments.name));
    }
    let mut inner = CallToolRequestParams::new(arguments.name);
    inner.arguments = arguments.arguments;
    inner.meta = request.meta;
    inner.input_responses = request.input_responses;
    inner.request_state = request.request_state;
    Ok(Ok(inner))
}
