//! The coding-task board: `task-dependencies` and `kanban-task`.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::shared::{CreateTask, TaskConversation, TaskRef, WorkflowRef};
use super::task_moves::MoveTask;
use super::{ToolResult, ok, respond};
use crate::server::Kandev;
use crate::store::{Asked, BadField, Board, Message, TaskSession, check_name, check_text};

/// A dependency edge between two tasks.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DependencyEdge {
    /// The task that waits; the bound task when omitted.
    pub task_id: Option<String>,
    /// The task it waits for.
    pub depends_on_task_id: String,
}

/// The fields of a task to change; omitted ones stay as they are.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateTask {
    /// The task to edit.
    pub task_id: String,
    /// A new title.
    pub title: Option<String>,
    /// A new description.
    pub description: Option<String>,
    /// A new lifecycle state, such as `todo` or `in_progress`.
    pub state: Option<String>,
    /// The prompt for an agent that has not been launched yet; empty clears it.
    pub deferred_launch_prompt: Option<String>,
}

/// How a message reaches the agent.
#[derive(Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryMode {
    /// After the agent's current turn (the default).
    #[default]
    Queued,
    /// Right away, cutting the agent's current turn short.
    Interrupt,
}

impl DeliveryMode {
    fn as_str(self) -> &'static str {
        match self {
            DeliveryMode::Queued => "queued",
            DeliveryMode::Interrupt => "interrupt",
        }
    }
}

/// A prompt for a task's agent.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageTask {
    /// The task to message.
    pub task_id: String,
    /// The session to message; the task's most recent one when omitted.
    pub session_id: Option<String>,
    /// The text to deliver.
    pub prompt: String,
    /// `queued` (the default) or `interrupt`.
    pub delivery_mode: Option<DeliveryMode>,
    /// A pending question of this child task that the message answers.
    pub reply_to_question_id: Option<String>,
}

/// A new agent session on an existing task.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpawnSession {
    /// The session's first prompt.
    pub prompt: String,
    /// The agent profile to run; the task's latest session's profile by default.
    pub agent_profile_id: Option<String>,
    /// A label for the session tab.
    pub name: Option<String>,
    /// The task; the bound task when omitted.
    pub task_id: Option<String>,
}

#[tool_group(
    name = "task-dependencies",
    surfaces = ["kanban-task", "external"]
)]
impl Kandev {
    #[tool(
        name = "add_task_dependency_kandev",
        description = "Makes a task wait until a predecessor task succeeds.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_add_task_dependency(
        &self,
        Parameters(args): Parameters<DependencyEdge>,
    ) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        self.on_board(|board| add_dependency(board, task_id, args.depends_on_task_id))
    }

    #[tool(
        name = "remove_task_dependency_kandev",
        description = "Deletes a dependency edge without starting the formerly blocked task.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_remove_task_dependency(
        &self,
        Parameters(args): Parameters<DependencyEdge>,
    ) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        self.on_board(|board| remove_dependency(board, task_id, args.depends_on_task_id))
    }
}

