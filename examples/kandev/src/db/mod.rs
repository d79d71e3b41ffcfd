//! The board's durable home: one SQLite file, opened through `rusqlite`
//! with SQLite compiled in.
//!
//! The board is read into memory once and every change is written through:
//! a call runs inside one write transaction (`BEGIN IMMEDIATE`), and at its
//! end only the records it touched are written and committed. Another
//! process that committed in between (`PRAGMA data_version` moved) makes the
//! board reload first, so no process writes over a change it never saw.
//!
//! The file is checked before anything is written to it: it must carry
//! kandev-mcp's application id, a schema version this build knows (a newer
//! one is refused, never altered) and pass `PRAGMA quick_check`.

mod audit;
mod decisions;
mod rows;
mod schema;
mod tasks_table;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_profiles_serve::audit::decisions::DecisionRecord;
use mcp_profiles_serve::audit::{AuditEntry, AuditQuery, AuditRecord};
use rusqlite::{Connection, OpenFlags, params};

use crate::model::{Board, Task};
pub use rows::BadRow;
use rows::{Change, Records, sync};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
use tasks_table::{task_of_row, write_task};

/// How long a write waits for another process's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a database could not be opened, read or written; names the file.
#[derive(Debug)]
pub struct DbError {
    path: PathBuf,
    kind: DbErrorKind,
}

/// What went wrong with a database.
#[derive(Debug)]
pub enum DbErrorKind {
    /// `init` was given a path that exists.
    Exists,
    /// The file is not there.
    Missing,
    /// The file is an SQLite database, but not kandev-mcp's.
    Foreign {
        /// Its `PRAGMA application_id`.
        application_id: i64,
    },
    /// The file's schema is newer than this build's.
    Newer {
        /// The file's schema version.
        found: i64,
    },
    /// `PRAGMA quick_check` found damage.
    Corrupt(String),
    /// A stored record this build cannot read.
    BadRow(BadRow),
    /// SQLite refused (not a database, disk full, locked, ...).
    Sqlite(rusqlite::Error),
    /// A change was to be recorded in the audit trail outside the
    /// transaction that makes it; nothing was written.
    NoTransaction,
}

impl DbError {
    fn new(path: &Path, kind: DbErrorKind) -> Self {
        DbError {
            path: path.to_owned(),
            kind,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &DbErrorKind {
        &self.kind
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "database `{}`: ", self.path.display())?;
        match &self.kind {
            DbErrorKind::Exists => write!(f, "already exists; `init` only creates a new file"),
            DbErrorKind::Missing => {
                write!(
                    f,
                    "no such file; create it with `kandev-mcp init --db PATH`"
                )
            }
            DbErrorKind::Foreign { application_id: 0 } => write!(
                f,
                "not a kandev-mcp database (no application id); create one with \
                 `kandev-mcp init --db PATH`"
            ),
            DbErrorKind::Foreign { application_id } => write!(
                f,
                "not a kandev-mcp database (application id {application_id:#x}, \
                 expected {APPLICATION_ID:#x})"
            ),
            DbErrorKind::Newer { found } => write!(
                f,
                "schema version {found} is newer than this kandev-mcp's \
                 ({SCHEMA_VERSION}); refusing to read or change it"
            ),
            DbErrorKind::Corrupt(report) => write!(f, "corrupt: {report}"),
            DbErrorKind::BadRow(row) => write!(f, "{row}"),
            DbErrorKind::Sqlite(error) => write!(f, "{error}"),
            DbErrorKind::NoTransaction => write!(
                f,
                "a change's audit record must be written in the change's transaction; none was open"
            ),
        }
    }
}

impl std::error::Error for DbError {}

/// An open database and what the board in memory was last saved as.
pub(crate) struct Database {
    conn: Connection,
    path: PathBuf,
    /// The board as last committed: what a change is compared with.
    saved: Board,
    /// `PRAGMA data_version` when the board was last read or written.
    data_version: i64,
    /// The board may differ from the file (a write failed): read it again
    /// before the next call.
    stale: bool,
}

impl Database {
    /// `conn` in WAL mode at the current schema, nothing read or saved yet;
    /// `stale` when the file's content is still to be read.
    fn ready(mut conn: Connection, path: &Path, stale: bool) -> Result<Database, DbError> {
        let sqlite = |error| DbError::new(path, DbErrorKind::Sqlite(error));
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        schema::migrate(&mut conn).map_err(sqlite)?;
        Ok(Database {
            conn,
            path: path.to_owned(),
            saved: Board::default(),
            data_version: 0,
            stale,
        })
    }

