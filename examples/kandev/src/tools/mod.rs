//! Every Kandev tool group, one concern per file. Nothing lists them: each
//! `#[tool_group]` links its own registry entry.
//!
//! Handlers return JSON text on success and an error result naming the bad
//! field otherwise; unparsable arguments are rejected by rmcp the same way.
//! A change is answered only once it is saved: a database that cannot be
//! read or written fails the call with an internal error instead.

mod automation;
mod branch_sources;
mod canvases;
mod change_requests;
mod configuration;
mod coordinator;
mod external;
mod kanban;
mod numbers;
mod office;
mod plans;
mod questions;
mod session;
pub(crate) mod shared;
pub(crate) mod task_moves;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use crate::db::DbError;
use crate::server::Kandev;
use crate::store::{BadField, BoardGuard};

/// What every handler returns.
pub(crate) type ToolResult = Result<CallToolResult, ErrorData>;

/// A board that could not be read or saved fails the call with an internal
/// error (a server error, not a tool result: the agent's input was fine).
impl From<DbError> for ErrorData {
    fn from(error: DbError) -> Self {
        ErrorData::internal_error(
            format!("nothing was changed: the board's database failed: {error}"),
            None,
        )
    }
}

impl Kandev {
    /// Runs `work` on the board as one transaction
    /// ([`Store::with`](crate::store::Store::with)) and answers with its
    /// outcome: the shape of every handler whose work is one function over
    /// the board.
    pub(crate) fn on_board<T: Serialize>(
        &self,
        work: impl FnOnce(&mut BoardGuard<'_>) -> Result<T, BadField>,
    ) -> ToolResult {
        respond(self.store.with(work)?)
    }

    /// [`on_board`](Self::on_board) for a tool whose optional `task_id`
    /// defaults to the bound task: `work` gets the task it is about.
    pub(crate) fn on_task_board<T: Serialize>(
        &self,
        task_id: Option<String>,
        work: impl FnOnce(&mut BoardGuard<'_>, &str) -> Result<T, BadField>,
    ) -> ToolResult {
        let task_id = self.task_or_bound(task_id);
        self.on_board(|board| work(board, &task_id))
    }
}

/// A successful result: `value` as JSON text.
pub(crate) fn ok(value: impl Serialize) -> ToolResult {
    let text = serde_json::to_string(&value)
        .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

/// A tool error result naming the bad field.
pub(crate) fn bad(error: BadField) -> ToolResult {
    Ok(CallToolResult::error(vec![ContentBlock::text(
        error.to_string(),
    )]))
}

/// `ok` or `bad`, whichever `result` is.
pub(crate) fn respond<T: Serialize>(result: Result<T, BadField>) -> ToolResult {
    match result {
        Ok(value) => ok(value),
        Err(error) => bad(error),
    }
}
