//! Who the tests say made their store changes, and how they read the
//! audit trail back.

use std::sync::LazyLock;

use mcp_profiles::Vocabulary;
use mcp_profiles_serve::AgentStore;
use mcp_profiles_serve::audit::{Attribution, AuditQuery, AuditRecord};

/// The attribution of every test change that is not itself under test.
pub fn by() -> &'static Attribution {
    static BY: LazyLock<Attribution> =
        LazyLock::new(|| Attribution::new("tests", "test-request").expect("a valid attribution"));
    &BY
}

/// An attribution of `actor` in request `request_id`.
pub fn attribution(actor: &str, request_id: &str) -> Attribution {
    Attribution::new(actor, request_id).expect("a valid attribution")
}

/// Every record `store` holds, oldest first (at most a page's worth).
pub async fn records<S: Vocabulary>(store: &dyn AgentStore<S>) -> Vec<AuditRecord> {
    store
        .audit(&AuditQuery::new().with_limit(AuditQuery::MAX_LIMIT))
        .await
        .expect("the audit trail reads")
}

/// Each record's kind, principal and request id, in order.
pub fn said(records: &[AuditRecord]) -> Vec<(String, Option<String>, String)> {
    records
        .iter()
        .map(|r| {
            (
                r.kind.to_string(),
                r.principal.clone(),
                r.request_id.clone(),
            )
        })
        .collect()
}
