//! The board: every record the tools read and write, in ordered maps.

// Collections mirror Kandev's tables and name themselves.
#![allow(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};

use super::checks::{BadField, MAX_RECORDS};
use super::coordinator::{Proposal, Stall, Turn};
use super::entities::*;

/// Everything the tools read and write.
#[derive(Clone, Default, PartialEq)]
pub struct Board {
    /// The board-wide counter behind fresh ids and orderings.
    pub(crate) sequence: u64,
    pub workspaces: BTreeMap<String, Workspace>,
    pub repositories: BTreeMap<String, Repository>,
    pub workflows: BTreeMap<String, Workflow>,
    pub steps: BTreeMap<String, WorkflowStep>,
    pub tasks: BTreeMap<String, Task>,
    pub sessions: BTreeMap<String, TaskSession>,
    pub messages: Vec<Message>,
    /// (task, the task it waits for).
    pub dependencies: BTreeSet<(String, String)>,
    pub agents: BTreeMap<String, Agent>,
    pub agent_profiles: BTreeMap<String, AgentProfile>,
    /// Keyed by agent profile.
    pub mcp_configs: BTreeMap<String, McpConfig>,
    pub executors: BTreeMap<String, Executor>,
    pub executor_profiles: BTreeMap<String, ExecutorProfile>,
    pub automations: BTreeMap<String, Automation>,
    /// Keyed by name.
    pub shared_prompts: BTreeMap<String, SharedPrompt>,
    /// Setting values by target: (resource type, resource id). Kept apart
    /// from the records they configure so that no listing shows a secret.
    pub settings: BTreeMap<(String, String), Object>,
    /// Keyed by task.
    pub plans: BTreeMap<String, Plan>,
    /// Every written state of the plans, keyed by revision id; kept when a
    /// plan is deleted.
    pub plan_revisions: BTreeMap<String, PlanRevision>,
    /// Keyed by (task, document key).
    pub documents: BTreeMap<(String, String), Document>,
    /// Keyed by task.
    pub walkthroughs: BTreeMap<String, Walkthrough>,
    pub reviews: Vec<ReviewSubmission>,
    pub questions: BTreeMap<String, Question>,
    pub permissions: Vec<PermissionPrompt>,
    /// Linked pull and merge requests with their automation switches.
    pub change_requests: BTreeMap<ChangeRequestKey, ChangeRequest>,
    /// Custom auto-fix prompts, keyed by (task, provider).
    pub auto_fix_prompts: BTreeMap<(String, String), String>,
    pub auto_fix_outcomes: Vec<AutoFixOutcome>,
    pub canvases: BTreeMap<String, Canvas>,
    pub completions: Vec<StepCompletion>,
    pub rich_outputs: Vec<Object>,
    /// Extra repository or folder sources attached to tasks, keyed by task.
    pub sources: BTreeMap<String, Vec<Object>>,
    /// Paths of diagnostic bundles written.
    pub diagnostics: Vec<String>,
    /// Coordinator proposals awaiting or past a manager's decision.
    pub coordinator_proposals: BTreeMap<String, Proposal>,
    /// Stall records, keyed by the stalled task.
    pub coordinator_stalls: BTreeMap<String, Stall>,
    /// The turn ledger of every coordinator.
    pub coordinator_turns: BTreeMap<String, Turn>,
}

impl Board {
    /// The next value of the board-wide sequence.
    pub fn next_sequence(&mut self) -> u64 {
        self.sequence += 1;
        self.sequence
    }

    /// How many records the board holds, counted against [`MAX_RECORDS`].
    pub fn records(&self) -> usize {
        [
            self.workspaces.len(),
            self.repositories.len(),
            self.workflows.len(),
            self.steps.len(),
            self.tasks.len(),
            self.sessions.len(),
            self.messages.len(),
            self.dependencies.len(),
            self.agents.len(),
            self.agent_profiles.len(),
            self.mcp_configs.len(),
            self.executors.len(),
            self.executor_profiles.len(),
            self.automations.len(),
            self.shared_prompts.len(),
            self.settings.len(),
            self.plans.len(),
            self.plan_revisions.len(),
            self.documents.len(),
            self.walkthroughs.len(),
            self.reviews.len(),
            self.questions.len(),
            self.permissions.len(),
            self.change_requests.len(),
            self.auto_fix_prompts.len(),
            self.auto_fix_outcomes.len(),
            self.canvases.len(),
            self.completions.len(),
            self.rich_outputs.len(),
            self.sources.values().map(Vec::len).sum(),
            self.diagnostics.len(),
            self.coordinator_proposals.len(),
            self.coordinator_stalls.len(),
            self.coordinator_turns.len(),
        ]
        .iter()
        .sum()
    }

