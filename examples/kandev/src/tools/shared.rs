//! Tools that Kandev registers in more than one group (the `kanban-task`
//! group and a `configuration-*`, `external-create-task` or `coordinator`
//! group never meet in one profile). Each group keeps its own `#[tool]`
//! method; the parameter types and the work live here once.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::server::Kandev;
use crate::store::{BadField, Board, Message, Task, check_items, check_name, check_text};

/// A workspace to look into.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceRef {
    /// The workspace's ID (see list_workspaces_kandev).
    pub workspace_id: String,
}

/// A workflow to look into.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowRef {
    /// The workflow's ID (see list_workflows_kandev).
    pub workflow_id: String,
}

/// An executor to look into.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecutorRef {
    /// The executor's ID.
    pub executor_id: String,
}

/// A task to act on.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskRef {
    /// The task's ID.
    pub task_id: String,
}

/// A page of a session's messages.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskConversation {
    /// The task.
    pub task_id: String,
    /// The session; the task's most recent one when omitted.
    pub session_id: Option<String>,
    /// At most this many messages.
    #[serde(default, deserialize_with = "super::numbers::limit")]
    #[schemars(range(min = 1, max = super::numbers::MAX_COUNT))]
    pub limit: Option<u64>,
    /// Only messages before this message ID.
    pub before: Option<String>,
    /// Only messages after this message ID.
    pub after: Option<String>,
    /// `asc` or `desc` (the default).
    pub sort: Option<String>,
    /// Only these message kinds.
    pub message_types: Option<Vec<String>>,
}

/// Where a new task's agent works.
#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceMode {
    /// In its parent task's workspace.
    InheritParent,
    /// In a workspace of its own.
    NewWorkspace,
}

impl WorkspaceMode {
    fn as_str(self) -> &'static str {
        match self {
            WorkspaceMode::InheritParent => "inherit_parent",
            WorkspaceMode::NewWorkspace => "new_workspace",
        }
    }
}

/// A new task.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTask {
    /// Make it a subtask of this task.
    pub parent_id: Option<String>,
    /// Its workspace; the parent's or the bound task's by default.
    pub workspace_id: Option<String>,
    /// Its workflow; the parent's or the bound task's by default.
    pub workflow_id: Option<String>,
    /// Its starting step; the workflow's first step by default.
    pub workflow_step_id: Option<String>,
    /// Share the parent's workspace or get a new one.
    pub workspace_mode: Option<WorkspaceMode>,
    /// The task's title.
    pub title: String,
    /// The task's description and first prompt.
    pub prompt: Option<String>,
    /// Run the task's agent without waiting for a person.
    pub autopilot: Option<bool>,
    /// The agent profile to launch.
    pub agent_profile_id: Option<String>,
    /// The executor profile to launch in.
    pub executor_profile_id: Option<String>,
    /// Launch the agent now.
    pub start_agent: Option<bool>,
    /// A repository of the workspace.
    pub repository_id: Option<String>,
    /// A local checkout instead of a repository.
    pub local_path: Option<String>,
    /// A repository by URL instead.
    pub repository_url: Option<String>,
    /// The branch to start from.
    pub base_branch: Option<String>,
    /// An ID in an outside tracker.
    pub external_id: Option<String>,
    /// Tasks that must finish first.
    pub blocked_by: Option<Vec<String>>,
    /// Start automatically once unblocked.
    pub start_when_unblocked: Option<bool>,
}

impl Kandev {
    pub(crate) fn list_workspaces(&self) -> Value {
        let board = self.store.lock();
        json!({ "workspaces": board.workspaces.values().collect::<Vec<_>>() })
    }

    pub(crate) fn list_workflows(&self, args: WorkspaceRef) -> Result<Value, BadField> {
        let board = self.store.lock();
        board.workspace("workspace_id", &args.workspace_id)?;
        let workflows: Vec<_> = board
            .workflows
            .values()
            .filter(|workflow| workflow.workspace_id == args.workspace_id)
            .collect();
        Ok(json!({ "workflows": workflows }))
    }

    pub(crate) fn list_repositories(&self, args: WorkspaceRef) -> Result<Value, BadField> {
        let board = self.store.lock();
        board.workspace("workspace_id", &args.workspace_id)?;
        let repositories: Vec<_> = board
            .repositories
            .values()
            .filter(|repository| repository.workspace_id == args.workspace_id)
            .collect();
        Ok(json!({ "repositories": repositories }))
    }

    pub(crate) fn list_workflow_steps(&self, args: WorkflowRef) -> Result<Value, BadField> {
        let board = self.store.lock();
        board.workflow("workflow_id", &args.workflow_id)?;
        Ok(json!({ "steps": board.steps_of(&args.workflow_id) }))
    }