// The four reads configuration chats have too are theirs, shared (one
// definition each), so the automation surface that includes both groups
// serves one tool per name.
#[tool_group(
    name = "kanban-task",
    surface = "kanban-task",
    include(
        "configuration-workflows": ["list_workspaces_kandev", "list_workflows_kandev", "list_workflow_steps_kandev"],
        "configuration-executors": ["list_executor_profiles_kandev"],
    )
)]
impl Kandev {
    #[tool(
        name = "list_tasks_kandev",
        description = "Returns a workflow's tasks together with any linked pull requests.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_list_tasks(&self, Parameters(args): Parameters<WorkflowRef>) -> ToolResult {
        respond(self.list_tasks(args))
    }

    #[tool(
        name = "create_task_kandev",
        description = "Creates a tracked Kandev task or subtask, optionally launching its agent.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn kanban_create_task(&self, Parameters(args): Parameters<CreateTask>) -> ToolResult {
        self.on_board(|board| self.create_task(board, args))
    }

    #[tool(
        name = "list_agents_kandev",
        description = "Returns each configured agent and the profiles it has.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_list_agents(&self) -> ToolResult {
        ok(self.list_agents())
    }

    #[tool(
        name = "update_task_kandev",
        description = "Edits a task's title, description, state or not-yet-launched prompt.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_update_task(&self, Parameters(args): Parameters<UpdateTask>) -> ToolResult {
        self.on_board(|board| update_task(board, args))
    }

    #[tool(
        name = "move_task_kandev",
        description = "Moves a task to another step, with optional one-shot entry overrides.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_move_task(&self, Parameters(args): Parameters<MoveTask>) -> ToolResult {
        self.on_board(|board| self.move_task(board, args))
    }

    #[tool(
        name = "delete_task_kandev",
        description = "Irreversibly deletes a task.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn kanban_delete_task(&self, Parameters(args): Parameters<TaskRef>) -> ToolResult {
        self.on_board(|board| self.delete_task(board, args))
    }

    #[tool(
        name = "archive_task_kandev",
        description = "Hides a task from active boards while keeping its record.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_archive_task(&self, Parameters(args): Parameters<TaskRef>) -> ToolResult {
        self.on_board(|board| self.archive_task(board, args))
    }

    #[tool(
        name = "message_task_kandev",
        description = "Delivers a prompt to a task session, queued or as an interrupt.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn kanban_message_task(&self, Parameters(args): Parameters<MessageTask>) -> ToolResult {
        self.on_board(|board| message_task(board, &self.task_id, args))
    }

    #[tool(
        name = "stop_task_kandev",
        description = "Lets a parent halt every running session of its direct child task.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_stop_task(&self, Parameters(args): Parameters<TaskRef>) -> ToolResult {
        self.on_board(|board| stop_task(board, &self.task_id, args))
    }

    #[tool(
        name = "spawn_session_kandev",
        description = "Opens a further agent session tab on a task, without creating a task.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn kanban_spawn_session(&self, Parameters(args): Parameters<SpawnSession>) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id.clone());
        self.on_board(|board| spawn_session(board, task_id, args))
    }

    #[tool(
        name = "get_task_conversation_kandev",
        description = "Fetches a page of a task session's message history.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_get_task_conversation(
        &self,
        Parameters(args): Parameters<TaskConversation>,
    ) -> ToolResult {
        respond(self.get_task_conversation(args))
    }

    #[tool(
        name = "list_task_sessions_kandev",
        description = "Enumerates every session of a task, most recent first, exposing session IDs.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn kanban_list_task_sessions(&self, Parameters(args): Parameters<TaskRef>) -> ToolResult {
        respond(self.list_task_sessions(args))
    }
}

/// Whether `from` waits, directly or through other tasks, for `target`: one
/// depth-first walk that visits each task once and looks up its blockers by
/// range, so O((V + E) log E) under the board lock, not O(V·E).
fn waits_for(board: &Board, from: &str, target: &str) -> bool {
    let mut seen = std::collections::HashSet::from([from]);
    let mut stack = vec![from];
    while let Some(task) = stack.pop() {
        if task == target {
            return true;
        }
        for blocker in board.blockers_of(task) {
            if seen.insert(blocker) {
                stack.push(blocker);
            }
        }
    }
    false
}

/// Adds the edge "`task_id` waits for `depends_on`", refusing cycles.
fn add_dependency(
    board: &mut Board,
    task_id: String,
    depends_on: String,
) -> Result<Value, BadField> {
    board.task("task_id", &task_id)?;
    board.task("depends_on_task_id", &depends_on)?;
    if task_id == depends_on {
        return Err(BadField::new(
            "depends_on_task_id",
            "a task cannot depend on itself",
        ));
    }
    if waits_for(board, &depends_on, &task_id) {
        return Err(BadField::new(
            "depends_on_task_id",
            format!("task `{depends_on}` already waits for `{task_id}`; this would be a cycle"),
        ));
    }
    let edge = (task_id.clone(), depends_on.clone());
    if !board.dependencies.contains(&edge) {
        board.make_room("depends_on_task_id", 1)?;
    }
    let added = board.dependencies.insert(edge);
    Ok(json!({ "task_id": task_id, "depends_on_task_id": depends_on, "added": added }))
}

