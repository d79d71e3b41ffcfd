//! An outside client driving Kandev: `external-create-task`,
//! `external-questions` and `external-agent-permissions`.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::shared::CreateTask;
use super::{ToolResult, respond};
use crate::server::Kandev;
use crate::store::{Asked, BadField, Board, Object, Question, check_document, check_text};

/// How many questions a page holds when `limit` is omitted.
const DEFAULT_PAGE: usize = 50;

/// Filters and paging for the pending question bundles.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListPendingQuestions {
    /// Only questions from tasks of this workspace.
    pub workspace_id: Option<String>,
    /// Only questions asked after this question ID (the board keeps no clock).
    pub created_since: Option<String>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// At most this many questions per page (50 by default).
    #[serde(default, deserialize_with = "super::numbers::limit")]
    #[schemars(range(min = 1, max = super::numbers::MAX_COUNT))]
    pub limit: Option<u64>,
}

/// How to resolve a pending question bundle.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerQuestion {
    /// The pending question bundle's ID.
    pub pending_id: String,
    /// One answer object per question, in order.
    pub answers: Option<Vec<Object>>,
    /// Decline the bundle instead of answering it.
    pub rejected: Option<bool>,
    /// Why the bundle is declined (only with `rejected`).
    pub reject_reason: Option<String>,
}

/// Whose permission prompts to list.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListPendingPermissions {
    /// The task whose agent is waiting.
    pub task_id: String,
    /// Only prompts of this session of the task.
    pub session_id: Option<String>,
}

/// The prompt to settle and the option picked.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolvePermission {
    /// The task whose agent is waiting.
    pub task_id: String,
    /// The agent session that raised the prompt.
    pub session_id: String,
    /// The agent's request ID for the prompt.
    pub request_id: String,
    /// Kandev's ID for the pending prompt.
    pub pending_id: String,
    /// One of the prompt's offered options.
    pub option_id: String,
}

#[tool_group(name = "external-create-task", surface = "external")]
impl Kandev {
    #[tool(
        name = "create_task_kandev",
        description = "Creates a tracked Kandev task from an outside client, optionally launching its agent.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn external_create_task(&self, Parameters(args): Parameters<CreateTask>) -> ToolResult {
        self.on_board(|board| self.create_task(board, args))
    }
}

#[tool_group(name = "external-questions", surface = "external")]
impl Kandev {
    #[tool(
        name = "list_pending_questions_kandev",
        description = "Lists unanswered clarification bundles, with optional filters and paging.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn external_list_pending_questions(
        &self,
        Parameters(args): Parameters<ListPendingQuestions>,
    ) -> ToolResult {
        respond(list_pending_questions(&self.store.lock(), args))
    }

    #[tool(
        name = "answer_question_kandev",
        description = "Resolves a waiting clarification bundle with answers or a rejection; the earliest resolution prevails.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn external_answer_question(
        &self,
        Parameters(args): Parameters<AnswerQuestion>,
    ) -> ToolResult {
        self.on_board(|board| answer_question(board, args))
    }
}

#[tool_group(name = "external-agent-permissions", surface = "external")]
impl Kandev {
    #[tool(
        name = "list_pending_agent_permissions_kandev",
        description = "Shows a task's live agent permission prompts and the choices offered.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn external_list_pending_agent_permissions(
        &self,
        Parameters(args): Parameters<ListPendingPermissions>,
    ) -> ToolResult {
        respond(list_pending_permissions(&self.store.lock(), args))
    }

    #[tool(
        name = "resolve_agent_permission_kandev",
        description = "Settles one live agent permission prompt by picking an offered choice.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn external_resolve_agent_permission(
        &self,
        Parameters(args): Parameters<ResolvePermission>,
    ) -> ToolResult {
        self.on_board(|board| resolve_permission(board, args))
    }
}

/// The page size asked for (in range by its deserializer), or the default.
fn page_size(limit: Option<u64>) -> Result<usize, BadField> {
    Ok(limit.map_or(DEFAULT_PAGE, |limit| {
        usize::try_from(limit).unwrap_or(usize::MAX)
    }))
}

/// Checks that `session_id` is a session of `task_id`.
fn session_of_task(board: &Board, task_id: &str, session_id: &str) -> Result<(), BadField> {
    match board.sessions.get(session_id) {
        Some(session) if session.task_id == task_id => Ok(()),
        _ => Err(BadField::missing(
            "session_id",
            "session of this task",
            session_id,
        )),
    }
}

/// A pending question as an outside client sees it.
fn question_view(board: &Board, question: &Question) -> Value {
    let task = board.tasks.get(&question.task_id);
    json!({
        "pending_id": question.id,
        "task_id": question.task_id,
        "task_title": task.map(|task| task.title.as_str()),
        "workspace_id": task.map(|task| task.workspace_id.as_str()),
        "questions": question.questions,
        "context": question.context,
    })
}

