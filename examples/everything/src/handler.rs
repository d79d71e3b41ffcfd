//! Everything but tools, the ordinary rmcp way: resources, templates,
//! subscriptions, prompts (whose list can change, heard on 2026-07-28
//! `subscriptions/listen` streams), completion and logging.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_profiles::ProfileController;
use rmcp::model::*;
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use tokio::sync::broadcast;

use crate::media::{PNG, TTL_MS};
use crate::mrtr::{self, Rounds};

/// The conformance server's handler; its tools are the registry's groups.
#[derive(Clone)]
pub struct Everything {
    /// URIs a 2025-era client subscribed to.
    subscriptions: Arc<Mutex<HashSet<String>>>,
    /// Input-required rounds in flight, for tools and prompts alike.
    pub(crate) rounds: Rounds,
    /// The controller serving this handler, for the tool that changes the
    /// tool list; set once at start-up.
    controller: Arc<OnceLock<ProfileController<Everything>>>,
    /// Whether the prompt `test_changing_prompt` is listed.
    changing_prompt: Arc<AtomicBool>,
    /// One message per change of the prompt list, to every listen stream.
    prompts_changed: broadcast::Sender<()>,
}

impl Default for Everything {
    fn default() -> Self {
        Everything {
            subscriptions: Arc::default(),
            rounds: Rounds::default(),
            controller: Arc::default(),
            changing_prompt: Arc::default(),
            prompts_changed: broadcast::channel(16).0,
        }
    }
}

/// The prompt `test_trigger_prompt_change` adds and removes.
const CHANGING_PROMPT: &str = "test_changing_prompt";

const TEMPLATE_PREFIX: &str = "test://template/";
const TEMPLATE_SUFFIX: &str = "/data";

fn text_resource(uri: &str, mime: &str, text: String) -> ResourceContents {
    ResourceContents::TextResourceContents {
        uri: uri.into(),
        mime_type: Some(mime.into()),
        text,
        meta: None,
    }
}

/// Every list and read result may be cached for a while by anyone: none of
/// them depends on who asks.
fn public<T: Cacheable>(result: T) -> T {
    result.cache(TTL_MS, CacheScope::Public)
}

/// Public, but never fresh for long: the prompt list changes at any time
/// and only `subscriptions/listen` streams hear of it.
fn changing<T: Cacheable>(result: T) -> T {
    result.cache(0, CacheScope::Public)
}

/// The results that carry cache hints, one way to set both.
trait Cacheable {
    fn cache(self, ttl_ms: u64, scope: CacheScope) -> Self;
}

macro_rules! cacheable {
    ($($t:ty),*) => {$(
        impl Cacheable for $t {
            fn cache(self, ttl_ms: u64, scope: CacheScope) -> Self {
                self.with_ttl_ms(ttl_ms).with_cache_scope(scope)
            }
        }
    )*};
}

cacheable!(
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListPromptsResult,
    ReadResourceResult
);

