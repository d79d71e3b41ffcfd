//! The board every tool works against ([`Store`]), in memory or written
//! through to a SQLite file (`crate::db`); the board itself is
//! `crate::model`. Beside it, the audit trail of the control API's changes
//! ([`BoardGuard::audit`], [`Store::audit`]): the file's `audit` table, or
//! the newest records in memory.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

// The model the board is made of, here too, where the tools look for it.
pub use crate::model::*;

use mcp_profiles_serve::audit::decisions::DecisionRecord;
use mcp_profiles_serve::audit::{
    AuditEntry, AuditQuery, AuditRecord, AuditTrail, DecisionTrail, MemoryAuditLog, TrailError,
};

use crate::db::{Database, DbError, blocking};

/// The board behind one Kandev server; all sessions share it.
#[derive(Default)]
pub struct Store {
    inner: Mutex<Inner>,
    path: Option<PathBuf>,
}

#[derive(Default)]
struct Inner {
    board: Board,
    /// Where changes are written, if anywhere.
    db: Option<Database>,
    /// The audit trail of a board kept in memory (one in a file keeps it
    /// in its `audit` table).
    memory: MemoryAuditLog,
}

impl Store {
    /// The demo board, in memory.
    pub fn demo() -> Self {
        Store::in_memory(Board::demo())
    }

    fn in_memory(board: Board) -> Self {
        Store {
            inner: Mutex::new(Inner {
                board,
                db: None,
                memory: MemoryAuditLog::default(),
            }),
            path: None,
        }
    }

    fn on_disk(board: Board, db: Database) -> Self {
        Store {
            path: Some(db.path().to_owned()),
            inner: Mutex::new(Inner {
                board,
                db: Some(db),
                memory: MemoryAuditLog::default(),
            }),
        }
    }

    /// Creates a new database at `path` holding the demo board; refuses a
    /// path that exists.
    pub fn create(path: &Path) -> Result<Self, DbError> {
        let board = Board::demo();
        let db = Database::create(path, &board)?;
        Ok(Store::on_disk(board, db))
    }

    /// Opens the database at `path` (migrating an older schema; refusing a
    /// newer, foreign or damaged file).
    pub fn open(path: &Path) -> Result<Self, DbError> {
        let (db, board) = Database::open(path)?;
        Ok(Store::on_disk(board, db))
    }

    /// The database file, when the board is written to one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Exclusive access to the board for one tool call. With a database,
    /// the call is one write transaction, committed when the guard drops; a
    /// failure to save is logged and the board is read from the file again
    /// before the next call, so memory never drifts from the file. For
    /// looks only: what changes the board and must report a failure uses
    /// [`with`](Self::with) or [`begin`](Self::begin).
    pub fn lock(&self) -> BoardGuard<'_> {
        let mut guard = BoardGuard {
            inner: self.inner(),
            changed: false,
            open: false,
        };
        if let Err(error) = guard.start() {
            tracing::error!("{error}; this call works on the board as last read");
        }
        guard
    }

    /// Runs `work` on the board as one transaction and commits it; what
    /// changes the board goes through here, so that a change the file does
    /// not hold is never answered as made. A board that cannot be read
    /// first, or a change that cannot be saved, is the error (nothing of it
    /// is kept: the board is read from the file again before the next call).
    /// In memory it always succeeds.
    pub fn with<R>(&self, work: impl FnOnce(&mut BoardGuard<'_>) -> R) -> Result<R, DbError> {
        let mut board = self.begin()?;
        let outcome = work(&mut board);
        board.commit()?;
        Ok(outcome)
    }

    /// Like [`lock`](Self::lock), but a database that cannot start the
    /// transaction (or read another process's changes) is an error.
    pub fn begin(&self) -> Result<BoardGuard<'_>, DbError> {
        let mut guard = BoardGuard {
            inner: self.inner(),
            changed: false,
            open: false,
        };
        guard.start()?;
        Ok(guard)
    }
}

impl Store {
    /// Runs `read` on the board as last read, without a transaction: for
    /// cheap looks that need not see another process's latest change.
    pub fn peek<R>(&self, read: impl FnOnce(&Board) -> R) -> R {
        read(&self.inner().board)
    }

