//! The in-memory board every tool works against, seeded with a small demo:
//! a workspace with a repository, a workflow with four steps, a parent task
//! with two children, a plan, a document, an agent and an executor.

// Entity fields mirror Kandev's records and name themselves.
#![allow(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;
use serde_json::{Map, Value};

/// A JSON object, for the free-form settings Kandev stores as documents.
pub type Object = Map<String, Value>;

/// The board behind one Kandev server; all sessions share it.
#[derive(Default)]
pub struct Store {
    board: Mutex<Board>,
}

impl Store {
    /// The demo board.
    pub fn demo() -> Self {
        Store {
            board: Mutex::new(Board::demo()),
        }
    }

    /// Exclusive access to the board for one tool call.
    pub fn lock(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Workspace {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Repository {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub url: String,
    pub default_branch: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Workflow {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub description: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct WorkflowStep {
    pub id: String,
    pub workflow_id: String,
    pub name: String,
    pub position: u32,
    /// Colour, prompt, flags, WIP limit, events: stored as given.
    pub settings: Object,
}

#[derive(Clone, Debug, Serialize)]
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
    pub autopilot: bool,
    /// A prompt stored for an agent that has not been launched yet.
    pub deferred_launch_prompt: Option<String>,
    pub repository_id: Option<String>,
    pub base_branch: Option<String>,
    /// How the task was asked to launch: workspace mode, agent and executor
    /// profiles, local path or repository URL, outside ID, auto-start.
    pub launch: Object,
}

#[derive(Clone, Debug, Serialize)]
pub struct TaskSession {
    pub id: String,
    pub task_id: String,
    pub name: String,
    pub agent_profile_id: Option<String>,
    pub running: bool,
    /// Creation order; listings show the most recent first.
    pub sequence: u64,
}

#[derive(Clone, Debug, Serialize)]
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

#[derive(Clone, Debug, Serialize)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub supports_mcp: bool,
    pub mcp_config_path: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AgentProfile {
    pub id: String,
    pub agent_id: String,
    pub name: String,
    pub model: String,
    pub auto_approve: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct McpConfig {
    pub enabled: bool,
    pub servers: Object,
}

#[derive(Clone, Debug, Serialize)]
pub struct Executor {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ExecutorProfile {
    pub id: String,
    pub executor_id: String,
    pub name: String,
    pub mcp_policy: Option<String>,
    pub config: Object,
    pub prepare_script: Option<String>,
    pub cleanup_script: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    pub task_id: String,
    pub title: String,
    pub content: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Document {
    pub task_id: String,
    pub key: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub content: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Walkthrough {
    pub task_id: String,
    pub title: String,
    pub steps: Vec<Object>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReviewSubmission {
    pub id: String,
    pub task_id: String,
    pub summary: String,
    pub findings: Vec<Object>,
}

/// Who a question is put to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Asked {
    User,
    Parent,
}

#[derive(Clone, Debug, Serialize)]
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

#[derive(Clone, Debug, Serialize)]
pub struct PermissionPrompt {
    pub task_id: String,
    pub session_id: String,
    pub request_id: String,
    pub pending_id: String,
    pub title: String,
    pub options: Vec<String>,
    pub chosen: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StepDecision {
    pub task_id: String,
    pub workflow_step_id: String,
    pub decision: String,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StepCompletion {
    pub task_id: String,
    pub workflow_step_id: String,
    pub summary: String,
    pub handoff: Option<String>,
    pub blockers: Option<String>,
}

/// Everything the tools read and write.
#[derive(Default)]
pub struct Board {
    sequence: u64,
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
    /// Keyed by task.
    pub plans: BTreeMap<String, Plan>,
    /// Keyed by (task, document key).
    pub documents: BTreeMap<(String, String), Document>,
    /// Keyed by task.
    pub walkthroughs: BTreeMap<String, Walkthrough>,
    pub reviews: Vec<ReviewSubmission>,
    pub questions: BTreeMap<String, Question>,
    pub permissions: Vec<PermissionPrompt>,
    /// GitHub PR automation settings, keyed by task.
    pub pr_automation: BTreeMap<String, Object>,
    /// GitLab MR automation settings, keyed by task.
    pub mr_automation: BTreeMap<String, Object>,
    pub decisions: Vec<StepDecision>,
    pub completions: Vec<StepCompletion>,
    pub rich_outputs: Vec<Object>,
    /// Extra repository or folder sources attached to tasks, keyed by task.
    pub sources: BTreeMap<String, Vec<Object>>,
    /// Paths of diagnostic bundles written.
    pub diagnostics: Vec<String>,
}

/// The longest name, title or label a record takes, in characters.
pub const MAX_NAME_CHARS: usize = 256;

/// The longest free text (description, prompt, content, script), in characters.
pub const MAX_TEXT_CHARS: usize = 64 * 1024;

/// The most records (tasks, sessions, messages, dependencies, steps, ...)
/// the board holds; past it, calls that would add one are refused.
pub const MAX_RECORDS: usize = 20_000;

/// The most items one call may add through a list argument (`blocked_by`,
/// imported workflows, review findings, walkthrough steps).
pub const MAX_ITEMS_PER_CALL: usize = 100;

/// Checks a name or title: one line of at most [`MAX_NAME_CHARS`], with no
/// control character or bidirectional override.
pub fn check_name(field: &'static str, value: &str) -> Result<(), BadField> {
    check_chars(field, value, MAX_NAME_CHARS, false)
}

/// Checks free text: at most [`MAX_TEXT_CHARS`]; line breaks and tabs are
/// fine, other control characters and bidirectional overrides are not.
pub fn check_text(field: &'static str, value: &str) -> Result<(), BadField> {
    check_chars(field, value, MAX_TEXT_CHARS, true)
}

/// Refuses text that reads differently from what it holds (NUL and other
/// control characters, U+202A-U+202E and U+2066-U+2069 reordering) and text
/// longer than `max` characters; the error names the field and code point.
fn check_chars(
    field: &'static str,
    value: &str,
    max: usize,
    multiline: bool,
) -> Result<(), BadField> {
    for (index, c) in value.chars().enumerate() {
        if index == max {
            return Err(BadField::new(
                field,
                format!("longer than {max} characters"),
            ));
        }
        let line_break = multiline && matches!(c, '\n' | '\r' | '\t');
        let kind = if c.is_control() && !line_break {
            "a control character"
        } else if matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') {
            "a bidirectional override"
        } else {
            continue;
        };
        return Err(BadField::new(
            field,
            format!(
                "character {} is U+{:04X}, {kind}, which {} may not contain",
                index + 1,
                u32::from(c),
                if multiline { "text" } else { "a name" }
            ),
        ));
    }
    Ok(())
}

/// The largest free-form JSON argument (settings, events, blocks, findings)
/// one call stores, serialised.
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// Refuses free-form JSON larger than [`MAX_DOCUMENT_BYTES`] serialised.
pub fn check_document(field: &'static str, value: &impl Serialize) -> Result<(), BadField> {
    let bytes = serde_json::to_vec(value).map_or(usize::MAX, |bytes| bytes.len());
    if bytes > MAX_DOCUMENT_BYTES {
        return Err(BadField::new(
            field,
            format!("{bytes} bytes of JSON; one call stores at most {MAX_DOCUMENT_BYTES}"),
        ));
    }
    Ok(())
}

/// Refuses a list argument of more than [`MAX_ITEMS_PER_CALL`] items.
pub fn check_items(field: &'static str, count: usize) -> Result<(), BadField> {
    if count > MAX_ITEMS_PER_CALL {
        return Err(BadField::new(
            field,
            format!("{count} items; one call takes at most {MAX_ITEMS_PER_CALL}"),
        ));
    }
    Ok(())
}

/// A tool argument that names nothing on the board, or is otherwise wrong:
/// which field, and why. Tools turn it into an error result naming the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadField {
    pub field: &'static str,
    pub message: String,
}

impl BadField {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        BadField {
            field,
            message: message.into(),
        }
    }

    /// `field` names an id that does not exist.
    pub fn missing(field: &'static str, kind: &str, id: &str) -> Self {
        BadField::new(field, format!("no {kind} `{id}`"))
    }
}

impl std::fmt::Display for BadField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid `{}`: {}", self.field, self.message)
    }
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
            self.plans.len(),
            self.documents.len(),
            self.walkthroughs.len(),
            self.reviews.len(),
            self.questions.len(),
            self.permissions.len(),
            self.pr_automation.len(),
            self.mr_automation.len(),
            self.decisions.len(),
            self.completions.len(),
            self.rich_outputs.len(),
            self.sources.values().map(Vec::len).sum(),
            self.diagnostics.len(),
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

    fn demo() -> Self {
        let mut board = Board {
            // Fresh ids count from here, past the seeded `task-1`..`task-3`,
            // `session-1` and `profile-1`: the first created task was
            // `task-2` and replaced the seeded one.
            sequence: 100,
            ..Board::default()
        };
        board.workspaces.insert(
            "ws-1".into(),
            Workspace {
                id: "ws-1".into(),
                name: "Demo workspace".into(),
            },
        );
        board.repositories.insert(
            "repo-1".into(),
            Repository {
                id: "repo-1".into(),
                workspace_id: "ws-1".into(),
                name: "kandev".into(),
                url: "https://example.invalid/kandev.git".into(),
                default_branch: "main".into(),
            },
        );
        board.workflows.insert(
            "wf-1".into(),
            Workflow {
                id: "wf-1".into(),
                workspace_id: "ws-1".into(),
                name: "Delivery".into(),
                description: "Backlog to done".into(),
            },
        );
        for (position, (id, name)) in [
            ("step-backlog", "Backlog"),
            ("step-doing", "In progress"),
            ("step-review", "Review"),
            ("step-done", "Done"),
        ]
        .into_iter()
        .enumerate()
        {
            board.steps.insert(
                id.into(),
                WorkflowStep {
                    id: id.into(),
                    workflow_id: "wf-1".into(),
                    name: name.into(),
                    position: position as u32,
                    settings: Object::new(),
                },
            );
        }
        let task = |id: &str, title: &str, parent: Option<&str>, step: &str| Task {
            id: id.into(),
            workspace_id: "ws-1".into(),
            workflow_id: "wf-1".into(),
            workflow_step_id: step.into(),
            title: title.into(),
            description: String::new(),
            state: "in_progress".into(),
            parent_id: parent.map(Into::into),
            position: 0,
            archived: false,
            autopilot: parent.is_some(),
            deferred_launch_prompt: None,
            repository_id: Some("repo-1".into()),
            base_branch: Some("main".into()),
            launch: Object::new(),
        };
        for task in [
            task("task-1", "Ship typed tool profiles", None, "step-doing"),
            task("task-2", "Write the registry", Some("task-1"), "step-doing"),
            task(
                "task-3",
                "Write the runtime",
                Some("task-1"),
                "step-backlog",
            ),
        ] {
            board.tasks.insert(task.id.clone(), task);
        }
        let sequence = board.next_sequence();
        board.sessions.insert(
            "session-1".into(),
            TaskSession {
                id: "session-1".into(),
                task_id: "task-2".into(),
                name: "main".into(),
                agent_profile_id: Some("profile-1".into()),
                running: true,
                sequence,
            },
        );
        board.plans.insert(
            "task-1".into(),
            Plan {
                task_id: "task-1".into(),
                title: "Plan".into(),
                content: "1. Registry\n2. Runtime\n3. Kandev example".into(),
            },
        );
        board.documents.insert(
            ("task-1".into(), "spec".into()),
            Document {
                task_id: "task-1".into(),
                key: "spec".into(),
                title: "Specification".into(),
                kind: "markdown".into(),
                content: "Profiles are typed.".into(),
            },
        );
        board.agents.insert(
            "agent-1".into(),
            Agent {
                id: "agent-1".into(),
                name: "claude-code".into(),
                supports_mcp: true,
                mcp_config_path: None,
            },
        );
        board.agent_profiles.insert(
            "profile-1".into(),
            AgentProfile {
                id: "profile-1".into(),
                agent_id: "agent-1".into(),
                name: "default".into(),
                model: "sonnet".into(),
                auto_approve: false,
            },
        );
        board.executors.insert(
            "executor-1".into(),
            Executor {
                id: "executor-1".into(),
                name: "local".into(),
            },
        );
        board.executor_profiles.insert(
            "executor-profile-1".into(),
            ExecutorProfile {
                id: "executor-profile-1".into(),
                executor_id: "executor-1".into(),
                name: "worktree".into(),
                mcp_policy: None,
                config: Object::new(),
                prepare_script: None,
                cleanup_script: None,
            },
        );
        board.permissions.push(PermissionPrompt {
            task_id: "task-2".into(),
            session_id: "session-1".into(),
            request_id: "request-1".into(),
            pending_id: "pending-1".into(),
            title: "Run `cargo test`?".into(),
            options: vec!["allow".into(), "deny".into()],
            chosen: None,
        });
        board
    }
}