    /// Refuses a call that would add `adding` records past [`MAX_RECORDS`];
    /// the error is reported against `field`, the argument that adds them.
    pub fn make_room(&self, field: &'static str, adding: usize) -> Result<(), BadField> {
        let held = self.records();
        if held.saturating_add(adding) > MAX_RECORDS {
            return Err(BadField::new(
                field,
                format!(
                    "the board is full: it holds {held} records and takes at most \
                     {MAX_RECORDS}; delete something first"
                ),
            ));
        }
        Ok(())
    }

    /// A fresh id such as `task-7`.
    pub fn next_id(&mut self, prefix: &str) -> String {
        format!("{prefix}-{}", self.next_sequence())
    }

    pub fn task(&self, field: &'static str, id: &str) -> Result<&Task, BadField> {
        self.tasks
            .get(id)
            .ok_or_else(|| BadField::missing(field, "task", id))
    }

    pub fn task_mut(&mut self, field: &'static str, id: &str) -> Result<&mut Task, BadField> {
        self.tasks
            .get_mut(id)
            .ok_or_else(|| BadField::missing(field, "task", id))
    }

    pub fn workspace(&self, field: &'static str, id: &str) -> Result<&Workspace, BadField> {
        self.workspaces
            .get(id)
            .ok_or_else(|| BadField::missing(field, "workspace", id))
    }

    pub fn workflow(&self, field: &'static str, id: &str) -> Result<&Workflow, BadField> {
        self.workflows
            .get(id)
            .ok_or_else(|| BadField::missing(field, "workflow", id))
    }

    pub fn step(&self, field: &'static str, id: &str) -> Result<&WorkflowStep, BadField> {
        self.steps
            .get(id)
            .ok_or_else(|| BadField::missing(field, "workflow step", id))
    }

    /// `coordinator`'s proposal `id`; another coordinator's is not found
    /// either.
    pub fn proposal_of(
        &self,
        field: &'static str,
        coordinator: &str,
        id: &str,
    ) -> Result<&Proposal, BadField> {
        self.coordinator_proposals
            .get(id)
            .filter(|proposal| proposal.coordinator_id == coordinator)
            .ok_or_else(|| BadField::new(field, format!("no proposal `{id}` of this coordinator")))
    }

    /// `coordinator`'s turn `id`; another coordinator's is not found either.
    pub fn turn_of(
        &self,
        field: &'static str,
        coordinator: &str,
        id: &str,
    ) -> Result<&Turn, BadField> {
        self.coordinator_turns
            .get(id)
            .filter(|turn| turn.coordinator_id == coordinator)
            .ok_or_else(|| BadField::new(field, format!("no turn `{id}` of this coordinator")))
    }

    /// The steps of a workflow, in board order.
    pub fn steps_of(&self, workflow_id: &str) -> Vec<&WorkflowStep> {
        let mut steps: Vec<&WorkflowStep> = self
            .steps
            .values()
            .filter(|step| step.workflow_id == workflow_id)
            .collect();
        steps.sort_by_key(|step| step.position);
        steps
    }

    /// The tasks `task_id` waits for directly. `dependencies` is ordered by
    /// the waiting task, so this is a range lookup, not a scan.
    pub fn blockers_of<'a>(&'a self, task_id: &str) -> impl Iterator<Item = &'a str> + 'a {
        let task = task_id.to_owned();
        self.dependencies
            .range((task.clone(), String::new())..)
            .take_while(move |(waiting, _)| *waiting == task)
            .map(|(_, blocker)| blocker.as_str())
    }

    /// The direct children of a task.
    pub fn children_of(&self, task_id: &str) -> Vec<&Task> {
        self.tasks
            .values()
            .filter(|task| task.parent_id.as_deref() == Some(task_id))
            .collect()
    }

    /// Every task's [`TaskState`], by id.
    pub fn task_states(&self) -> Vec<TaskState> {
        self.tasks.values().map(TaskState::from).collect()
    }
}