    /// Creates a new file at `path` holding `board`.
    pub(crate) fn create(path: &Path, board: &Board) -> Result<Database, DbError> {
        let fail = |kind| DbError::new(path, kind);
        if path.exists() {
            return Err(fail(DbErrorKind::Exists));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE;
        let conn = connect(path, flags)?;
        let mut database = Database::ready(conn, path, false)?;
        database.begin(&mut Board::default())?;
        database.commit(board, true)?;
        Ok(database)
    }

    /// Opens the kandev-mcp database at `path`, migrating an older schema;
    /// the board it holds.
    pub(crate) fn open(path: &Path) -> Result<(Database, Board), DbError> {
        let fail = |kind| DbError::new(path, kind);
        if !path.exists() {
            return Err(fail(DbErrorKind::Missing));
        }
        let conn = connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
        let sqlite = |error| DbError::new(path, DbErrorKind::Sqlite(error));
        let application_id = schema::application_id(&conn).map_err(sqlite)?;
        if application_id != APPLICATION_ID {
            return Err(fail(DbErrorKind::Foreign { application_id }));
        }
        let found = schema::version(&conn).map_err(sqlite)?;
        if found > SCHEMA_VERSION {
            return Err(fail(DbErrorKind::Newer { found }));
        }
        let report: String = conn
            .pragma_query_value(None, "quick_check", |row| row.get(0))
            .map_err(sqlite)?;
        if report != "ok" {
            // The report runs over lines; an error is one line.
            let lines: Vec<&str> = report
                .lines()
                .filter(|line| !line.starts_with("***"))
                .collect();
            return Err(fail(DbErrorKind::Corrupt(lines.join("; "))));
        }
        // Only now is the file known to be ours, whole and not too new.
        let mut database = Database::ready(conn, path, true)?;
        let mut board = Board::default();
        database.begin(&mut board)?;
        database.commit(&board, false)?;
        Ok((database, board))
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, kind: DbErrorKind) -> DbError {
        DbError::new(&self.path, kind)
    }

    fn sqlite(&self, error: rusqlite::Error) -> DbError {
        self.error(DbErrorKind::Sqlite(error))
    }

    /// Starts one call's write transaction; reads the board again first if
    /// another process committed since, or a write of ours failed.
    pub(crate) fn begin(&mut self, board: &mut Board) -> Result<(), DbError> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| self.sqlite(e))?;
        let read = self.data_version().and_then(|version| {
            if self.stale || version != self.data_version {
                *board = self.read_board()?;
                self.saved = board.clone();
                self.data_version = version;
                self.stale = false;
            }
            Ok(())
        });
        if read.is_err() {
            self.rollback();
        }
        read
    }

    /// Writes the records that differ from what was saved (when `changed`)
    /// and commits. On failure nothing is kept and the board will be read
    /// again before the next call.
    pub(crate) fn commit(&mut self, board: &Board, changed: bool) -> Result<(), DbError> {
        let changes = if changed {
            sync(&mut self.saved, board)
        } else {
            Vec::new()
        };
        let committed = self.write(board, &changes).and_then(|()| {
            self.conn
                .execute_batch("COMMIT")
                .map_err(|e| self.sqlite(e))
        });
        if committed.is_err() {
            // `saved` already counts the changes as written.
            self.rollback();
        }
        committed
    }

    /// Ends an open transaction without keeping anything.
    pub(crate) fn rollback(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        self.stale = true;
    }

    /// Writes `entry` as the next row of the audit trail, made at `at`,
    /// inside the open transaction (committed, or rolled back, with it).
    pub(crate) fn append_audit(&self, entry: AuditEntry, at: u64) -> Result<AuditRecord, DbError> {
        if self.conn.is_autocommit() {
            // Outside a transaction the row would be saved on its own,
            // apart from the change it records.
            return Err(self.error(DbErrorKind::NoTransaction));
        }
        audit::append(&self.conn, entry, at).map_err(|e| self.sqlite(e))
    }

