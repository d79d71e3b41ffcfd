//! Questions and the title: `user-question`, `parent-question`, `task-title`.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{ToolResult, respond};
use crate::server::Kandev;
use crate::store::{
    Asked, BadField, Board, Object, Question, check_document, check_name, check_text,
};

/// At most this many questions per bundle.
const MAX_QUESTIONS: usize = 4;

/// A bundle of multiple-choice questions.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskQuestions {
    /// One to four questions, each an object with the question and its options.
    pub questions: Vec<Object>,
    /// Why the agent is asking.
    pub context: Option<String>,
    /// Longer background, one paragraph per entry.
    pub context_paragraphs: Option<Vec<String>>,
}

/// The new title.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetTitle {
    /// A concise final title for the bound task.
    pub title: String,
}

impl Kandev {
    /// Records a pending question bundle from the bound task.
    fn record_question(
        &self,
        board: &mut Board,
        asked: Asked,
        parent_task_id: Option<String>,
        ask: AskQuestions,
    ) -> Result<String, BadField> {
        if ask.questions.is_empty() || ask.questions.len() > MAX_QUESTIONS {
            return Err(BadField::new(
                "questions",
                format!(
                    "give 1 to {MAX_QUESTIONS} questions, not {}",
                    ask.questions.len()
                ),
            ));
        }
        check_document("questions", &ask.questions)?;
        if let Some(context) = &ask.context {
            check_text("context", context)?;
        }
        if let Some(paragraphs) = &ask.context_paragraphs {
            check_document("context_paragraphs", paragraphs)?;
            for paragraph in paragraphs {
                check_text("context_paragraphs", paragraph)?;
            }
        }
        board.make_room("questions", 1)?;
        let id = board.next_id("question");
        let sequence = board.next_sequence();
        let context = match (ask.context, ask.context_paragraphs) {
            (Some(context), Some(paragraphs)) => {
                Some(format!("{context}\n\n{}", paragraphs.join("\n\n")))
            }
            (context, paragraphs) => context.or(paragraphs.map(|p| p.join("\n\n"))),
        };
        board.questions.insert(
            id.clone(),
            Question {
                id: id.clone(),
                task_id: self.task_id.clone(),
                asked,
                parent_task_id,
                questions: ask.questions,
                context,
                status: "pending".into(),
                answers: Vec::new(),
                reject_reason: None,
                sequence,
            },
        );
        Ok(id)
    }
}

#[tool_group(
    name = "user-question",
    surfaces = ["kanban-task", "office-task", "configuration"],
    capability = "user-question"
)]
impl Kandev {
    #[tool(
        description = "Puts up to four multiple-choice questions to the user and waits.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn ask_user_question_kandev(
        &self,
        Parameters(ask): Parameters<AskQuestions>,
    ) -> ToolResult {
        self.on_board(|board| {
            let id = self.record_question(board, Asked::User, None, ask)?;
            Ok(json!({ "question_id": id, "status": "waiting_for_user" }))
        })
    }
}

#[tool_group(
    name = "parent-question",
    surface = "kanban-task",
    capability = "parent-question"
)]
impl Kandev {
    #[tool(
        description = "Lets an autopilot child task send a blocking question to its parent.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn ask_parent_question_kandev(
        &self,
        Parameters(ask): Parameters<AskQuestions>,
    ) -> ToolResult {
        // The parent is read in the same transaction the question is saved in.
        self.on_board(|board| {
            let parent = board.task("task_id", &self.task_id)?.parent_id.clone();
            let parent = parent.ok_or_else(|| {
                BadField::new("questions", format!("task `{}` has no direct parent to ask", self.task_id))
            })?;
            let id = self.record_question(board, Asked::Parent, Some(parent.clone()), ask)?;
            Ok(json!({ "question_id": id, "parent_task_id": parent, "status": "waiting_for_parent" }))
        })
    }
}

#[tool_group(
    name = "task-title",
    surface = "kanban-task",
    capability = "task-title"
)]
impl Kandev {
    #[tool(
        description = "Swaps the bound task's placeholder title for a concise final one.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn set_task_title_kandev(&self, Parameters(set): Parameters<SetTitle>) -> ToolResult {
        let title = set.title.trim().to_owned();
        let mut board = self.store.begin()?;
        let result = if title.is_empty() {
            Err(BadField::new("title", "the title is empty"))
        } else if let Err(bad) = check_name("title", &title) {
            Err(bad)
        } else {
            board.task_mut("task_id", &self.task_id).map(|task| {
                task.title = title;
                json!({ "task_id": task.id, "title": task.title })
            })
        };
        board.commit()?;
        respond(result)
    }
}