    pub(crate) fn list_tasks(&self, args: WorkflowRef) -> Result<Value, BadField> {
        let board = self.store.lock();
        board.workflow("workflow_id", &args.workflow_id)?;
        let tasks: Vec<Value> = board
            .tasks
            .values()
            .filter(|task| task.workflow_id == args.workflow_id && !task.archived)
            .map(|task| {
                let links: Vec<_> = super::change_requests::links_of(&board, &task.id).collect();
                let change_requests: Vec<Value> = links
                    .iter()
                    .map(|link| {
                        json!({
                            "provider": link.provider,
                            "repository_id": link.repository_id,
                            "number": link.number,
                        })
                    })
                    .collect();
                // Kandev keeps `prs`, GitHub only, for older callers.
                let prs: Vec<u64> = links
                    .iter()
                    .filter(|link| link.provider == "github")
                    .map(|link| link.number)
                    .collect();
                json!({ "task": task, "change_requests": change_requests, "prs": prs })
            })
            .collect();
        Ok(json!({ "tasks": tasks }))
    }

    pub(crate) fn list_agents(&self) -> Value {
        let board = self.store.lock();
        let agents: Vec<Value> = board
            .agents
            .values()
            .map(|agent| {
                let profiles: Vec<_> = board
                    .agent_profiles
                    .values()
                    .filter(|profile| profile.agent_id == agent.id)
                    .collect();
                json!({ "agent": agent, "profiles": profiles })
            })
            .collect();
        json!({ "agents": agents })
    }

    pub(crate) fn list_executor_profiles(&self, args: ExecutorRef) -> Result<Value, BadField> {
        let board = self.store.lock();
        if !board.executors.contains_key(&args.executor_id) {
            return Err(BadField::missing(
                "executor_id",
                "executor",
                &args.executor_id,
            ));
        }
        let profiles: Vec<_> = board
            .executor_profiles
            .values()
            .filter(|profile| profile.executor_id == args.executor_id)
            .collect();
        Ok(json!({ "profiles": profiles }))
    }

    pub(crate) fn create_task(
        &self,
        board: &mut Board,
        args: CreateTask,
    ) -> Result<Value, BadField> {
        let title = args.title.trim().to_owned();
        if title.is_empty() {
            return Err(BadField::new("title", "the title is empty"));
        }
        check_name("title", &title)?;
        if let Some(prompt) = &args.prompt {
            check_text("prompt", prompt)?;
        }
        for (field, value) in [
            ("local_path", &args.local_path),
            ("repository_url", &args.repository_url),
            ("base_branch", &args.base_branch),
            ("external_id", &args.external_id),
        ] {
            if let Some(value) = value {
                check_name(field, value)?;
            }
        }
        let blockers = args.blocked_by.as_ref().map_or(0, Vec::len);
        check_items("blocked_by", blockers)?;
        // The task, its blockers and maybe a session.
        let session = usize::from(args.start_agent.unwrap_or(false));
        board.make_room("title", 1 + blockers + session)?;
        let template = match &args.parent_id {
            Some(parent) => board.task("parent_id", parent)?.clone(),
            None => board.task("task_id", &self.task_id)?.clone(),
        };
        let workspace_id = args.workspace_id.unwrap_or(template.workspace_id);
        board.workspace("workspace_id", &workspace_id)?;
        let workflow_id = args.workflow_id.unwrap_or(template.workflow_id);
        board.workflow("workflow_id", &workflow_id)?;
        let workflow_step_id = match args.workflow_step_id {
            Some(step) => {
                if board.step("workflow_step_id", &step)?.workflow_id != workflow_id {
                    return Err(BadField::new(
                        "workflow_step_id",
                        format!("step `{step}` is not in workflow `{workflow_id}`"),
                    ));
                }
                step
            }
            None => board
                .steps_of(&workflow_id)
                .first()
                .map(|step| step.id.clone())
                .ok_or_else(|| BadField::new("workflow_id", "the workflow has no steps"))?,
        };
        for blocker in args.blocked_by.iter().flatten() {
            board.task("blocked_by", blocker)?;
        }
        if let Some(profile) = &args.agent_profile_id
            && !board.agent_profiles.contains_key(profile)
        {
            return Err(BadField::missing(
                "agent_profile_id",
                "agent profile",
                profile,
            ));
        }
        if let Some(profile) = &args.executor_profile_id
            && !board.executor_profiles.contains_key(profile)
        {
            return Err(BadField::missing(
                "executor_profile_id",
                "executor profile",
                profile,
            ));
        }
        let mut launch = crate::store::Object::new();
        for (key, value) in [
            (
                "workspace_mode",
                args.workspace_mode.map(|mode| Value::from(mode.as_str())),
            ),
            (
                "agent_profile_id",
                args.agent_profile_id.clone().map(Value::from),
            ),
            (
                "executor_profile_id",
                args.executor_profile_id.map(Value::from),
            ),
            ("local_path", args.local_path.map(Value::from)),
            ("repository_url", args.repository_url.map(Value::from)),
            ("external_id", args.external_id.map(Value::from)),
            (
                "start_when_unblocked",
                args.start_when_unblocked.map(Value::from),
            ),
        ] {
            if let Some(value) = value {
                launch.insert(key.to_owned(), value);
            }
        }
        let id = board.next_id("task");
        let task = Task {
            id: id.clone(),
            workspace_id,
            workflow_id,
            workflow_step_id,
            title,
            description: args.prompt.unwrap_or_default(),
            state: if args.start_agent.unwrap_or(false) {
                "in_progress"
            } else {
                "todo"
            }
            .into(),
            parent_id: args.parent_id,
            position: 0,
            archived: false,
            autopilot: args.autopilot.unwrap_or(false),
            office: false,
            title_owner_session: None,
            deferred_launch_prompt: None,
            repository_id: args.repository_id.or(template.repository_id),
            base_branch: args.base_branch.or(template.base_branch),
            launch,
            metadata: serde_json::Map::new(),
        };
        if args.start_agent.unwrap_or(false) {
            let sequence = board.next_sequence();
            let session_id = board.next_id("session");
            board.sessions.insert(
                session_id.clone(),
                crate::store::TaskSession {
                    id: session_id,
                    task_id: id.clone(),
                    name: "main".into(),
                    agent_profile_id: args.agent_profile_id,
                    running: true,
                    sequence,
                },
            );
        }
        for blocker in args.blocked_by.into_iter().flatten() {
            board.dependencies.insert((id.clone(), blocker));
        }
        board.tasks.insert(id, task.clone());
        Ok(json!({ "task": task }))
    }

