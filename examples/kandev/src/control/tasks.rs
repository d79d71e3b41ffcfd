//! The task routes: live changes to the durable facts a profile is resolved
//! from. Only the control API reaches them; no MCP tool changes autopilot
//! or title ownership.
//!
//! | route | body |
//! |---|---|
//! | `PUT /api/v1/tasks/{id}/autopilot` | `{"autopilot": bool}` |
//! | `PUT /api/v1/tasks/{id}/title-owner` | `{"session": "session-2"}` or `{"session": null}` |
//! | `PUT /api/v1/tasks/{id}/tool-policy` | `{"coordinator_tool_policy": {...}}`, `{"managed_tool_policy": {...}}` or `{}` (none) |
//!
//! Each saves the value, with its audit record (`task-autopilot`,
//! `task-title-owner`, `task-tool-policy`; principal: the task's id;
//! before and after: `{"task": TASK, "context": CONTEXT}`, the context
//! only for the served task) in the same transaction, with the library's
//! `profile-put` at the version it makes when the served task's profile
//! moves (what `explain` and `verify` read), then re-resolves
//! the served task's profile from the saved row and replaces it (one
//! `list_changed` per session whose tool set changed, none otherwise). The answer is `{"task": {...}, "live":
//! true, "profile", "tools", "changed"}` for the served task and `{"task":
//! {...}, "live": false}` for another task of the database (a server that
//! serves that task picks the change up from the file within its follow
//! period, [`ServedTask::follow`](crate::served::ServedTask::follow)). An unknown task
//! is 404, a bad body or session 400, a database failure 500; none of them
//! changes anything. Without `--db`/`--task` the routes answer 404.

use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp_profiles_serve::audit::Attribution;
use serde_json::Value;

use super::answers::{
    AutopilotBody, Changed, Profiled, TaskChanged, TitleOwnerBody, ToolPolicyBody,
};
use super::{Control, Refusal, decode};
use crate::served::{TaskChange, TaskError};
use crate::tool_policies::TaskToolPolicy;

pub(super) async fn put_autopilot(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    id: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let id = task_id(id)?;
    let body: AutopilotBody = decode(&headers, body)?;
    apply(control, move |control| {
        let served = control.task.as_ref().expect("checked by `apply`");
        served.set_autopilot(control.single.store(), &by, &id, body.autopilot)
    })
    .await
}

pub(super) async fn put_title_owner(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    id: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let id = task_id(id)?;
    let body: TitleOwnerBody = decode(&headers, body)?;
    let session = match body.session {
        Value::Null => None,
        Value::String(session) => Some(session),
        other => {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                format!("`session` must be a session id or null, got {other}"),
            ));
        }
    };
    apply(control, move |control| {
        let served = control.task.as_ref().expect("checked by `apply`");
        served.set_title_owner(control.single.store(), &by, &id, session)
    })
    .await
}

pub(super) async fn put_tool_policy(
    State(control): State<Control>,
    Extension(by): Extension<Attribution>,
    id: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let id = task_id(id)?;
    let body: ToolPolicyBody = decode(&headers, body)?;
    let policy = match (body.coordinator_tool_policy, body.managed_tool_policy) {
        (Some(_), Some(_)) => {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                "a task carries a coordinator binding or a managed policy, not both",
            ));
        }
        (Some(binding), None) => Some(TaskToolPolicy::Coordinator(binding)),
        (None, Some(policy)) => Some(TaskToolPolicy::Managed(policy)),
        (None, None) => None,
    };
    // Checked in full (ids, revisions, every name) before anything is saved.
    if let Some(policy) = &policy {
        let (key, value) = policy.metadata_entry();
        let metadata = serde_json::Map::from_iter([(key.to_owned(), value)]);
        TaskToolPolicy::from_metadata(&metadata)
            .map_err(|error| Refusal::new(StatusCode::BAD_REQUEST, error.to_string()))?;
    }
    apply(control, move |control| {
        let served = control.task.as_ref().expect("checked by `apply`");
        served.set_tool_policy(control.single.store(), &by, &id, policy)
    })
    .await
}

fn task_id(id: Result<Path<String>, PathRejection>) -> Result<String, Refusal> {
    id.map(|Path(id)| id)
        .map_err(|rejection| Refusal::new(StatusCode::BAD_REQUEST, rejection.body_text()))
}

/// Runs `change` off the async workers (it waits on SQLite) and answers.
async fn apply(
    control: Control,
    change: impl FnOnce(&Control) -> Result<TaskChange, TaskError> + Send + 'static,
) -> Result<Response, Refusal> {
    if control.task.is_none() {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            "this server serves no stored task (start it with --db and --task)",
        ));
    }
    let controller = control.single.controller();
    let outcome = tokio::task::spawn_blocking(move || change(&control))
        .await
        .map_err(|error| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?;
    let change = outcome.map_err(|error| {
        let status = match &error {
            TaskError::NoTask(_) => StatusCode::NOT_FOUND,
            TaskError::Bad(_) => StatusCode::BAD_REQUEST,
            TaskError::Db(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Refusal::new(status, error.to_string())
    })?;
    let change_answer = change.live.then(|| {
        let now = change.replacement.as_ref().map_or_else(
            || controller.current(),
            |replacement| replacement.new.clone(),
        );
        Changed {
            now: Profiled {
                profile: *now.context(),
                tools: now
                    .tool_names()
                    .iter()
                    .map(|name| (*name).to_owned())
                    .collect(),
            },
            changed: change
                .replacement
                .is_some_and(|replacement| replacement.changed()),
        }
    });
    Ok(Json(TaskChanged {
        task: change.task,
        live: change.live,
        change: change_answer,
    })
    .into_response())
}
