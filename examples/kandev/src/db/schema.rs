//! The database schema: ordered migration steps, the version they reach
//! (`PRAGMA user_version`) and the mark that says the file is ours
//! (`PRAGMA application_id`).

use rusqlite::{Connection, TransactionBehavior};

/// `PRAGMA application_id` of a kandev-mcp database ("KDMP").
pub const APPLICATION_ID: i64 = 0x4B44_4D50;

/// Each step takes the schema from its index to its index + 1; steps are
/// only ever appended, never edited.
const MIGRATIONS: &[&str] = &[
    // 1: tasks as columns (the resolver reads them), every other record as
    // JSON under its collection and key.
    "PRAGMA application_id = 1262767440;
     CREATE TABLE tasks (
         id TEXT PRIMARY KEY,
         workspace_id TEXT NOT NULL,
         workflow_id TEXT NOT NULL,
         workflow_step_id TEXT NOT NULL,
         title TEXT NOT NULL,
         description TEXT NOT NULL,
         state TEXT NOT NULL,
         parent_id TEXT,
         position INTEGER NOT NULL,
         archived INTEGER NOT NULL CHECK (archived IN (0, 1)),
         autopilot INTEGER NOT NULL CHECK (autopilot IN (0, 1)),
         office INTEGER NOT NULL CHECK (office IN (0, 1)),
         title_owner_session TEXT,
         deferred_launch_prompt TEXT,
         repository_id TEXT,
         base_branch TEXT,
         launch TEXT NOT NULL CHECK (json_type(launch) = 'object')
     ) STRICT;
     CREATE TABLE records (
         collection TEXT NOT NULL,
         key TEXT NOT NULL,
         body TEXT NOT NULL CHECK (json_valid(body)),
         PRIMARY KEY (collection, key)
     ) STRICT, WITHOUT ROWID;",
    // 2: children are looked up by parent.
    "CREATE INDEX tasks_by_parent ON tasks (parent_id);",
];

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The file's schema version.
pub(super) fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// The file's application id (0 for a new or foreign file).
pub(super) fn application_id(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "application_id", |row| row.get(0))
}

/// Applies every step past the file's version, each in its own write
/// transaction that re-reads the version first, so two processes opening
/// one old file never apply a step twice. The caller has refused a newer
/// file already.
pub(super) fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    loop {
        let transaction = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let at = version(&transaction)?;
        let Some(step) = usize::try_from(at).ok().and_then(|at| MIGRATIONS.get(at)) else {
            return Ok(());
        };
        transaction.execute_batch(step)?;
        transaction.pragma_update(None, "user_version", at + 1)?;
        transaction.commit()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_step_marks_the_file_with_the_application_id() {
        assert!(MIGRATIONS[0].contains(&format!("application_id = {APPLICATION_ID};")));
    }

    #[test]
    fn migrating_twice_applies_each_step_once() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        assert_eq!(version(&conn).unwrap(), SCHEMA_VERSION);
        assert_eq!(application_id(&conn).unwrap(), APPLICATION_ID);
    }
}
