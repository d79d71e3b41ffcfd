//! Tools that answer with an input-required result first (MCP 2026-07-28,
//! SEP-2322) and complete once the client retries with the answers.

use mcp_profiles::tool_group;
use rmcp::ErrorData;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool};
use serde_json::Value;

use crate::Everything;
use crate::mrtr::{
    Step, accepted, ask, ask_with_state, done, elicit, list_roots, roots, sample, sampled,
    supported_by,
};

type Answer = Result<CallToolResponse, ErrorData>;

#[tool_group(
    surface = "conformance",
    capability = "input-required",
    name = "input-required"
)]
impl Everything {
    #[tool(description = "Asks for the user's name, then greets them")]
    async fn test_input_required_result_elicitation(
        &self,
        InputResponses(responses): InputResponses,
    ) -> Answer {
        // Missing, wrong or malformed answers: ask again.
        let name = accepted(responses.as_ref(), "user_name")
            .and_then(|content| content.get("name"))
            .and_then(Value::as_str);
        Ok(match name {
            Some(name) => done(format!("Hello, {name}!")),
            None => ask([("user_name", elicit("What is your name?", "name", "string"))]).into(),
        })
    }

    #[tool(description = "Asks the client's model a question, then returns its answer")]
    async fn test_input_required_result_sampling(
        &self,
        InputResponses(responses): InputResponses,
    ) -> Answer {
        Ok(match sampled(responses.as_ref(), "capital_question") {
            Some(text) => done(format!("The model said: {text}")),
            None => ask([(
                "capital_question",
                sample("What is the capital of France?", 100),
            )])
            .into(),
        })
    }

    #[tool(description = "Asks for the client's roots, then lists them")]
    async fn test_input_required_result_list_roots(
        &self,
        InputResponses(responses): InputResponses,
    ) -> Answer {
        Ok(match roots(responses.as_ref(), "client_roots") {
            Some(roots) => done(format!("The client's roots: {}", roots.join(", "))),
            None => ask([("client_roots", list_roots())]).into(),
        })
    }

    #[tool(description = "Asks for a confirmation with a requestState, then checks the state")]
    async fn test_input_required_result_request_state(
        &self,
        InputResponses(responses): InputResponses,
        RequestState(state): RequestState,
    ) -> Answer {
        const STEP: Step = Step::First("request-state");
        if responses.is_none() {
            let confirm = elicit("Please confirm", "ok", "boolean");
            return Ok(ask_with_state([("confirm", confirm)], self.rounds.issue(STEP)).into());
        }
        expect(self.rounds.redeem(state.as_deref())?, STEP)?;
        Ok(done(
            "state-ok: the requestState was one this server issued",
        ))
    }

    #[tool(description = "Asks for a name, a greeting and the roots at once")]
    async fn test_input_required_result_multiple_inputs(
        &self,
        InputResponses(responses): InputResponses,
        RequestState(state): RequestState,
    ) -> Answer {
        const STEP: Step = Step::First("multiple-inputs");
        let responses = responses.as_ref();
        let complete = ["user_name", "greeting", "client_roots"]
            .iter()
            .all(|key| responses.is_some_and(|answers| answers.contains_key(*key)));
        if !complete {
            let requests = [
                ("user_name", elicit("What is your name?", "name", "string")),
                ("greeting", sample("Generate a greeting", 50)),
                ("client_roots", list_roots()),
            ];
            return Ok(ask_with_state(requests, self.rounds.issue(STEP)).into());
        }
        expect(self.rounds.redeem(state.as_deref())?, STEP)?;
        Ok(done("All three inputs received"))
    }

    #[tool(description = "Asks for a name, then a colour, each in its own round")]
    async fn test_input_required_result_multi_round(
        &self,
        InputResponses(responses): InputResponses,
        RequestState(state): RequestState,
    ) -> Answer {
        const FIRST: Step = Step::First("multi-round");
        let Some(responses) = responses else {
            let step1 = elicit("Step 1: What is your name?", "name", "string");
            return Ok(ask_with_state([("step1", step1)], self.rounds.issue(FIRST)).into());
        };
        match self.rounds.redeem(state.as_deref())? {
            FIRST if responses.contains_key("step1") => {
                let step2 = elicit("Step 2: What is your favorite color?", "color", "string");
                Ok(ask_with_state([("step2", step2)], self.rounds.issue(Step::Second)).into())
            }
            Step::Second if responses.contains_key("step2") => Ok(done("Both rounds answered")),
            step => Err(ErrorData::invalid_params(
                format!("the answers do not match the round {step:?}: answer step1, then step2"),
                None,
            )),
        }
    }

    #[tool(description = "Issues a requestState and refuses any that was altered")]
    async fn test_input_required_result_tampered_state(
        &self,
        InputResponses(responses): InputResponses,
        RequestState(state): RequestState,
    ) -> Answer {
        const STEP: Step = Step::First("tampered-state");
        if responses.is_none() && state.is_none() {
            let confirm = elicit("Please confirm", "ok", "boolean");
            return Ok(ask_with_state([("confirm", confirm)], self.rounds.issue(STEP)).into());
        }
        expect(self.rounds.redeem(state.as_deref())?, STEP)?;
        Ok(done("The requestState was intact"))
    }

    #[tool(description = "Asks only for what the client declared it can answer")]
    async fn test_input_required_result_capabilities(
        &self,
        InputResponses(responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> Answer {
        let capabilities = context.client_capabilities();
        let requests = supported_by(capabilities.as_ref());
        if responses.is_some() || requests.is_empty() {
            return Ok(done(format!(
                "{} input request(s) answered",
                requests.len()
            )));
        }
        Ok(ask(requests).into())
    }
}

/// A state issued for another tool is as good as a forged one.
fn expect(step: Step, wanted: Step) -> Result<(), ErrorData> {
    if step == wanted {
        Ok(())
    } else {
        Err(ErrorData::invalid_params(
            format!("requestState was issued for {step:?}, not {wanted:?}"),
            None,
        ))
    }
}
