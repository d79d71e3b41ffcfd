//! The records on the board, as Kandev stores them. Each serialises to the
//! JSON the tools answer with and the database keeps.

// Entity fields mirror Kandev's records and name themselves.
#![allow(missing_docs)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON object, for the free-form settings Kandev stores as documents.
pub type Object = Map<String, Value>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workspace {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Repository {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub url: String,
    pub default_branch: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workflow {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub description: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkflowStep {
    pub id: String,
    pub workflow_id: String,
    pub name: String,
    pub position: u32,
    /// Colour, prompt, flags, WIP limit, events: stored as given.
    pub settings: Object,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub workspace_id: String,
    pub workflow_id: String,
    pub workflow_step_id: String,
    pub title: String,
    pub description: String,
    pub state: String,
    pub parent_id: Option<String>,
    pub position: u32,
    pub archived: bool,
    /// Runs without a person watching: the one fact about a session's
    /// profile the board keeps (the profile itself is never stored).
    pub autopilot: bool,
    /// An office (documents and decisions) task rather than a coding one.
    pub office: bool,
    /// The session that owns the task's title, if one does.
    pub title_owner_session: Option<String>,
    /// A prompt stored for an agent that has not been launched yet.
    pub deferred_launch_prompt: Option<String>,
    pub repository_id: Option<String>,
    pub base_branch: Option<String>,
    /// How the task was asked to launch: workspace mode, agent and executor
    /// profiles, local path or repository URL, outside ID, auto-start; and
    /// the one-shot entry overrides of its latest move.
    pub launch: Object,
    /// Kandev's task metadata: where a coordinator conversation keeps its
    /// binding (`kandev.coordinator_tool_policy`) and a managed
    /// conversation its policy (`kandev.managed_tool_policy`), each written
    /// only once validated, and read at every launch and resume.
    #[serde(default)]
    pub metadata: Object,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskSession {
    pub id: String,
    pub task_id: String,
    pub name: String,
    pub agent_profile_id: Option<String>,
    pub running: bool,
    /// Creation order; listings show the most recent first.
    pub sequence: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: String,
    pub task_id: String,
    pub session_id: String,
    pub kind: String,
    pub text: String,
    pub delivery_mode: String,
    pub reply_to_question_id: Option<String>,
    pub sequence: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub supports_mcp: bool,
    pub mcp_config_path: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentProfile {
    pub id: String,
    pub agent_id: String,
    pub name: String,
    /// `None` runs the agent's default model.
    pub model: Option<String>,
    pub auto_approve: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct McpConfig {
    pub enabled: bool,
    pub servers: Object,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Executor {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutorProfile {
    pub id: String,
    pub executor_id: String,
    pub name: String,
    pub mcp_policy: Option<String>,
    pub config: Object,
    pub prepare_script: Option<String>,
    pub cleanup_script: Option<String>,
}

/// A saved prompt that workflow steps and agents reference by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedPrompt {
    pub name: String,
    pub content: String,
    /// Shipped with Kandev; never editable.
    pub built_in: bool,
    /// Whether agents may overwrite it (update_shared_prompt_kandev).
    pub agent_editable: bool,
}

/// A workspace automation: what to run, where, and what starts it. Profile,
/// workflow and repository IDs are kept as given at creation, like a task's
/// launch settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Automation {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub description: String,
    pub enabled: bool,
    pub workflow_id: Option<String>,
    pub workflow_step_id: Option<String>,
    pub agent_profile_id: Option<String>,
    pub executor_profile_id: Option<String>,
    /// In the order given.
    pub repositories: Vec<AutomationRepository>,
    pub repository_mode: RepositoryMode,
    pub prompt: String,
    pub task_title_template: Option<String>,
    pub max_concurrent_runs: u32,
    pub continuation_policy: ContinuationPolicy,
    pub task_mode: TaskMode,
    pub triggers: Vec<AutomationTrigger>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AutomationRepository {
    /// A repository of the automation's workspace.
    pub repository_id: String,
    /// The branch runs start from; the repository's default branch when omitted.
    pub base_branch: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutomationTrigger {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: TriggerKind,
    pub enabled: bool,
    pub config: Object,
}

/// What starts an automation run.
// These enums' variants carry no doc comment so that their schemas are a
// plain `enum` of strings, as Kandev's are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    Scheduled,
    GithubPr,
    GithubPrMerged,
    GithubPush,
    GithubCi,
    Webhook,
    PluginEvent,
}

/// Whether each run starts a new task or continues the previous run's thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContinuationPolicy {
    #[default]
    NewTask,
    ReuseThread,
}

/// Whether runs are hidden automation runs or ordinary board tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskMode {
    #[default]
    AutomationRun,
    NormalTask,
}

/// Whether runs get repositories checked out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RepositoryMode {
    None,
    Selected,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub task_id: String,
    pub title: String,
    pub content: String,
    /// Opaque; changes on every write. Writers pass it back as
    /// `expected_version`, so that no write lands on a plan its writer has
    /// not seen. Plans saved before versions existed read as `v0`.
    #[serde(default = "Plan::first_version")]
    pub version: String,
}

impl Plan {
    /// The version of a plan no tool has written yet.
    pub fn first_version() -> String {
        "v0".into()
    }
}

/// One written state of a task's plan, kept when the plan changes again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanRevision {
    pub id: String,
    pub task_id: String,
    /// 1, 2, ... per task, in writing order.
    pub number: u64,
    pub title: String,
    pub content: String,
    /// The revision this one brought back, when it is a restore.
    pub restored_from: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub task_id: String,
    pub key: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Walkthrough {
    pub task_id: String,
    pub title: String,
    pub steps: Vec<Object>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewSubmission {
    pub id: String,
    pub task_id: String,
    pub summary: String,
    pub findings: Vec<Object>,
}

/// Who a question is put to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Asked {
    User,
    Parent,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    /// The task whose agent asked.
    pub task_id: String,
    pub asked: Asked,
    /// For parent questions: the direct parent that must answer.
    pub parent_task_id: Option<String>,
    pub questions: Vec<Object>,
    pub context: Option<String>,
    /// `pending`, `answered` or `rejected`.
    pub status: String,
    pub answers: Vec<Value>,
    pub reject_reason: Option<String>,
    pub sequence: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PermissionPrompt {
    pub task_id: String,
    pub session_id: String,
    pub request_id: String,
    pub pending_id: String,
    pub title: String,
    pub options: Vec<String>,
    pub chosen: Option<String>,
}

/// A pull request (GitHub) or merge request (GitLab) linked to a task,
/// with its automation switches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeRequest {
    pub task_id: String,
    /// `github` or `gitlab`.
    pub provider: String,
    pub repository_id: String,
    /// The PR number or MR IID.
    pub number: u64,
    pub auto_fix_enabled: bool,
    pub auto_merge_enabled: bool,
    pub prompt_on_review_requested: bool,
    pub prompt_on_merged: bool,
    pub prompt_on_closed: bool,
}

/// Where a [`ChangeRequest`] is kept: (task, provider, repository, number).
pub type ChangeRequestKey = (String, String, String, u64);

/// A small app a task's agent authors, shown in the Kandev UI.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Canvas {
    pub id: String,
    /// The task that owns it.
    pub task_id: String,
    pub title: String,
    pub summary: String,
    /// Where its source lives, relative to the task's workspace.
    pub source_root: String,
    /// Published so far, oldest first; the last one is live. None: a draft.
    pub releases: Vec<CanvasRelease>,
    /// The app's shared state, by key.
    pub state: Object,
    /// Moves on with every state write.
    pub state_revision: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CanvasRelease {
    /// 1, 2, ... per canvas.
    pub number: u64,
    pub source_path: String,
}

/// The reported result of a Kandev-dispatched auto-fix turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutoFixOutcome {
    pub task_id: String,
    /// `action_taken`, `non_actionable` or `blocked`.
    pub outcome: String,
    pub summary: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepCompletion {
    pub task_id: String,
    pub workflow_step_id: String,
    pub summary: String,
    pub handoff: Option<String>,
    pub blockers: Option<String>,
}

/// What of a task decides its sessions' profiles: the shape `init` prints
/// and the control API answers with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskState {
    pub id: String,
    pub title: String,
    pub autopilot: bool,
    pub parent_id: Option<String>,
    pub office: bool,
    pub title_owner_session: Option<String>,
    /// The task's metadata (its tool policy, if any).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub metadata: Object,
}

impl From<&Task> for TaskState {
    fn from(task: &Task) -> Self {
        TaskState {
            id: task.id.clone(),
            title: task.title.clone(),
            autopilot: task.autopilot,
            parent_id: task.parent_id.clone(),
            office: task.office,
            title_owner_session: task.title_owner_session.clone(),
            metadata: task.metadata.clone(),
        }
    }
}
