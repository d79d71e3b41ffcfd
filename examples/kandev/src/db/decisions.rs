//! The `decisions` table: the decision log of `serve --db --log-decisions`,
//! one row per call decision, shipped from the in-memory log in batches
//! (see [`mcp_profiles_serve::audit::DecisionTrail`]). `seq` is an
//! `AUTOINCREMENT` key, as the audit trail's; `record` is the record's JSON
//! form, its `seq` the row's.

use mcp_profiles_serve::audit::AuditQuery;
use mcp_profiles_serve::audit::decisions::DecisionRecord;
use rusqlite::{Connection, params};

use super::audit::paged;
use super::{BadRow, DbErrorKind};

/// Writes `records` as the next rows, in one transaction of their own.
pub(super) fn append(conn: &Connection, records: &[DecisionRecord]) -> rusqlite::Result<()> {
    let transaction = conn.unchecked_transaction()?;
    {
        let mut insert = transaction
            .prepare_cached("INSERT INTO decisions (principal, record) VALUES (?1, ?2)")?;
        for record in records {
            let json = serde_json::to_string(record)
                .map_err(|error| rusqlite::Error::ToSqlConversionFailure(error.into()))?;
            insert.execute(params![record.principal, json])?;
        }
    }
    transaction.commit()
}

/// The page `query` asks for; a row that does not read back as a record is
/// the error, naming it.
pub(super) fn page(
    conn: &Connection,
    query: &AuditQuery,
) -> Result<Vec<DecisionRecord>, DbErrorKind> {
    let (order, bounds) = paged(query);
    let sql = format!(
        "SELECT seq, record FROM decisions
         WHERE seq > ?1 AND seq < ?2 AND (?3 IS NULL OR principal = ?3)
         ORDER BY seq {order} LIMIT ?4"
    );
    let rows = conn.prepare_cached(&sql).and_then(|mut statement| {
        statement
            .query_map(params![bounds.0, bounds.1, bounds.2, bounds.3], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
    });
    let rows = rows.map_err(DbErrorKind::Sqlite)?;
    rows.into_iter()
        .map(|(seq, json)| {
            let mut record: DecisionRecord = serde_json::from_str(&json).map_err(|error| {
                DbErrorKind::BadRow(BadRow {
                    collection: "decisions".into(),
                    key: seq.to_string(),
                    message: error.to_string(),
                })
            })?;
            record.seq = u64::try_from(seq).unwrap_or_default();
            Ok(record)
        })
        .collect()
}