/// Pending user questions, oldest first; `next_cursor` is set when more follow.
fn list_pending_questions(board: &Board, args: ListPendingQuestions) -> Result<Value, BadField> {
    let limit = page_size(args.limit)?;
    if let Some(workspace) = &args.workspace_id {
        board.workspace("workspace_id", workspace)?;
    }
    let since = match &args.created_since {
        Some(id) => board
            .questions
            .get(id)
            .map(|question| question.sequence)
            .ok_or_else(|| BadField::missing("created_since", "question", id))?,
        None => 0,
    };
    let cursor = match &args.cursor {
        Some(cursor) => cursor
            .parse::<u64>()
            .map_err(|_| BadField::new("cursor", format!("`{cursor}` is not a cursor")))?,
        None => 0,
    };
    let mut pending: Vec<&Question> = board
        .questions
        .values()
        .filter(|q| q.status == "pending" && q.asked == Asked::User)
        .filter(|q| q.sequence > since.max(cursor))
        .filter(|q| {
            args.workspace_id.as_ref().is_none_or(|workspace| {
                board
                    .tasks
                    .get(&q.task_id)
                    .is_some_and(|task| task.workspace_id == *workspace)
            })
        })
        .collect();
    pending.sort_by_key(|q| q.sequence);
    let next_cursor = (pending.len() > limit).then(|| pending[limit - 1].sequence.to_string());
    pending.truncate(limit);
    let questions: Vec<Value> = pending
        .into_iter()
        .map(|question| question_view(board, question))
        .collect();
    Ok(json!({ "questions": questions, "next_cursor": next_cursor }))
}

/// Resolves a pending user question with answers or a rejection.
fn answer_question(board: &mut Board, args: AnswerQuestion) -> Result<Value, BadField> {
    if let Some(reason) = &args.reject_reason {
        check_text("reject_reason", reason)?;
    }
    if let Some(answers) = &args.answers {
        check_document("answers", answers)?;
    }
    let question = board
        .questions
        .get_mut(&args.pending_id)
        .filter(|question| question.asked == Asked::User)
        .ok_or_else(|| BadField::missing("pending_id", "user question", &args.pending_id))?;
    if question.status != "pending" {
        return Err(BadField::new(
            "pending_id",
            format!(
                "question `{}` is already {}",
                args.pending_id, question.status
            ),
        ));
    }
    if args.rejected.unwrap_or(false) {
        if args.answers.is_some() {
            return Err(BadField::new(
                "answers",
                "give answers or reject the bundle, not both",
            ));
        }
        question.status = "rejected".into();
        question.reject_reason = args.reject_reason;
    } else {
        if args.reject_reason.is_some() {
            return Err(BadField::new(
                "reject_reason",
                "a reason is only taken with `rejected: true`",
            ));
        }
        let answers = match args.answers {
            Some(answers) if !answers.is_empty() => answers,
            _ => {
                return Err(BadField::new(
                    "answers",
                    "give at least one answer, or set `rejected: true`",
                ));
            }
        };
        if answers.len() > question.questions.len() {
            return Err(BadField::new(
                "answers",
                format!(
                    "{} answers for {} questions",
                    answers.len(),
                    question.questions.len()
                ),
            ));
        }
        question.status = "answered".into();
        question.answers = answers.into_iter().map(Value::Object).collect();
    }
    Ok(json!({
        "pending_id": question.id,
        "task_id": question.task_id,
        "status": question.status,
        "answers": question.answers,
        "reject_reason": question.reject_reason,
    }))
}

/// A task's unresolved permission prompts, optionally of one session.
fn list_pending_permissions(
    board: &Board,
    args: ListPendingPermissions,
) -> Result<Value, BadField> {
    board.task("task_id", &args.task_id)?;
    if let Some(session) = &args.session_id {
        session_of_task(board, &args.task_id, session)?;
    }
    let prompts: Vec<_> = board
        .permissions
        .iter()
        .filter(|prompt| prompt.task_id == args.task_id && prompt.chosen.is_none())
        .filter(|prompt| {
            args.session_id
                .as_ref()
                .is_none_or(|session| prompt.session_id == *session)
        })
        .collect();
    Ok(json!({ "permissions": prompts }))
}

/// Picks one of a live permission prompt's options.
fn resolve_permission(board: &mut Board, args: ResolvePermission) -> Result<Value, BadField> {
    board.task("task_id", &args.task_id)?;
    session_of_task(board, &args.task_id, &args.session_id)?;
    let prompt = board
        .permissions
        .iter_mut()
        .find(|prompt| prompt.pending_id == args.pending_id)
        .ok_or_else(|| BadField::missing("pending_id", "permission prompt", &args.pending_id))?;
    if prompt.task_id != args.task_id || prompt.session_id != args.session_id {
        return Err(BadField::new(
            "pending_id",
            format!(
                "prompt `{}` belongs to task `{}`, session `{}`",
                prompt.pending_id, prompt.task_id, prompt.session_id
            ),
        ));
    }
    if prompt.request_id != args.request_id {
        return Err(BadField::new(
            "request_id",
            format!(
                "prompt `{}` answers request `{}`, not `{}`",
                prompt.pending_id, prompt.request_id, args.request_id
            ),
        ));
    }
    if let Some(chosen) = &prompt.chosen {
        return Err(BadField::new(
            "pending_id",
            format!(
                "prompt `{}` is already resolved with `{chosen}`",
                prompt.pending_id
            ),
        ));
    }
    if !prompt.options.contains(&args.option_id) {
        return Err(BadField::new(
            "option_id",
            format!(
                "`{}` is not one of the offered options: {}",
                args.option_id,
                prompt.options.join(", ")
            ),
        ));
    }
    prompt.chosen = Some(args.option_id);
    Ok(json!({
        "task_id": prompt.task_id,
        "session_id": prompt.session_id,
        "request_id": prompt.request_id,
        "pending_id": prompt.pending_id,
        "option_id": prompt.chosen,
        "resolved": true,
    }))
}
