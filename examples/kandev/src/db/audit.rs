//! The `audit` table: the audit trail of `serve --db`, one row per change
//! of what the served agent can reach, written in the transaction of the
//! change (see [`crate::store::BoardGuard::audit`]). `seq` is an
//! `AUTOINCREMENT` key, so a number is never used twice, even after the
//! newest rows are gone; `before` and `after` are JSON (`null` for none),
//! `added` and `removed` JSON arrays. Every process serving a task of the
//! file writes to the same table.

use mcp_profiles_serve::audit::{AuditEntry, AuditOrder, AuditQuery, AuditRecord};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

use super::{BadRow, DbErrorKind};

/// Writes `entry` as the next row, made at `at` (milliseconds since the
/// Unix epoch), inside the caller's transaction; the record.
pub(super) fn append(
    conn: &Connection,
    entry: AuditEntry,
    at: u64,
) -> rusqlite::Result<AuditRecord> {
    let mut record = entry.into_record(0, at);
    let list = |names: &[String]| Value::from(names.to_vec()).to_string();
    conn.prepare_cached(
        "INSERT INTO audit (at, actor, principal, kind, before, after, added, removed, request_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        i64::try_from(at).unwrap_or(i64::MAX),
        record.actor,
        record.principal,
        record.kind.as_str(),
        record.before.to_string(),
        record.after.to_string(),
        list(&record.added),
        list(&record.removed),
        record.request_id,
    ])?;
    record.seq = u64::try_from(conn.last_insert_rowid()).unwrap_or_default();
    Ok(record)
}

/// One row as it was read: its columns, before they are checked.
type Row = (
    i64,
    i64,
    String,
    Option<String>,
    String,
    String,
    String,
    String,
    String,
    String,
);

/// The page `query` asks for; a row that does not read back as a record is
/// the error, naming it.
pub(super) fn page(conn: &Connection, query: &AuditQuery) -> Result<Vec<AuditRecord>, DbErrorKind> {
    let (order, bounds) = paged(query);
    let sql = format!(
        "SELECT seq, at, actor, principal, kind, before, after, added, removed, request_id
         FROM audit
         WHERE seq > ?1 AND seq < ?2 AND (?3 IS NULL OR principal = ?3)
         ORDER BY seq {order} LIMIT ?4"
    );
    let rows = conn.prepare_cached(&sql).and_then(|mut statement| {
        statement
            .query_map(params![bounds.0, bounds.1, bounds.2, bounds.3], |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                    row.get(6)?,
                    row.get(7)?,
                    row.get(8)?,
                    row.get(9)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<Row>>>()
    });
    rows.map_err(DbErrorKind::Sqlite)?
        .into_iter()
        .map(record)
        .collect::<Result<_, _>>()
        .map_err(DbErrorKind::BadRow)
}

/// How `query` pages a table numbered by `seq` (the audit trail's, the
/// decision log's): `ORDER BY seq`'s direction, and the values of `?1` to
/// `?4` in `seq > ?1 AND seq < ?2 AND (?3 IS NULL OR principal = ?3) ...
/// LIMIT ?4`.
pub(super) fn paged(query: &AuditQuery) -> (&'static str, (i64, i64, Option<&str>, i64)) {
    let order = match query.order() {
        AuditOrder::OldestFirst => "ASC",
        AuditOrder::NewestFirst => "DESC",
    };
    let bound = |seq: Option<u64>, default: i64| {
        seq.map_or(default, |seq| i64::try_from(seq).unwrap_or(i64::MAX))
    };
    let bounds = (
        bound(query.since_seq(), 0),
        bound(query.before_seq(), i64::MAX),
        query.principal(),
        i64::try_from(query.limit()).unwrap_or(i64::MAX),
    );
    (order, bounds)
}

/// A row as its record, read as strictly as any record's JSON form.
fn record(row: Row) -> Result<AuditRecord, BadRow> {
    let (seq, at, actor, principal, kind, before, after, added, removed, request_id) = row;
    let bad = |message: String| BadRow {
        collection: "audit".into(),
        key: seq.to_string(),
        message,
    };
    let json = |column: &str, text: &str| {
        serde_json::from_str::<Value>(text).map_err(|error| bad(format!("`{column}`: {error}")))
    };
    let fields = json!({
        "seq": seq,
        "at": at,
        "actor": actor,
        "principal": principal,
        "kind": kind,
        "before": json("before", &before)?,
        "after": json("after", &after)?,
        "added": json("added", &added)?,
        "removed": json("removed", &removed)?,
        "request_id": request_id,
    });
    serde_json::from_value(fields).map_err(|error| bad(error.to_string()))
}