/// Removes the edge "`task_id` waits for `depends_on`".
fn remove_dependency(
    board: &mut Board,
    task_id: String,
    depends_on: String,
) -> Result<Value, BadField> {
    board.task("task_id", &task_id)?;
    board.task("depends_on_task_id", &depends_on)?;
    if !board
        .dependencies
        .remove(&(task_id.clone(), depends_on.clone()))
    {
        return Err(BadField::new(
            "depends_on_task_id",
            format!("task `{task_id}` does not depend on `{depends_on}`"),
        ));
    }
    Ok(json!({ "task_id": task_id, "depends_on_task_id": depends_on, "removed": true }))
}

/// The task's most recent session, if it has any.
pub(crate) fn latest_session<'a>(board: &'a Board, task_id: &str) -> Option<&'a TaskSession> {
    board
        .sessions
        .values()
        .filter(|session| session.task_id == task_id)
        .max_by_key(|session| session.sequence)
}

/// Edits the given fields of a task.
fn update_task(board: &mut Board, args: UpdateTask) -> Result<Value, BadField> {
    board.task("task_id", &args.task_id)?;
    let title = match args.title {
        Some(title) if title.trim().is_empty() => {
            return Err(BadField::new("title", "the title is empty"));
        }
        title => title.map(|title| title.trim().to_owned()),
    };
    if let Some(title) = &title {
        check_name("title", title)?;
    }
    if let Some(description) = &args.description {
        check_text("description", description)?;
    }
    if let Some(prompt) = &args.deferred_launch_prompt {
        check_text("deferred_launch_prompt", prompt)?;
    }
    if let Some(state) = &args.state
        && (state.is_empty() || !state.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
    {
        return Err(BadField::new(
            "state",
            format!("`{state}` is not a state such as `todo` or `in_progress`"),
        ));
    }
    if args.deferred_launch_prompt.is_some() && latest_session(board, &args.task_id).is_some() {
        return Err(BadField::new(
            "deferred_launch_prompt",
            format!(
                "task `{}` already has an agent session; message it instead",
                args.task_id
            ),
        ));
    }
    let task = board.task_mut("task_id", &args.task_id)?;
    if let Some(title) = title {
        task.title = title;
    }
    if let Some(description) = args.description {
        task.description = description;
    }
    if let Some(state) = args.state {
        task.state = state;
    }
    if let Some(prompt) = args.deferred_launch_prompt {
        task.deferred_launch_prompt = (!prompt.trim().is_empty()).then_some(prompt);
    }
    Ok(json!({ "task": task }))
}

/// Delivers a prompt to a task's session; with `reply_to_question_id`, the
/// bound task answers its child's parent question.
fn message_task(board: &mut Board, bound: &str, args: MessageTask) -> Result<Value, BadField> {
    if args.prompt.trim().is_empty() {
        return Err(BadField::new("prompt", "the prompt is empty"));
    }
    check_text("prompt", &args.prompt)?;
    board.task("task_id", &args.task_id)?;
    board.make_room("prompt", 1)?;
    let session = match &args.session_id {
        Some(id) => match board.sessions.get(id) {
            Some(session) if session.task_id == args.task_id => Some(session),
            _ => return Err(BadField::missing("session_id", "session of this task", id)),
        },
        None => latest_session(board, &args.task_id),
    };
    let delivery_mode = args.delivery_mode.unwrap_or_default();
    if let DeliveryMode::Interrupt = delivery_mode
        && !session.is_some_and(|session| session.running)
    {
        return Err(BadField::new(
            "delivery_mode",
            format!(
                "task `{}` has no running session to interrupt",
                args.task_id
            ),
        ));
    }
    // Queued messages for a task without a session wait for its first one.
    let session_id = session
        .map(|session| session.id.clone())
        .unwrap_or_default();
    if let Some(question_id) = &args.reply_to_question_id {
        let question = board
            .questions
            .get(question_id)
            .ok_or_else(|| BadField::missing("reply_to_question_id", "question", question_id))?;
        let refuse = |why: String| Err(BadField::new("reply_to_question_id", why));
        if question.asked != Asked::Parent {
            return refuse(format!(
                "question `{question_id}` was put to the user, not to a parent task"
            ));
        }
        if question.parent_task_id.as_deref() != Some(bound) {
            return refuse(format!(
                "question `{question_id}` is for task `{}`, not `{bound}`",
                question.parent_task_id.as_deref().unwrap_or_default()
            ));
        }
        if question.task_id != args.task_id {
            return refuse(format!(
                "question `{question_id}` was asked by task `{}`, not `{}`",
                question.task_id, args.task_id
            ));
        }
        if question.status != "pending" {
            return refuse(format!(
                "question `{question_id}` is already {}",
                question.status
            ));
        }
    }
    let message_id = board.next_id("message");
    let sequence = board.next_sequence();
    if let Some(question) = args
        .reply_to_question_id
        .as_ref()
        .and_then(|id| board.questions.get_mut(id))
    {
        question.status = "answered".into();
        question.answers.push(Value::String(args.prompt.clone()));
    }
    board.messages.push(Message {
        id: message_id.clone(),
        task_id: args.task_id,
        session_id: session_id.clone(),
        kind: "message".into(),
        text: args.prompt,
        delivery_mode: delivery_mode.as_str().into(),
        reply_to_question_id: args.reply_to_question_id.clone(),
        sequence,
    });
    Ok(json!({
        "message_id": message_id,
        "session_id": session_id,
        "delivery_mode": delivery_mode.as_str(),
        "answered_question_id": args.reply_to_question_id,
    }))
}

/// Stops the running sessions of a direct child of the bound task.
fn stop_task(board: &mut Board, bound: &str, args: TaskRef) -> Result<Value, BadField> {
    let task = board.task("task_id", &args.task_id)?;
    if task.parent_id.as_deref() != Some(bound) {
        return Err(BadField::new(
            "task_id",
            format!(
                "task `{}` is not a direct child of task `{bound}`",
                args.task_id
            ),
        ));
    }
    let stopped: Vec<String> = board
        .sessions
        .values_mut()
        .filter(|session| session.task_id == args.task_id && session.running)
        .map(|session| {
            session.running = false;
            session.id.clone()
        })
        .collect();
    Ok(json!({ "task_id": args.task_id, "stopped_sessions": stopped }))
}

/// Opens a new running session on `task_id` with `args.prompt` as its first message.
fn spawn_session(
    board: &mut Board,
    task_id: String,
    args: SpawnSession,
) -> Result<Value, BadField> {
    board.task("task_id", &task_id)?;
    if args.prompt.trim().is_empty() {
        return Err(BadField::new("prompt", "the prompt is empty"));
    }
    let agent_profile_id = match args.agent_profile_id {
        Some(profile) => {
            if !board.agent_profiles.contains_key(&profile) {
                return Err(BadField::missing(
                    "agent_profile_id",
                    "agent profile",
                    &profile,
                ));
            }
            Some(profile)
        }
        None => {
            latest_session(board, &task_id).and_then(|session| session.agent_profile_id.clone())
        }
    };
    let name = match args.name {
        Some(name) if name.trim().is_empty() => {
            return Err(BadField::new("name", "the name is empty"));
        }
        Some(name) => name.trim().to_owned(),
        None => {
            let count = board
                .sessions
                .values()
                .filter(|session| session.task_id == task_id)
                .count();
            format!("session {}", count + 1)
        }
    };
    check_name("name", &name)?;
    check_text("prompt", &args.prompt)?;
    // The session and its first message.
    board.make_room("prompt", 2)?;
    let session_id = board.next_id("session");
    let sequence = board.next_sequence();
    let session = TaskSession {
        id: session_id.clone(),
        task_id: task_id.clone(),
        name,
        agent_profile_id,
        running: true,
        sequence,
    };
    board.sessions.insert(session_id.clone(), session.clone());
    let message_id = board.next_id("message");
    let sequence = board.next_sequence();
    board.messages.push(Message {
        id: message_id.clone(),
        task_id,
        session_id,
        kind: "message".into(),
        text: args.prompt,
        delivery_mode: DeliveryMode::Queued.as_str().into(),
        reply_to_question_id: None,
        sequence,
    });
    Ok(json!({ "session": session, "message_id": message_id }))
}
