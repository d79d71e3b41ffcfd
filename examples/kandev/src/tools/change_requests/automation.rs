//! Automation of the calling task's linked requests
//! (`update_task_change_request_automation_kandev`) and the outcome of a
//! GitHub auto-fix turn (`report_change_request_auto_fix_outcome_kandev`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{CodeHost, links_of, prompts_of, shown_links};
use crate::store::{AutoFixOutcome, BadField, Board, ChangeRequest, check_text};
use crate::tools::numbers::MAX_HOST_NUMBER;

/// Which linked requests a switch change applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetScope {
    /// One linked request: `provider`, `repository_id` and `number`.
    Association,
    /// Every request linked now for each of `providers`.
    Task,
}

/// The linked requests to change.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AutomationTarget {
    /// `association` or `task`.
    pub scope: TargetScope,
    /// `association` only: the request's provider.
    pub provider: Option<CodeHost>,
    /// `association` only: the request's repository.
    pub repository_id: Option<String>,
    /// `association` only: the request's number or IID.
    #[serde(default, deserialize_with = "crate::tools::numbers::maybe_host_number")]
    #[schemars(range(min = 1, max = MAX_HOST_NUMBER))]
    pub number: Option<u64>,
    /// `task` only: the providers whose linked requests change, at least one.
    pub providers: Option<Vec<CodeHost>>,
}

/// The switches to set; omitted ones stay as they are.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AutomationPatch {
    /// Let the agent fix failing checks and review comments on its own.
    pub auto_fix_enabled: Option<bool>,
    /// Merge once approved and green.
    pub auto_merge_enabled: Option<bool>,
    /// Tell the agent when a review is requested.
    pub prompt_on_review_requested: Option<bool>,
    /// Tell the agent when the request is merged.
    pub prompt_on_merged: Option<bool>,
    /// Tell the agent when the request is closed unmerged.
    pub prompt_on_closed: Option<bool>,
    /// `task` targets only: the provider's custom auto-fix prompt; empty
    /// restores the default.
    pub auto_fix_prompt_override: Option<String>,
}

/// Switches to change on the calling task's linked requests.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateAutomation {
    /// One linked request (`scope: association`) or whole providers (`scope: task`).
    pub target: AutomationTarget,
    /// The switches to set.
    pub patch: AutomationPatch,
}

/// How an auto-fix turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The agent changed something (pushed a fix, answered a review).
    ActionTaken,
    /// Nothing in the feedback called for a change.
    NonActionable,
    /// The agent could not proceed.
    Blocked,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::ActionTaken => "action_taken",
            Outcome::NonActionable => "non_actionable",
            Outcome::Blocked => "blocked",
        }
    }
}

/// The result of the auto-fix turn the agent was dispatched for.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AutoFixOutcomeReport {
    /// `action_taken`, `non_actionable` or `blocked`.
    pub outcome: Outcome,
    /// What was done or what is in the way, in a sentence or two.
    pub summary: String,
}