    pub(crate) fn delete_task(&self, board: &mut Board, args: TaskRef) -> Result<Value, BadField> {
        board.task("task_id", &args.task_id)?;
        board.tasks.remove(&args.task_id);
        board
            .dependencies
            .retain(|(task, blocker)| *task != args.task_id && *blocker != args.task_id);
        Ok(json!({ "deleted": args.task_id }))
    }

    pub(crate) fn archive_task(&self, board: &mut Board, args: TaskRef) -> Result<Value, BadField> {
        let task = board.task_mut("task_id", &args.task_id)?;
        task.archived = true;
        Ok(json!({ "task": task.clone() }))
    }

    pub(crate) fn get_task_conversation(&self, args: TaskConversation) -> Result<Value, BadField> {
        let board = self.store.lock();
        board.task("task_id", &args.task_id)?;
        let session_id = match args.session_id {
            Some(session) => match board.sessions.get(&session) {
                Some(found) if found.task_id == args.task_id => session,
                _ => {
                    return Err(BadField::missing(
                        "session_id",
                        "session of this task",
                        &session,
                    ));
                }
            },
            None => board
                .sessions
                .values()
                .filter(|session| session.task_id == args.task_id)
                .max_by_key(|session| session.sequence)
                .map(|session| session.id.clone())
                .unwrap_or_default(),
        };
        let descending = match args.sort.as_deref() {
            None | Some("desc") => true,
            Some("asc") => false,
            Some(other) => {
                return Err(BadField::new(
                    "sort",
                    format!("`{other}` is not `asc` or `desc`"),
                ));
            }
        };
        let sequence_of =
            |id: &Option<String>, field: &'static str| -> Result<Option<u64>, BadField> {
                match id {
                    None => Ok(None),
                    Some(id) => board
                        .messages
                        .iter()
                        .find(|message| message.id == *id)
                        .map(|message| Some(message.sequence))
                        .ok_or_else(|| BadField::missing(field, "message", id)),
                }
            };
        let (before, after) = (
            sequence_of(&args.before, "before")?,
            sequence_of(&args.after, "after")?,
        );
        let limit = args
            .limit
            .map_or(50, |limit| usize::try_from(limit).unwrap_or(usize::MAX));
        let mut messages: Vec<&Message> = board
            .messages
            .iter()
            .filter(|m| {
                m.task_id == args.task_id && (session_id.is_empty() || m.session_id == session_id)
            })
            .filter(|m| {
                before.is_none_or(|b| m.sequence < b) && after.is_none_or(|a| m.sequence > a)
            })
            .filter(|m| {
                args.message_types
                    .as_ref()
                    .is_none_or(|kinds| kinds.contains(&m.kind))
            })
            .collect();
        if descending {
            messages.reverse();
        }
        messages.truncate(limit);
        Ok(json!({ "session_id": session_id, "messages": messages }))
    }

    pub(crate) fn list_task_sessions(&self, args: TaskRef) -> Result<Value, BadField> {
        let board = self.store.lock();
        board.task("task_id", &args.task_id)?;
        let mut sessions: Vec<_> = board
            .sessions
            .values()
            .filter(|session| session.task_id == args.task_id)
            .collect();
        sessions.sort_by_key(|session| std::cmp::Reverse(session.sequence));
        Ok(json!({ "sessions": sessions }))
    }
}