    /// The page of the audit trail `query` asks for: the file's, which every
    /// process serving a task of it writes, or the one kept in memory.
    pub fn audit(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, DbError> {
        let inner = self.inner();
        match &inner.db {
            Some(db) => blocking(|| db.audit(query)),
            None => Ok(inner.memory.query(query)),
        }
    }

    /// Reads the board again if another process changed the file; whether
    /// it did. Always `false` in memory.
    pub fn refresh(&self) -> Result<bool, DbError> {
        let outdated = {
            let inner = self.inner();
            let Some(db) = &inner.db else {
                return Ok(false);
            };
            blocking(|| db.outdated())?
        };
        if outdated {
            // `begin` reads the file again; committing nothing ends it.
            self.begin()?.commit()?;
        }
        Ok(outdated)
    }
}

/// The board keeps the audit trail of the control API's changes: each in
/// a transaction of its own, committed before the change is made (a record
/// that cannot be saved refuses its change).
impl AuditTrail for Store {
    fn append(&self, entry: AuditEntry) -> Result<AuditRecord, TrailError> {
        let written = self.begin().and_then(|mut board| {
            let record = board.audit(entry)?;
            board.commit()?;
            Ok(record)
        });
        written.map_err(|error| TrailError::new(error.to_string()))
    }

    fn query(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, TrailError> {
        Store::audit(self, query).map_err(|error| TrailError::new(error.to_string()))
    }
}

/// A board in a file keeps the decision log of `serve --log-decisions` in
/// its `decisions` table; one in memory keeps none (the log answers).
impl DecisionTrail for Store {
    fn append(&self, records: Vec<DecisionRecord>) -> Result<(), TrailError> {
        let inner = self.inner();
        let db = inner.db.as_ref().ok_or_else(in_memory)?;
        blocking(|| db.append_decisions(&records))
            .map_err(|error| TrailError::new(error.to_string()))
    }

    fn query(&self, query: &AuditQuery) -> Result<Vec<DecisionRecord>, TrailError> {
        let inner = self.inner();
        let db = inner.db.as_ref().ok_or_else(in_memory)?;
        blocking(|| db.decisions(query)).map_err(|error| TrailError::new(error.to_string()))
    }
}

fn in_memory() -> TrailError {
    TrailError::new("the board is in memory; only a database keeps decisions")
}

/// Milliseconds since the Unix epoch, now.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// The board, held for one call; dereferences to [`Board`].
pub struct BoardGuard<'a> {
    inner: MutexGuard<'a, Inner>,
    /// The board was borrowed mutably since the transaction began.
    changed: bool,
    /// A database transaction is open.
    open: bool,
}

impl BoardGuard<'_> {
    fn start(&mut self) -> Result<(), DbError> {
        let Inner { board, db, .. } = &mut *self.inner;
        if let Some(db) = db {
            blocking(|| db.begin(board))?;
            self.open = true;
        }
        Ok(())
    }

    /// Records `entry` in the audit trail, in the transaction this guard
    /// holds: committed with the change it records by
    /// [`commit`](Self::commit), or not at all. Call it before changing
    /// the board: a record that cannot be written ends the transaction at
    /// once, keeping nothing, and is the error, so the change is refused.
    /// In memory it always succeeds.
    pub fn audit(&mut self, entry: AuditEntry) -> Result<AuditRecord, DbError> {
        let Inner { db, memory, .. } = &mut *self.inner;
        let Some(db) = db else {
            return Ok(memory.append(entry));
        };
        let at = now_ms();
        let written = blocking(|| db.append_audit(entry, at));
        if written.is_err() {
            db.rollback();
            self.open = false;
            self.changed = false;
        }
        written
    }

    /// Saves what changed and commits now (a no-op in memory); the guard
    /// still holds the board afterwards, so what the caller does next sees
    /// exactly what was saved.
    pub fn commit(&mut self) -> Result<(), DbError> {
        let Inner { board, db, .. } = &mut *self.inner;
        let Some(db) = db else {
            return Ok(());
        };
        let (open, changed) = (self.open, self.changed);
        self.open = false;
        self.changed = false;
        if open {
            return blocking(|| db.commit(board, changed));
        }
        if changed {
            // No transaction began, so nothing can be saved: the file is
            // the truth, read it again next time.
            db.mark_stale();
        }
        Ok(())
    }
}

impl Deref for BoardGuard<'_> {
    type Target = Board;

    fn deref(&self) -> &Board {
        &self.inner.board
    }
}

impl DerefMut for BoardGuard<'_> {
    fn deref_mut(&mut self) -> &mut Board {
        self.changed = true;
        &mut self.inner.board
    }
}

impl Drop for BoardGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // A call that panicked may have left the board half changed:
            // keep nothing, and read the file again next time.
            if let Some(db) = &mut self.inner.db {
                db.rollback();
            }
            return;
        }
        let unsaved = self.changed && !self.open;
        match self.commit() {
            Err(error) => {
                tracing::error!("{error}; the change was not saved, the board is read again")
            }
            Ok(()) if unsaved && self.inner.db.is_some() => tracing::error!(
                "a change to the board was not saved (its transaction never began); \
                 the board is read again"
            ),
            Ok(()) => {}
        }
    }
}
