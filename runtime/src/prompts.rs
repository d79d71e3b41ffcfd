//! Prompt groups: rmcp `#[prompt]` routes, served per profile.
//!
//! `prompts/list` answers the view's prompts; `prompts/get` runs a prompt
//! only if the view has it, and otherwise fails with -32602, like a tool
//! outside the profile, without running any handler.

use rmcp::ErrorData;
use rmcp::handler::server::prompt::PromptContext;
use rmcp::handler::server::router::prompt::PromptRoute;
use rmcp::model::{GetPromptRequestParams, GetPromptResponse, Prompt};
use rmcp::service::{RequestContext, RoleServer};

use crate::RegistryError;
use crate::clipped::Clipped;
use crate::content::{Item, View};

impl<S: Send + Sync + 'static> Item for PromptRoute<S> {
    type Listed = Vec<Prompt>;
    const KIND: &'static str = "prompt";

    fn key(&self) -> &str {
        self.name()
    }

    fn listed(routes: &[Self]) -> Vec<Prompt> {
        routes.iter().map(|route| route.attr.clone()).collect()
    }

    fn collision(prompt: String, groups: [String; 2], witness: String) -> RegistryError {
        RegistryError::PromptCollision {
            prompt,
            groups,
            witness,
        }
    }
}

/// `prompts/get` within `view`: the prompt's handler, or the refusal.
pub(crate) async fn get<S: Send + Sync + 'static>(
    view: &View<PromptRoute<S>>,
    handler: &S,
    request: GetPromptRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<GetPromptResponse, ErrorData> {
    let Some(route) = view.get(&request.name) else {
        tracing::debug!(prompt = %Clipped(&request.name), "refused a prompt outside the current profile");
        return Err(ErrorData::invalid_params(
            format!(
                "prompt `{}` is not available in the current profile",
                Clipped(&request.name)
            ),
            None,
        ));
    };
    let get = PromptContext::new(handler, request.name, request.arguments, context);
    (route.get)(get).await
}
