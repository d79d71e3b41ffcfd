//! Office tasks: `office-documents`.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{ToolResult, respond};
use crate::server::Kandev;
use crate::store::{BadField, Board, Document, check_name, check_text};

/// A task whose documents to list.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocumentList {
    /// The current task or a related one.
    pub task_id: String,
}

/// One document to read.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocumentRef {
    /// The task holding the document.
    pub task_id: String,
    /// The document's key within the task.
    pub document_key: String,
}

/// A document to create or overwrite.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocumentWrite {
    /// The current task or one of its ancestors.
    pub task_id: String,
    /// The document's key within the task.
    pub document_key: String,
    /// A human-readable title; the key when omitted on creation.
    pub title: Option<String>,
    /// The full document text.
    pub content: String,
    /// The document's format, such as `markdown`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// Whether `task_id` is `from` or one of its ancestors.
fn is_self_or_ancestor(board: &Board, from: &str, task_id: &str) -> bool {
    let mut current = board.tasks.get(from);
    while let Some(task) = current {
        if task.id == task_id {
            return true;
        }
        current = task.parent_id.as_deref().and_then(|id| board.tasks.get(id));
    }
    false
}

#[tool_group(name = "office-documents", surface = "office-task")]
impl Kandev {
    #[tool(
        name = "list_task_documents_kandev",
        description = "Lists document metadata, without contents, for the current or a related task.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn office_documents_list(
        &self,
        Parameters(args): Parameters<DocumentList>,
    ) -> ToolResult {
        let board = self.store.lock();
        let result = board.task("task_id", &args.task_id).map(|task| {
            let documents: Vec<_> = board
                .documents
                .values()
                .filter(|doc| doc.task_id == task.id)
                .map(|doc| json!({ "key": doc.key, "title": doc.title, "type": doc.kind }))
                .collect();
            json!({ "task_id": task.id, "documents": documents })
        });
        respond(result)
    }

    #[tool(
        name = "get_task_document_kandev",
        description = "Reads one document, including its content, from the current or a related task.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn office_documents_get(&self, Parameters(args): Parameters<DocumentRef>) -> ToolResult {
        let board = self.store.lock();
        let result = board.task("task_id", &args.task_id).and_then(|_| {
            board
                .documents
                .get(&(args.task_id.clone(), args.document_key.clone()))
                .map(|doc| json!({ "document": doc }))
                .ok_or_else(|| BadField::missing("document_key", "document", &args.document_key))
        });
        respond(result)
    }

    #[tool(
        name = "write_task_document_kandev",
        description = "Creates or overwrites a document on the current task or an ancestor.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn office_documents_write(
        &self,
        Parameters(args): Parameters<DocumentWrite>,
    ) -> ToolResult {
        let mut board = self.store.begin()?;
        let result = (|| {
            board.task("task_id", &args.task_id)?;
            if !is_self_or_ancestor(&board, &self.task_id, &args.task_id) {
                return Err(BadField::new(
                    "task_id",
                    format!(
                        "documents can only be written on task `{}` or its ancestors",
                        self.task_id
                    ),
                ));
            }
            let key = args.document_key.trim().to_owned();
            if key.is_empty() {
                return Err(BadField::new("document_key", "the key is empty"));
            }
            check_name("document_key", &key)?;
            if let Some(title) = &args.title {
                check_name("title", title)?;
            }
            if let Some(kind) = &args.kind {
                check_name("type", kind)?;
            }
            check_text("content", &args.content)?;
            let slot = (args.task_id.clone(), key.clone());
            if !board.documents.contains_key(&slot) {
                board.make_room("document_key", 1)?;
            }
            let previous = board.documents.get(&slot);
            let created = previous.is_none();
            let document = Document {
                task_id: args.task_id,
                title: args
                    .title
                    .or_else(|| previous.map(|doc| doc.title.clone()))
                    .unwrap_or_else(|| key.clone()),
                kind: args
                    .kind
                    .or_else(|| previous.map(|doc| doc.kind.clone()))
                    .unwrap_or_else(|| "markdown".into()),
                key,
                content: args.content,
            };
            let reply = json!({
                "created": created,
                "task_id": document.task_id,
                "key": document.key,
                "title": document.title,
                "type": document.kind,
            });
            board.documents.insert(slot, document);
            Ok(reply)
        })();
        board.commit()?;
        respond(result)
    }
}