impl AutomationPatch {
    /// The switches given, by name.
    fn switches(&self) -> [(&'static str, Option<bool>); 5] {
        [
            ("auto_fix_enabled", self.auto_fix_enabled),
            ("auto_merge_enabled", self.auto_merge_enabled),
            (
                "prompt_on_review_requested",
                self.prompt_on_review_requested,
            ),
            ("prompt_on_merged", self.prompt_on_merged),
            ("prompt_on_closed", self.prompt_on_closed),
        ]
    }

    fn apply(&self, link: &mut ChangeRequest) {
        let slots = [
            &mut link.auto_fix_enabled,
            &mut link.auto_merge_enabled,
            &mut link.prompt_on_review_requested,
            &mut link.prompt_on_merged,
            &mut link.prompt_on_closed,
        ];
        for (slot, (_, value)) in slots.into_iter().zip(self.switches()) {
            if let Some(value) = value {
                *slot = value;
            }
        }
    }
}

/// An error naming `field` unless it is absent: the other scope's field.
fn refuse_given<T>(field: &'static str, value: &Option<T>, why: &str) -> Result<(), BadField> {
    match value {
        Some(_) => Err(BadField::new(field, why.to_owned())),
        None => Ok(()),
    }
}

/// The providers of a `task` target: at least one, none twice.
fn task_providers(target: &AutomationTarget) -> Result<Vec<CodeHost>, BadField> {
    let why = "a `task` target names providers, not one request";
    refuse_given("target.provider", &target.provider, why)?;
    refuse_given("target.repository_id", &target.repository_id, why)?;
    refuse_given("target.number", &target.number, why)?;
    let providers = target.providers.clone().unwrap_or_default();
    if providers.is_empty() {
        return Err(BadField::new(
            "target.providers",
            "a `task` target needs at least one provider",
        ));
    }
    for (index, host) in providers.iter().enumerate() {
        if providers[..index].contains(host) {
            return Err(BadField::new(
                "target.providers",
                format!("`{}` is listed twice", host.as_str()),
            ));
        }
    }
    Ok(providers)
}

/// The key of an `association` target's link, which must exist.
fn association(
    board: &Board,
    task_id: &str,
    target: &AutomationTarget,
) -> Result<(String, String, String, u64), BadField> {
    refuse_given(
        "target.providers",
        &target.providers,
        "an `association` target names one request; use scope `task` for providers",
    )?;
    let needs = |field| {
        BadField::new(
            field,
            "an `association` target needs provider, repository_id and number",
        )
    };
    let host = target.provider.ok_or_else(|| needs("target.provider"))?;
    let repository_id = target
        .repository_id
        .clone()
        .ok_or_else(|| needs("target.repository_id"))?;
    let number = target.number.ok_or_else(|| needs("target.number"))?;
    let key = (
        task_id.to_owned(),
        host.as_str().to_owned(),
        repository_id,
        number,
    );
    if !board.change_requests.contains_key(&key) {
        return Err(BadField::new(
            "target.number",
            format!(
                "task `{task_id}` has no {} link to `{}`#{number}",
                key.1, key.2
            ),
        ));
    }
    Ok(key)
}

/// Sets the patch's switches on the targeted links of the calling task (and,
/// for a `task` target, its providers' custom prompts). Links made later
/// get the defaults, not these switches.
pub(super) fn update(
    board: &mut Board,
    task_id: &str,
    args: UpdateAutomation,
) -> Result<Value, BadField> {
    board.task("task_id", task_id)?;
    let UpdateAutomation { target, patch } = args;
    if patch.switches().iter().all(|(_, value)| value.is_none())
        && patch.auto_fix_prompt_override.is_none()
    {
        return Err(BadField::new(
            "patch",
            "set at least one switch or auto_fix_prompt_override",
        ));
    }
    let updated = match target.scope {
        TargetScope::Association => {
            refuse_given(
                "patch.auto_fix_prompt_override",
                &patch.auto_fix_prompt_override,
                "custom auto-fix prompts are per task and provider; use a `task` target",
            )?;
            let key = association(board, task_id, &target)?;
            if let Some(link) = board.change_requests.get_mut(&key) {
                patch.apply(link);
            }
            1
        }
        TargetScope::Task => {
            let providers = task_providers(&target)?;
            if let Some(prompt) = &patch.auto_fix_prompt_override {
                set_prompts(board, task_id, &providers, prompt)?;
            }
            let mut updated = 0;
            for link in board.change_requests.values_mut() {
                let selected = providers.iter().any(|host| host.as_str() == link.provider);
                if link.task_id == task_id && selected {
                    patch.apply(link);
                    updated += 1;
                }
            }
            updated
        }
    };
    Ok(json!({
        "task_id": task_id,
        "updated": updated,
        "change_requests": shown_links(board, task_id),
        "auto_fix_prompts": prompts_of(board, task_id),
    }))
}

/// Sets (or, when blank, clears) each provider's custom auto-fix prompt.
fn set_prompts(
    board: &mut Board,
    task_id: &str,
    providers: &[CodeHost],
    prompt: &str,
) -> Result<(), BadField> {
    let prompt = prompt.trim();
    check_text("patch.auto_fix_prompt_override", prompt)?;
    let slots = providers
        .iter()
        .map(|host| (task_id.to_owned(), host.as_str().to_owned()));
    if prompt.is_empty() {
        for slot in slots {
            board.auto_fix_prompts.remove(&slot);
        }
        return Ok(());
    }
    let slots: Vec<_> = slots.collect();
    let new = slots
        .iter()
        .filter(|slot| !board.auto_fix_prompts.contains_key(*slot))
        .count();
    board.make_room("patch.auto_fix_prompt_override", new)?;
    for slot in slots {
        board.auto_fix_prompts.insert(slot, prompt.to_owned());
    }
    Ok(())
}

/// Records the outcome of the calling task's auto-fix turn. Kandev
/// dispatches those only for a linked GitHub request with auto-fix on, so a
/// task without one has no turn to report on.
pub(super) fn report_outcome(
    board: &mut Board,
    task_id: &str,
    args: AutoFixOutcomeReport,
) -> Result<Value, BadField> {
    board.task("task_id", task_id)?;
    let summary = args.summary.trim().to_owned();
    if summary.is_empty() {
        return Err(BadField::new("summary", "the summary is empty"));
    }
    check_text("summary", &summary)?;
    let dispatched = links_of(board, task_id)
        .any(|link| link.provider == CodeHost::Github.as_str() && link.auto_fix_enabled);
    if !dispatched {
        return Err(BadField::new(
            "outcome",
            format!(
                "task `{task_id}` has no linked GitHub pull request with auto-fix on, so no \
                 Kandev-dispatched auto-fix turn to report; manual work needs no report"
            ),
        ));
    }
    board.make_room("summary", 1)?;
    board.auto_fix_outcomes.push(AutoFixOutcome {
        task_id: task_id.to_owned(),
        outcome: args.outcome.as_str().to_owned(),
        summary,
    });
    Ok(json!({ "task_id": task_id, "outcome": args.outcome.as_str(), "recorded": true }))
}

#[cfg(test)]
#[path = "automation_tests.rs"]
mod tests;