impl ServerHandler for Everything {
    #[allow(deprecated)] // logging: the 2025-era suite still exercises it
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_logging()
                .enable_completions()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(Implementation::new(
            "mcp-profiles-everything",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions("The MCP conformance server of mcp-profiles")
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(public(ListResourcesResult::with_all_items(vec![
            Resource::new("test://static-text", "Static Text Resource")
                .with_description("A static text resource")
                .with_mime_type("text/plain"),
            Resource::new("test://static-binary", "Static Binary Resource")
                .with_description("A static binary resource (a PNG)")
                .with_mime_type("image/png"),
        ])))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(public(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("test://template/{id}/data", "Dynamic Resource")
                .with_description("A resource whose {id} is substituted")
                .with_mime_type("application/json"),
        ])))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        let contents = match uri {
            "test://static-text" => text_resource(
                uri,
                "text/plain",
                "This is the content of the static text resource.".into(),
            ),
            "test://static-binary" => ResourceContents::BlobResourceContents {
                uri: uri.into(),
                mime_type: Some("image/png".into()),
                blob: PNG.into(),
                meta: None,
            },
            _ => match uri
                .strip_prefix(TEMPLATE_PREFIX)
                .and_then(|rest| rest.strip_suffix(TEMPLATE_SUFFIX))
                .filter(|id| !id.is_empty() && !id.contains('/'))
            {
                Some(id) => text_resource(
                    uri,
                    "application/json",
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
                        .to_string(),
                ),
                None => {
                    return Err(ErrorData::resource_not_found(
                        format!(
                            "no resource `{uri}`: try test://static-text, test://static-binary or test://template/{{id}}/data"
                        ),
                        Some(json!({ "uri": uri })),
                    ));
                }
            },
        };
        Ok(public(ReadResourceResult::new(vec![contents])).into())
    }

    #[allow(deprecated)] // resources/subscribe is the 2025-era way
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.lock().insert(request.uri);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.lock().remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let plain = |name: &str, description: &str| Prompt::new(name, Some(description), None);
        let mut prompts = vec![
            plain("test_simple_prompt", "A prompt without arguments"),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt with two arguments"),
                Some(vec![
                    PromptArgument::new("arg1")
                        .with_description("First argument")
                        .with_required(true),
                    PromptArgument::new("arg2")
                        .with_description("Second argument")
                        .with_required(true),
                ]),
            ),
            plain(
                "test_prompt_with_embedded_resource",
                "A prompt with an embedded resource",
            ),
            plain("test_prompt_with_image", "A prompt with an image"),
            plain(
                mrtr::PROMPT,
                "A prompt that first asks the client for context (2026-07-28)",
            ),
        ];
        if self.changing_prompt.load(Ordering::SeqCst) {
            prompts.push(plain(
                CHANGING_PROMPT,
                "Comes and goes with test_trigger_prompt_change",
            ));
        }
        Ok(changing(ListPromptsResult::with_all_items(prompts)))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let user = |text: String| PromptMessage::new_text(Role::User, text);
        let result = match request.name.as_str() {
            "test_simple_prompt" => {
                GetPromptResult::new(vec![user("This is a simple prompt for testing.".into())])
            }
            "test_prompt_with_arguments" => {
                let arguments = request.arguments.unwrap_or_default();
                let argument = |name: &str| {
                    arguments
                        .get(name)
                        .and_then(|value| value.as_str())
                        .unwrap_or_default()
                        .to_owned()
                };
                GetPromptResult::new(vec![user(format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    argument("arg1"),
                    argument("arg2")
                ))])
            }
            "test_prompt_with_embedded_resource" => {
                GetPromptResult::new(vec![PromptMessage::new_resource(
                    Role::User,
                    "test://example-resource".into(),
                    Some("text/plain".into()),
                    Some("Embedded resource content for testing.".into()),
                    None,
                    None,
                    None,
                )])
            }
            "test_prompt_with_image" => GetPromptResult::new(vec![PromptMessage::new(
                Role::User,
                ContentBlock::image(PNG, "image/png"),
            )]),
            mrtr::PROMPT => return self.rounds.prompt(request),
            CHANGING_PROMPT if self.changing_prompt.load(Ordering::SeqCst) => {
                GetPromptResult::new(vec![user("Still here.".into())])
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no prompt `{other}`: prompts/list names the prompts"),
                    Some(json!({ "name": other })),
                ));
            }
        };
        Ok(result.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let candidates: &[&str] = match request.argument.name.as_str() {
            "id" => &["1", "2", "3"],
            "arg1" | "arg2" => &["paris", "park", "party"],
            _ => &[],
        };
        let typed = request.argument.value.as_str();
        let values = candidates
            .iter()
            .filter(|value| value.starts_with(typed))
            .map(|value| value.to_string())
            .collect();
        let info =
            CompletionInfo::new(values).map_err(|error| ErrorData::internal_error(error, None))?;
        Ok(CompleteResult::new(info))
    }

    /// Prompt list changes, on top of the tool list changes the profile
    /// layer accepts itself.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::default();
        if requested.prompts_list_changed == Some(true) {
            accepted.prompts_list_changed = Some(true);
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        if context.accepted().prompts_list_changed != Some(true) {
            context.cancelled().await;
            return Ok(());
        }
        let mut changes = self.prompts_changed.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                change = changes.recv() => {
                    if let Err(broadcast::error::RecvError::Closed) = change {
                        return Ok(());
                    }
                    // A lagging stream still hears that the list changed.
                    if context.sink().notify_prompt_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }

    #[allow(deprecated)] // logging: the 2025-era suite still exercises it
    async fn set_level(
        &self,
        _request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }
}

impl Everything {
    /// Hands the handler the controller that serves it.
    pub fn attach(&self, controller: ProfileController<Everything>) {
        let _ = self.controller.set(controller);
    }

    /// The controller serving this handler, once attached.
    pub(crate) fn controller(&self) -> Option<&ProfileController<Everything>> {
        self.controller.get()
    }

    /// Adds or removes `test_changing_prompt` and tells every listen stream
    /// that asked; whether it is now listed.
    pub(crate) fn toggle_changing_prompt(&self) -> bool {
        let listed = !self.changing_prompt.fetch_xor(true, Ordering::SeqCst);
        // No stream listening is no error.
        let _ = self.prompts_changed.send(());
        listed
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner())
    }
}
