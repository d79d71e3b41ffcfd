//! The `tasks` table: a task's columns, read and written.

use rusqlite::{Connection, params};

use crate::model::Task;

pub(super) fn task_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Task> {
    let launch: String = row.get(16)?;
    let launch = serde_json::from_str(&launch).map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(16, rusqlite::types::Type::Text, error.into())
    })?;
    let metadata: String = row.get(17)?;
    let metadata = serde_json::from_str(&metadata).map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(17, rusqlite::types::Type::Text, error.into())
    })?;
    Ok(Task {
        id: row.get(0)?,
        workspace_id: row.get(1)?,
        workflow_id: row.get(2)?,
        workflow_step_id: row.get(3)?,
        title: row.get(4)?,
        description: row.get(5)?,
        state: row.get(6)?,
        parent_id: row.get(7)?,
        position: row.get(8)?,
        archived: row.get(9)?,
        autopilot: row.get(10)?,
        office: row.get(11)?,
        title_owner_session: row.get(12)?,
        deferred_launch_prompt: row.get(13)?,
        repository_id: row.get(14)?,
        base_branch: row.get(15)?,
        launch,
        metadata,
    })
}

pub(super) fn write_task(conn: &Connection, task: &Task) -> rusqlite::Result<usize> {
    let launch = serde_json::Value::Object(task.launch.clone()).to_string();
    let metadata = serde_json::Value::Object(task.metadata.clone()).to_string();
    conn.prepare_cached(
        "INSERT OR REPLACE INTO tasks (id, workspace_id, workflow_id, workflow_step_id, title,
             description, state, parent_id, position, archived, autopilot, office,
             title_owner_session, deferred_launch_prompt, repository_id, base_branch, launch,
             metadata)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
             ?18)",
    )?
    .execute(params![
        task.id,
        task.workspace_id,
        task.workflow_id,
        task.workflow_step_id,
        task.title,
        task.description,
        task.state,
        task.parent_id,
        task.position,
        task.archived,
        task.autopilot,
        task.office,
        task.title_owner_session,
        task.deferred_launch_prompt,
        task.repository_id,
        task.base_branch,
        launch,
        metadata,
    ])
}