    /// The page of the audit trail `query` asks for.
    pub(crate) fn audit(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, DbError> {
        audit::page(&self.conn, query).map_err(|kind| self.error(kind))
    }

    /// Writes `records` as the next rows of the decision log, in a
    /// transaction of their own.
    pub(crate) fn append_decisions(&self, records: &[DecisionRecord]) -> Result<(), DbError> {
        decisions::append(&self.conn, records).map_err(|e| self.sqlite(e))
    }

    /// The page of the decision log `query` asks for.
    pub(crate) fn decisions(&self, query: &AuditQuery) -> Result<Vec<DecisionRecord>, DbError> {
        decisions::page(&self.conn, query).map_err(|kind| self.error(kind))
    }

    /// Marks the board as possibly different from the file.
    pub(crate) fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Whether another process committed since the board was last read or
    /// written (a cheap check, outside any transaction).
    pub(crate) fn outdated(&self) -> Result<bool, DbError> {
        Ok(self.stale || self.data_version()? != self.data_version)
    }

    fn data_version(&self) -> Result<i64, DbError> {
        self.conn
            .pragma_query_value(None, "data_version", |row| row.get(0))
            .map_err(|e| self.sqlite(e))
    }

    fn read_board(&self) -> Result<Board, DbError> {
        let sqlite = |e| self.sqlite(e);
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT id, workspace_id, workflow_id, workflow_step_id, title, description,
                        state, parent_id, position, archived, autopilot, office,
                        title_owner_session, deferred_launch_prompt, repository_id,
                        base_branch, launch, metadata
                 FROM tasks ORDER BY id",
            )
            .map_err(sqlite)?;
        let tasks = statement
            .query_map([], task_of_row)
            .map_err(sqlite)?
            .collect::<rusqlite::Result<Vec<Task>>>()
            .map_err(sqlite)?;
        let mut statement = self
            .conn
            .prepare_cached("SELECT collection, key, body FROM records ORDER BY collection, key")
            .map_err(sqlite)?;
        let records = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .map_err(sqlite)?
            .collect::<rusqlite::Result<Vec<(String, String, String)>>>()
            .map_err(sqlite)?;
        Records::new(records)
            .into_board(tasks)
            .map_err(|row| self.error(DbErrorKind::BadRow(row)))
    }

    /// Writes `changes` inside the open transaction.
    fn write(&self, board: &Board, changes: &[Change]) -> Result<(), DbError> {
        let sqlite = |e| self.sqlite(e);
        for change in changes {
            let statement = match change {
                Change::PutTask(id) => write_task(&self.conn, &board.tasks[id]),
                Change::DeleteTask(id) => self
                    .conn
                    .prepare_cached("DELETE FROM tasks WHERE id = ?1")
                    .and_then(|mut s| s.execute(params![id])),
                Change::Put {
                    collection,
                    key,
                    body,
                } => self
                    .conn
                    .prepare_cached(
                        "INSERT INTO records (collection, key, body) VALUES (?1, ?2, ?3)
                         ON CONFLICT (collection, key) DO UPDATE SET body = excluded.body",
                    )
                    .and_then(|mut s| s.execute(params![collection, key, body])),
                Change::Delete { collection, key } => self
                    .conn
                    .prepare_cached("DELETE FROM records WHERE collection = ?1 AND key = ?2")
                    .and_then(|mut s| s.execute(params![collection, key])),
            };
            statement.map_err(sqlite)?;
        }
        Ok(())
    }
}

/// Opens `path` with `flags` and the settings every connection uses.
fn connect(path: &Path, flags: OpenFlags) -> Result<Connection, DbError> {
    let sqlite = |error| DbError::new(path, DbErrorKind::Sqlite(error));
    let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(sqlite)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
    // In WAL mode a commit does not wait for the disk; a crash may lose
    // the last commits but never corrupts the file.
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sqlite)?;
    Ok(conn)
}

/// Runs `work`, which may wait on SQLite, without stalling the async
/// runtime: on a multi-threaded tokio runtime the worker hands its other
/// tasks on first (`block_in_place`); elsewhere it simply runs.
pub(crate) fn blocking<R>(work: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}
