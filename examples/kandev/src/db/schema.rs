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
    // 3: Kandev's September 2026 catalog. Per-task GitHub PR and GitLab MR
    // automation becomes change-request links (the settings of a task that
    // named a repository and a number become one link; a custom prompt
    // becomes the task's prompt for that provider). Step decisions go:
    // Kandev dropped office-decisions, and nothing reads them any more.
    CHANGE_REQUESTS,
    // 4: Kandev's task metadata, where a coordinator conversation's binding
    // and a managed conversation's policy live.
    "ALTER TABLE tasks ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}'
         CHECK (json_type(metadata) = 'object');",
    // 5: the audit trail of the control API's changes (`db/audit.rs`),
    // each row written in the transaction of its change.
    "CREATE TABLE audit (
         seq INTEGER PRIMARY KEY AUTOINCREMENT,
         at INTEGER NOT NULL CHECK (at >= 0),
         actor TEXT NOT NULL CHECK (length(actor) > 0),
         principal TEXT,
         kind TEXT NOT NULL CHECK (length(kind) > 0),
         before TEXT NOT NULL CHECK (json_valid(before)),
         after TEXT NOT NULL CHECK (json_valid(after)),
         added TEXT NOT NULL CHECK (json_type(added) = 'array'),
         removed TEXT NOT NULL CHECK (json_type(removed) = 'array'),
         request_id TEXT NOT NULL CHECK (length(request_id) > 0)
     ) STRICT;
     CREATE INDEX audit_by_principal ON audit (principal, seq);",
    // 6: the decision log of `serve --log-decisions` (`db/decisions.rs`),
    // one row per call decision, the record's JSON form.
    "CREATE TABLE decisions (
         seq INTEGER PRIMARY KEY AUTOINCREMENT,
         principal TEXT,
         record TEXT NOT NULL CHECK (json_type(record) = 'object')
     ) STRICT;
     CREATE INDEX decisions_by_principal ON decisions (principal, seq);",
];

/// Migration 3 (see [`MIGRATIONS`]): `pr_automation` and `mr_automation`
/// into `change_requests` and `auto_fix_prompts`, `decisions` dropped.
/// JSON booleans read back as 1 and 0, so each switch is written anew;
/// lifecycle prompts were on unless turned off.
const CHANGE_REQUESTS: &str = "
     CREATE TEMP TABLE legacy_links AS
         SELECT key AS task_id, 'github' AS provider, body,
                json_extract(body, '$.pr_number') AS number
         FROM records
         WHERE collection = 'pr_automation'
         UNION ALL
         SELECT key, 'gitlab', body, json_extract(body, '$.mr_iid')
         FROM records
         WHERE collection = 'mr_automation';
     INSERT OR REPLACE INTO records (collection, key, body)
         SELECT 'change_requests',
                json_array(task_id, provider, json_extract(body, '$.repository_id'), number),
                json_object(
                    'task_id', task_id,
                    'provider', provider,
                    'repository_id', json_extract(body, '$.repository_id'),
                    'number', number,
                    'auto_fix_enabled',
                    json(iif(coalesce(json_extract(body, '$.auto_fix_enabled'), 0), 'true', 'false')),
                    'auto_merge_enabled',
                    json(iif(coalesce(json_extract(body, '$.auto_merge_enabled'), 0), 'true', 'false')),
                    'prompt_on_review_requested',
                    json(iif(coalesce(json_extract(body, '$.prompt_on_review_requested'), 1), 'true', 'false')),
                    'prompt_on_merged',
                    json(iif(coalesce(json_extract(body, '$.prompt_on_merged'), 1), 'true', 'false')),
                    'prompt_on_closed',
                    json(iif(coalesce(json_extract(body, '$.prompt_on_closed'), 1), 'true', 'false'))
                )
         FROM legacy_links
         WHERE json_type(body, '$.repository_id') = 'text'
           AND typeof(number) = 'integer' AND number > 0;
     INSERT OR REPLACE INTO records (collection, key, body)
         SELECT 'auto_fix_prompts',
                json_array(task_id, provider),
                json_quote(json_extract(body, '$.auto_fix_prompt_override'))
         FROM legacy_links
         WHERE json_type(body, '$.auto_fix_prompt_override') = 'text';
     DROP TABLE legacy_links;
     DELETE FROM records WHERE collection IN ('pr_automation', 'mr_automation', 'decisions');";

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

    /// A file at schema 2 holding Kandev's August records.
    fn august_file() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        for step in &MIGRATIONS[..2] {
            conn.execute_batch(step).unwrap();
        }
        conn.pragma_update(None, "user_version", 2).unwrap();
        conn.execute_batch(
            r#"INSERT INTO records VALUES
               ('pr_automation', 'task-1', '{"repository_id":"repo-1","pr_number":7,
                 "auto_fix_enabled":true,"prompt_on_merged":false,
                 "auto_fix_prompt_override":"Fix the checks."}'),
               ('pr_automation', 'task-2', '{"auto_merge_enabled":true}'),
               ('mr_automation', 'task-1', '{"repository_id":"repo-1","project_path":"g/p",
                 "mr_iid":3,"auto_merge_enabled":true}'),
               ('decisions', '00000000', '{"task_id":"task-5"}');"#,
        )
        .unwrap();
        conn
    }

    #[test]
    fn august_automation_becomes_change_request_links() {
        let mut conn = august_file();
        migrate(&mut conn).unwrap();
        let mut statement = conn
            .prepare("SELECT collection, key, body FROM records ORDER BY collection, key")
            .unwrap();
        let rows: Vec<(String, String, String)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let board = crate::db::rows::Records::new(rows)
            .into_board(Vec::new())
            .expect("every migrated record reads back");
        let keys: Vec<_> = board.change_requests.keys().cloned().collect();
        assert_eq!(
            keys,
            [
                ("task-1".into(), "github".into(), "repo-1".into(), 7),
                ("task-1".into(), "gitlab".into(), "repo-1".into(), 3),
            ],
            "task-2 named no request, so it has no link"
        );
        let github = &board.change_requests[&keys[0]];
        assert!(github.auto_fix_enabled && !github.auto_merge_enabled);
        assert!(github.prompt_on_review_requested && !github.prompt_on_merged);
        assert!(board.change_requests[&keys[1]].auto_merge_enabled);
        assert_eq!(
            board.auto_fix_prompts[&("task-1".into(), "github".into())],
            "Fix the checks."
        );
        assert_eq!(board.auto_fix_prompts.len(), 1);
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
